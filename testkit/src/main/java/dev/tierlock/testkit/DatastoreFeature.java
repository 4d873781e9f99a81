package dev.tierlock.testkit;

/**
 * Optional behaviours a datastore may lack, declared by a {@link DatastoreContract} subclass (and,
 * for {@link #NOT_MODIFIED_READS}, by a {@link SyncPortContract} subclass). The
 * contract tests a declared feature for its full behaviour and an absent one for the documented
 * fallback below: nothing is skipped silently. Everything not listed here (create-only and
 * compare-and-swap writes, atomic under concurrency; unconditional writes and deletes; listing;
 * downloads; stat) is required of every datastore.
 */
public enum DatastoreFeature {

  /**
   * A read conditional on the current version answers {@link
   * dev.tierlock.spi.ReadResult.NotModified} without a body. <b>Absent:</b> it answers {@link
   * dev.tierlock.spi.ReadResult.Found} with the same version and bytes (correct, only not cheaper).
   */
  NOT_MODIFIED_READS,

  /**
   * Deletes conditional on a version are atomic. <b>Absent:</b> a delete with {@link
   * dev.tierlock.spi.WriteCondition#mustMatch} throws {@link dev.tierlock.spi.DatastoreUnsafeException}
   * and deletes nothing; unconditional deletes still work.
   */
  CONDITIONAL_DELETE,

  /**
   * User metadata is stored with each write and returned by reads, downloads and stats (and by
   * listings when the store also has {@link #LISTING_METADATA}). <b>Absent:</b> a write with
   * non-empty metadata throws {@link IllegalArgumentException} and writes nothing; objects report
   * empty metadata.
   */
  USER_METADATA,

  /**
   * Listings carry each object's user metadata, as {@link dev.tierlock.spi.Datastore#stat} reports
   * it (GCS and filesystem listings do, at no extra cost). <b>Absent:</b> listings report {@link
   * dev.tierlock.spi.ObjectMetadata#EMPTY} for every object, with the right key, version and size,
   * and {@code stat} gives the metadata (S3 listings carry none: one HEAD per listed object would be
   * needed). Callers that need an object's metadata call {@code stat} or {@code read}, never rely on
   * a listing for it.
   */
  LISTING_METADATA,

  /**
   * An unconditional delete of a missing key reports {@link dev.tierlock.spi.DeleteResult#ABSENT}.
   * <b>Absent:</b> it may report {@link dev.tierlock.spi.DeleteResult#DELETED} instead (S3 answers
   * 204 either way); it still changes nothing.
   */
  DELETE_REPORTS_ABSENT,

  /**
   * The contract lists 1,100 objects, more than one page of S3 (1,000) or GCS listings. <b>Absent:</b>
   * it lists 60 objects, which keeps a slow store's contract run short; paging is then not
   * exercised.
   */
  PAGINATION_AT_SCALE,

  /**
   * A key can name an object and also be a prefix of other objects' keys at once ({@code a/b} and
   * {@code a/b/c}), as on S3 and GCS. Absent (a filesystem, where {@code a/b} is either a file or a
   * directory): writing a key that would need a file where a directory is, or the reverse, throws
   * {@link IllegalArgumentException} whose message starts "Cannot write" and names the key, and
   * changes nothing.
   */
  OBJECT_AND_PREFIX_KEYS,

  /**
   * Reads, downloads, stats and listings report {@link dev.tierlock.spi.StoredObject#modified()}:
   * the time the store's own clock gave the object's last write (S3's {@code LastModified}, a GCS
   * object's update time, a file's modification time), the same in every view to the second, and
   * never earlier than an earlier write's (to the millisecond). Tierlock judges archive ages by it
   * ({@link dev.tierlock.ArchiveCollector}). <b>Absent:</b> every view reports it empty, and a
   * collection deletes nothing there.
   */
  MODIFICATION_TIMES
}
