package dev.tierlock.spi;

import java.util.List;
import java.util.Optional;

/**
 * Conditional object operations on keys under one root (a bucket and prefix, or a directory): the
 * whole of what a datastore backend implements.
 *
 * <p><b>Contract.</b> Every method is bounded by a deadline the backend is configured with: it
 * returns or throws within it, and never blocks forever. Preconditions are evaluated atomically with
 * the change they guard. Expected outcomes (absent, not modified, precondition failed) are return
 * values. Failures are {@link dev.tierlock.spi.DatastoreException}s:
 *
 * <ul>
 *   <li>{@link DatastoreUnavailableException}: the call did not happen or cannot have changed
 *       anything (refused, throttled, 5xx before any effect); retryable;
 *   <li>{@link DatastoreBusyException}: the store's own lock on the key stayed held by another
 *       writer; nothing changed; retryable;
 *   <li>{@link OutcomeUnknownException}: a change was sent and no answer came (a timeout, a reset
 *       after sending, or a precondition failure on a retried attempt); the change may or may not
 *       have landed;
 *   <li>{@link DatastoreAccessDeniedException}: credentials or permissions refuse it;
 *   <li>{@link ObjectTooLargeException}: a read found an object over the caller's bound;
 *   <li>{@link ObjectBodyUnreadableException}: the caller's body could not be read.
 * </ul>
 *
 * <p><b>Identity.</b> {@link #identity()} says what the store really is; the precondition
 * self-check's verdict is keyed by it, so two instances report equal identities only when they
 * reach the same objects through the same endpoint.
 *
 * <p>Vendor exceptions never escape. Implementations are thread-safe.
 */
public interface Datastore extends AutoCloseable {

  /**
   * Returns what this store really is: endpoint, container and prefix (see {@link
   * DatastoreIdentity}). Never a secret. Constant for the life of the instance.
   *
   * @return the identity
   */
  DatastoreIdentity identity();

  /**
   * Returns a description of where this datastore lives, for messages: a URI such as {@code
   * s3://bucket/prefix} or {@code file:///srv/tier}, never holding a secret. Not an identity: two
   * different stores may describe themselves alike.
   *
   * @return the description; by default the identity's text
   */
  default String describe() {
    return identity().toString();
  }

  /**
   * Returns the most bytes of user metadata one object may carry here, names and values counted
   * in UTF-8 ({@link ObjectMetadata#byteSize()}): 2048 on S3, 8192 on GCS. A write over it is
   * refused with {@link IllegalArgumentException} before anything is sent.
   *
   * @return the capacity in bytes; by default 2048, the smallest of the supported stores
   */
  default int maxMetadataBytes() {
    return 2048;
  }

  /**
   * Returns whether an object's version can come back after it changed: true when a version is a
   * digest of the content (an S3 ETag: writing the old bytes again gives the old ETag), false when
   * every write makes a version never seen before (a GCS generation). Tierlock judges a lost
   * write's landing by versions; a version that cannot repeat proves more.
   *
   * <p>A write conditioned on a version lands only on an object with that version, so where a
   * version is a digest of the bytes it lands on exactly the bytes it was made on, whoever wrote
   * them and however often: Tierlock publishes a warm commit on its cached version in one call on
   * every store. What a repeated version does not say is the metadata (the commit lineage) of the
   * object it lands on, unless {@link #versionsBindMetadata()}; Tierlock then marks that the
   * lineage it writes may skip commits, and judges nothing across that mark but "landed".
   *
   * @return whether versions can repeat; by default true, the cautious answer
   */
  default boolean versionsRepeat() {
    return true;
  }

  /**
   * Returns whether an object's version stands for its user metadata too: two objects with one
   * version carry equal metadata (the filesystem datastore's version is a digest of the bytes and
   * the metadata). Meaningful where {@link #versionsRepeat()}: a write conditioned on a version then
   * lands only on the metadata read with it, so the lineage Tierlock keeps in the metadata stays
   * one unbroken chain with no read before a warm commit. An S3 ETag depends on the bytes alone:
   * false.
   *
   * @return whether a version binds the metadata; by default false, the cautious answer
   */
  default boolean versionsBindMetadata() {
    return false;
  }

  /**
   * Returns the shortest interval between two writes of one object that this store sustains: GCS
   * allows about one write per second to one object name and refuses more with 429. Tierlock paces
   * the writes of one checkout's lockfile to it, so that queued runs merge into the next write
   * instead of meeting a refusal.
   *
   * @return the interval; by default zero, no pacing
   */
  default java.time.Duration minWriteInterval() {
    return java.time.Duration.ZERO;
  }

  /**
   * Reads one object whole, refusing one larger than {@code maxBytes} before its bytes are held in
   * memory (the size is checked from what the store says before the body, and again while it
   * streams).
   *
   * @param key the object's key
   * @param condition {@link ReadCondition#always()} or a not-modified check
   * @param maxBytes the largest object accepted, in bytes; positive
   * @return the bytes and version, {@link ReadResult.NotModified} when the condition saved the
   *     download, or {@link ReadResult.Absent}
   * @throws ObjectTooLargeException if the object is larger than {@code maxBytes}
   * @throws IllegalArgumentException if {@code maxBytes} is not positive
   */
  ReadResult read(ObjectKey key, ReadCondition condition, long maxBytes);

  /**
   * Opens a streaming download of one object, for large objects; the size is known before any byte
   * is read, so a caller can refuse an oversize object without downloading it.
   *
   * @param key the object's key
   * @return the open download, or empty when no object exists at the key
   */
  Optional<ObjectStream> openStream(ObjectKey key);

  /**
   * {@return what the store knows of one object without its bytes, or empty when it is absent}
   *
   * @param key the object's key
   */
  Optional<StoredObject> stat(ObjectKey key);

  /**
   * Writes one object under a precondition.
   *
   * @param key the object's key
   * @param body the bytes; opened again if the backend retries an attempt
   * @param condition the precondition checked atomically with the write
   * @param metadata user metadata stored with the object (replaces any earlier metadata)
   * @return {@link WriteResult.Written} with the new version, or {@link
   *     WriteResult.PreconditionFailed} when nothing changed
   */
  WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata);

  /**
   * Deletes one object under a precondition; {@link WriteCondition#mustNotExist()} is not a valid
   * delete condition.
   *
   * @param key the object's key
   * @param condition {@link WriteCondition#none()} or {@link WriteCondition#mustMatch}
   * @return what happened
   * @throws IllegalArgumentException for {@link WriteCondition#mustNotExist()}
   */
  DeleteResult delete(ObjectKey key, WriteCondition condition);

  /**
   * Lists every object whose key starts with {@code prefix} (text prefix, see {@link
   * ObjectKey#validatePrefix}), sorted by key, following every page.
   *
   * @param prefix the key prefix; empty for every object
   * @return the objects, sorted by key
   */
  List<StoredObject> list(String prefix);

  /** Frees the backend's resources; a client passed in by the caller is not closed. */
  @Override
  void close();
}
