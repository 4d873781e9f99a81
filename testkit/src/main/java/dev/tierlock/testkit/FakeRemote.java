package dev.tierlock.testkit;

import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.DeleteResult;
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

/**
 * The fake remote: an object store that behaves like S3 and GCS, kept in a directory, with fault
 * injection and an operation log. Each instance has its own state; nothing is shared between
 * instances.
 *
 * <p><b>Semantics.</b> Every write creates a new version {@code v1, v2, ...}, strictly increasing
 * across the store and never reused (like GCS generations), so every write changes the version even
 * when the bytes do not. {@link WriteCondition#none()} is last-writer-wins, which reproduces the lost
 * update Tierlock prevents. {@link WriteCondition#mustNotExist()} and {@link
 * WriteCondition#mustMatch} are checked atomically with the change (a {@code mustMatch} on a missing
 * key fails its precondition); a conditional delete of a missing key reports {@link
 * DeleteResult#ABSENT}; reads honour {@link ReadCondition#ifNoneMatch}. User metadata is stored and
 * replaced by each write. {@link #list} is sorted by key. {@link #describe()} is {@code
 * fake://<directory>}.
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

  private final FakeObjectStore store;
  private final FaultyDatastore faulty;
  private final boolean ownsDirectory;

  private FakeRemote(FakeObjectStore store, boolean ownsDirectory) {
    this.store = store;
    this.faulty = FaultyDatastore.wrap(store);
    this.ownsDirectory = ownsDirectory;
  }

  /**
   * Creates a fake remote in a fresh temp directory, deleted by {@link #close()}.
   *
   * @throws DatastoreUnavailableException if the directory cannot be created
   */
  public static FakeRemote create() {
    Path directory;
    try {
      directory = Files.createTempDirectory("tierlock-fake-remote-");
    } catch (IOException e) {
      throw new DatastoreUnavailableException("Cannot create a fake remote: no temp directory: " + e, e);
    }
    return new FakeRemote(FakeObjectStore.open(directory), true);
  }

  /**
   * Opens a fake remote in a directory the caller owns (created if missing, left in place by {@link
   * #close()}); objects an earlier instance left there are loaded, so a test can "restart" the
   * remote.
   *
   * @throws IllegalStateException if another open fake remote owns the directory
   * @throws DatastoreUnavailableException if the directory cannot be prepared or read
   */
  public static FakeRemote inDirectory(Path directory) {
    return new FakeRemote(FakeObjectStore.open(directory), false);
  }

  /** Returns the fault controls of this remote's {@link Datastore} methods. */
  public Faults faults() {
    return faulty.faults();
  }

  /** Returns the log of this remote's {@link Datastore} calls. */
  public OperationLog log() {
    return faulty.log();
  }

  /** Returns the directory that holds the objects. */
  public Path directory() {
    return store.root();
  }

  /**
   * Returns the current bytes at {@code key}, or empty when absent; not logged, never faulted.
   *
   * @throws IllegalStateException if the remote is closed
   */
  public Optional<byte[]> peek(ObjectKey key) {
    ReadResult result = store.read(key, ReadCondition.always());
    return result instanceof ReadResult.Found found ? Optional.of(found.bytes()) : Optional.empty();
  }

  /**
   * Returns what the remote holds at {@code key} (version, size, metadata), or empty when absent;
   * not logged, never faulted.
   *
   * @throws IllegalStateException if the remote is closed
   */
  public Optional<StoredObject> peekObject(ObjectKey key) {
    return store.stat(key);
  }

  /**
   * Writes {@code bytes} at {@code key} unconditionally, with no metadata, behind everyone's back (as
   * a peer would); not logged, never faulted. The object gets a new version.
   *
   * @throws IllegalStateException if the remote is closed
   */
  public void plant(ObjectKey key, byte[] bytes) {
    plant(key, bytes, ObjectMetadata.EMPTY);
  }

  /**
   * Writes {@code bytes} with {@code metadata} at {@code key} unconditionally, behind everyone's
   * back; not logged, never faulted.
   *
   * @throws IllegalStateException if the remote is closed
   */
  public void plant(ObjectKey key, byte[] bytes, ObjectMetadata metadata) {
    store.write(key, ObjectBody.of(bytes), WriteCondition.none(), metadata);
  }

  /**
   * Deletes the object at {@code key}, if any, behind everyone's back; not logged, never faulted.
   *
   * @throws IllegalStateException if the remote is closed
   */
  public void erase(ObjectKey key) {
    store.delete(key, WriteCondition.none());
  }

  /**
   * Returns every key the remote holds, sorted (an immutable snapshot).
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

  /** Returns the keys of the downloads opened through this remote and not closed yet, in order. */
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
}
