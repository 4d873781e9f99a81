package dev.tierlock.testkit;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The fake remote: an object store that behaves like S3 and GCS, kept in a directory, with fault
 * injection and an operation log. Each instance has its own state; nothing is shared between
 * instances.
 *
 * <p><b>Versions</b> follow one of two presets ({@link Versions}), chosen with {@link #builder()}:
 * by default every write creates a new version {@code v1, v2, ...}, strictly increasing across the
 * store and never reused (like GCS generations), so every write changes the version even when the
 * bytes do not; with {@link Versions#CONTENT_DIGEST} the version is a digest of the bytes alone
 * (like S3 ETags), so writing bytes again brings their old version back, whatever the metadata.
 *
 * <p><b>Semantics.</b> {@link WriteCondition#none()} is last-writer-wins, which reproduces the lost
 * update Tierlock prevents. {@link WriteCondition#mustNotExist()} and {@link
 * WriteCondition#mustMatch} are checked atomically with the change (a {@code mustMatch} on a missing
 * key fails its precondition); a conditional delete of a missing key reports {@link
 * DeleteResult#ABSENT}; reads honour {@link ReadCondition#ifNoneMatch}. User metadata is stored and
 * replaced by each write; a write whose metadata is larger than {@link #maxMetadataBytes()} (2048
 * bytes unless set otherwise, as on S3) is refused with {@link IllegalArgumentException} before
 * anything is written. Reads are bounded: an object larger than the read's bound throws {@link
 * dev.tierlock.spi.ObjectTooLargeException} (a not-modified read transfers no body and is never
 * refused). {@link #list} is sorted by key. {@link #describe()} is {@code fake://<directory>}.
 *
 * <p><b>Identity.</b> {@link #identity()} is scheme {@code fake}, a random id drawn when the
 * instance opens as endpoint, and the directory as container. So no two fake remotes share an
 * identity, not even one reopened with {@link #inDirectory} on the directory a closed one left: a
 * restarted fake is treated as a store nobody has vouched for yet (a self-check verdict keyed by
 * the old identity does not carry over), which is the cautious reading of "the same store".
 *
 * <p><b>Strict.</b> {@code delete} with {@code mustNotExist} and a body whose {@link ObjectBody#size()}
 * differs from its bytes throw {@link IllegalArgumentException}; a bad listing prefix throws too;
 * every call after {@link #close()} throws {@link IllegalStateException}; {@link
 * #checkNoOpenStreams()} fails on a download left open. Injected faults ({@link #faults()}) and the
 * log ({@link #log()}) apply to the {@link Datastore} methods only, never to {@link #peek}, {@link
 * #plant} and the other back-door methods.
 *
 * <p>Thread-safe. One open instance owns its directory: opening a second one on it throws.
 */
public final class FakeRemote extends ForwardingDatastore implements AutoCloseable {

  /** The default of {@link #maxMetadataBytes()}: S3's 2 KiB, the smallest of the real stores. */
  public static final int DEFAULT_MAX_METADATA_BYTES = 2048;

  /**
   * How a fake remote versions the objects it writes. Both presets check every precondition
   * atomically with the change; they differ only in when two writes get equal versions.
   */
  public enum Versions {
    /**
     * Every write gets a fresh version ({@code v1}, {@code v2}, ...), never reused in the life of
     * the directory, even for identical bytes and metadata: GCS generations. A compare-and-swap
     * conditioned on a version can only succeed while that very write is current. The default.
     */
    GENERATIONS,
    /**
     * The version is a digest of the bytes alone (their MD5 in hex, quoted, the form of a
     * single-part S3 ETag); metadata is not part of it. Equal bytes always get equal versions, on
     * any key and at any time: writing {@code A}, then {@code B}, then {@code A} again gives the
     * third write the first one's version, so a compare-and-swap conditioned on the version read
     * before {@code B} succeeds again (the ABA case), and a metadata-only change keeps the version
     * (a read conditional on it reports not-modified and the new metadata is not seen).
     */
    CONTENT_DIGEST
  }

  private final FakeObjectStore store;
  private final FaultyDatastore faulty;
  private final boolean ownsDirectory;
  private java.time.Duration minWriteInterval = java.time.Duration.ZERO;

  private FakeRemote(FakeObjectStore store, boolean ownsDirectory) {
    this.store = store;
    this.faulty = FaultyDatastore.wrap(store);
    this.ownsDirectory = ownsDirectory;
  }

  /** Returns the interval set by {@link Builder#minWriteInterval}: declared, not enforced (default zero). */
  @Override
  public java.time.Duration minWriteInterval() {
    return minWriteInterval;
  }

  /**
   * Creates a fake remote in a fresh temp directory, deleted by {@link #close()}, with {@link
   * Versions#GENERATIONS} and {@value #DEFAULT_MAX_METADATA_BYTES} bytes of metadata.
   *
   * @return the fake remote
   * @throws DatastoreUnavailableException if the directory cannot be created
   */
  public static FakeRemote create() {
    return builder().build();
  }

  /**
   * Opens a fake remote with the default settings in a directory the caller owns (created if
   * missing, left in place by {@link #close()}); objects an earlier instance left there are loaded,
   * so a test can "restart" the remote (with a new {@link #identity()}).
   *
   * @param directory the directory that holds the objects
   * @return the fake remote
   * @throws IllegalStateException if another open fake remote owns the directory
   * @throws DatastoreUnavailableException if the directory cannot be prepared or read
   */
  public static FakeRemote inDirectory(Path directory) {
    return builder().directory(directory).build();
  }

  /** {@return a builder with the defaults: a temp directory, {@link Versions#GENERATIONS}, 2048 bytes of metadata} */
  public static Builder builder() {
    return new Builder();
  }

  /** {@return the fault controls of this remote's {@link Datastore} methods} */
  public Faults faults() {
    return faulty.faults();
  }

  /** {@return the log of this remote's {@link Datastore} calls} */
  public OperationLog log() {
    return faulty.log();
  }

  /** {@return the directory that holds the objects} */
  public Path directory() {
    return store.root();
  }

  /**
   * {@return the current bytes at {@code key}, or empty when absent; not logged, never faulted}
   *
   * @param key the object's key
   * @throws IllegalStateException if the remote is closed
   */
  public Optional<byte[]> peek(ObjectKey key) {
    ReadResult result = store.read(key, ReadCondition.always(), Long.MAX_VALUE);
    return result instanceof ReadResult.Found found ? Optional.of(found.bytes()) : Optional.empty();
  }

  /**
   * {@return what the remote holds at {@code key} (version, size, metadata), or empty when absent;
   * not logged, never faulted}
   *
   * @param key the object's key
   * @throws IllegalStateException if the remote is closed
   */
  public Optional<StoredObject> peekObject(ObjectKey key) {
    return store.stat(key);
  }

  /**
   * Writes {@code bytes} at {@code key} unconditionally, with no metadata, behind everyone's back (as
   * a peer would); not logged, never faulted. The object is versioned as any write ({@link
   * Versions}).
   *
   * @param key the object's key
   * @param bytes the object's new bytes
   * @throws IllegalStateException if the remote is closed
   */
  public void plant(ObjectKey key, byte[] bytes) {
    plant(key, bytes, ObjectMetadata.EMPTY);
  }

  /**
   * Writes {@code bytes} with {@code metadata} at {@code key} unconditionally, behind everyone's
   * back; not logged, never faulted.
   *
   * @param key the object's key
   * @param bytes the object's new bytes
   * @param metadata the object's new metadata
   * @throws IllegalStateException if the remote is closed
   * @throws IllegalArgumentException if the metadata is larger than {@link #maxMetadataBytes()}, as
   *     a peer's write would be refused
   */
  public void plant(ObjectKey key, byte[] bytes, ObjectMetadata metadata) {
    store.write(key, ObjectBody.of(bytes), WriteCondition.none(), metadata);
  }

  /**
   * Deletes the object at {@code key}, if any, behind everyone's back; not logged, never faulted.
   *
   * @param key the object's key
   * @throws IllegalStateException if the remote is closed
   */
  public void erase(ObjectKey key) {
    store.delete(key, WriteCondition.none());
  }

  /**
   * {@return every key the remote holds, sorted (an immutable snapshot)}
   *
   * @throws IllegalStateException if the remote is closed
   */
  public SortedSet<ObjectKey> keys() {
    return Collections.unmodifiableSortedSet(store.keys());
  }

  /**
   * Turns this remote into a broken store that ignores every write and delete precondition (as
   * some S3-compatible stores do): every write lands and every delete of an existing object
   * succeeds. Reads still honour {@code ifNoneMatch}. For testing the datastore self-check. Cannot
   * be undone.
   */
  public void ignorePreconditions() {
    store.ignorePreconditions();
  }

  /** {@return the keys of the downloads opened through this remote and not closed yet, in order} */
  public List<ObjectKey> openStreams() {
    return store.openStreamKeys();
  }

  /**
   * Checks that every download opened through this remote was closed.
   *
   * @throws IllegalStateException naming the keys of the downloads left open
   */
  public void checkNoOpenStreams() {
    List<ObjectKey> open = store.openStreamKeys();
    if (!open.isEmpty()) {
      throw new IllegalStateException(
          "Cannot finish with fake remote " + describe() + ": " + open.size() + " download(s) left open: " + open);
    }
  }

  @Override
  protected Datastore delegate() {
    return faulty;
  }

  /**
   * Returns true: what breaks preconditions here is the store itself ({@link #ignorePreconditions()}),
   * or the fault controls, whose {@link FaultyDatastore} then says so.
   */
  @Override
  protected boolean passesPreconditionsThrough() {
    return true;
  }

  /** Returns {@code fake://<directory>}. */
  @Override
  public String describe() {
    return store.describe();
  }

  /**
   * Closes open downloads and the store; deletes the directory when {@link #create()} made it.
   * Idempotent.
   *
   * @throws DatastoreUnavailableException if the temp directory cannot be deleted
   */
  @Override
  public void close() {
    store.close();
    Path root = store.root();
    if (ownsDirectory && Files.exists(root)) {
      try (Stream<Path> paths = Files.walk(root)) {
        for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
          Files.deleteIfExists(p);
        }
      } catch (IOException e) {
        throw new DatastoreUnavailableException("Cannot delete fake remote directory " + root + ": " + e, e);
      }
    }
  }

  @Override
  public String toString() {
    return "FakeRemote[" + describe() + "]";
  }

  /** The settings of a {@link FakeRemote} before it opens. Not thread-safe. */
  public static final class Builder {

    private @Nullable Path directory;
    private Versions versions = Versions.GENERATIONS;
    private int maxMetadataBytes = DEFAULT_MAX_METADATA_BYTES;
    private java.time.Duration minWriteInterval = java.time.Duration.ZERO;
    private java.time.Clock clock = java.time.Clock.systemUTC();

    private Builder() {}

    /**
     * Sets the remote's own clock (default the system's): each write takes its time from it as
     * {@link dev.tierlock.spi.StoredObject#modified()}, never earlier than the previous write's, as
     * a server dates what it stores. A test gives the store a clock of its own to age objects
     * without touching any client's clock.
     *
     * @param clock the store's clock
     * @return this
     */
    public Builder clock(java.time.Clock clock) {
      this.clock = java.util.Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Sets {@link FakeRemote#minWriteInterval()}, what the remote says it sustains between two
     * writes of one object (default zero), as a GCS bucket says one second; it refuses nothing.
     *
     * @param value the interval, not negative
     * @return this
     * @throws IllegalArgumentException if it is negative
     */
    public Builder minWriteInterval(java.time.Duration value) {
      if (value.isNegative()) {
        throw new IllegalArgumentException("Cannot use minWriteInterval " + value + " for a fake remote: it is negative");
      }
      this.minWriteInterval = value;
      return this;
    }

    /**
     * Keeps the objects in {@code directory}, which the caller owns: created if missing, left in
     * place by {@link FakeRemote#close()}, its objects loaded when it holds some. Default: a fresh
     * temp directory that closing deletes.
     *
     * @param directory the directory that holds the objects
     * @return this
     */
    public Builder directory(Path directory) {
      this.directory = directory;
      return this;
    }

    /**
     * Sets how new writes are versioned (default {@link Versions#GENERATIONS}). Objects loaded from
     * a directory keep the versions they were written with.
     *
     * @param versions how new writes are versioned
     * @return this
     */
    public Builder versions(Versions versions) {
      this.versions = versions;
      return this;
    }

    /**
     * Sets {@link FakeRemote#maxMetadataBytes()}, the most bytes of metadata names and values one
     * write may carry (default {@value FakeRemote#DEFAULT_MAX_METADATA_BYTES}).
     *
     * @param maxMetadataBytes the most bytes of metadata per write
     * @return this
     * @throws IllegalArgumentException if it is negative or more than {@link ObjectMetadata#MAX_BYTES}
     */
    public Builder maxMetadataBytes(int maxMetadataBytes) {
      if (maxMetadataBytes < 0 || maxMetadataBytes > ObjectMetadata.MAX_BYTES) {
        throw new IllegalArgumentException("Cannot use maxMetadataBytes " + maxMetadataBytes + " for a fake remote:"
            + " it is between 0 and " + ObjectMetadata.MAX_BYTES);
      }
      this.maxMetadataBytes = maxMetadataBytes;
      return this;
    }

    private FakeRemote paced(FakeRemote remote) {
      remote.minWriteInterval = minWriteInterval;
      return remote;
    }

    /**
     * Opens the fake remote.
     *
     * @return the open remote, empty unless its directory held objects
     * @throws IllegalStateException if another open fake remote owns the directory
     * @throws DatastoreUnavailableException if the directory cannot be created, prepared or read
     */
    public FakeRemote build() {
      if (directory != null) {
        return paced(new FakeRemote(FakeObjectStore.open(directory, versions, maxMetadataBytes, clock), false));
      }
      Path temp;
      try {
        temp = Files.createTempDirectory("tierlock-fake-remote-");
      } catch (IOException e) {
        throw new DatastoreUnavailableException("Cannot create a fake remote: no temp directory: " + e, e);
      }
      return paced(new FakeRemote(FakeObjectStore.open(temp, versions, maxMetadataBytes, clock), true));
    }
  }
}
