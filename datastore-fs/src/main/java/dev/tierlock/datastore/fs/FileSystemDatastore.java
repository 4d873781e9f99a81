package dev.tierlock.datastore.fs;

import dev.tierlock.datastore.fs.FileSystemFailures.Phase;
import dev.tierlock.datastore.fs.ObjectReader.Content;
import dev.tierlock.datastore.fs.ObjectReader.ObjectState;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreIdentity;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A datastore in a shared directory: each object is a plain file at {@code <root>/<key>}. Tierlock
 * uses it exactly as it uses S3 or GCS, with nothing a wrapper could switch: the shared lockfile is
 * fetched by a conditional read into the checkout's cache and written by a compare-and-swap
 * conditioned on the version fetched, which this datastore checks under the key's claim right
 * before the atomic rename that publishes the write. A holder stalled past its lease therefore
 * cannot overwrite a newer version: its write is refused; and a writer stopped inside a write (with
 * {@code SIGSTOP}, or hung) holds the key only until another writer has seen its claim unchanged
 * for the takeover bound, after which its write can no longer land.
 *
 * <p><b>Layout.</b> Everything else lives in the internal directory {@code <root>/.tierlock/},
 * which is never listed and never an object: per-key claims in {@code claims/}, the per-key OS
 * lock files of earlier versions in {@code locks/}, metadata sidecars in {@code meta/}, and the
 * staging directories of writes in flight in {@code tmp/} (never beside
 * an object, so a writer killed at any point leaves nothing outside the internal directory; stale
 * ones are swept, see {@link TempFiles}). Keys with a {@code .tierlock} segment (any letter case),
 * a segment shaped like a temp file of earlier versions ({@code .<name>.<uuid>.tmp}), a segment
 * over 255 bytes, or that need a file where a directory is (or the reverse: {@code a} and {@code
 * a/b} cannot both be objects) are refused with {@link IllegalArgumentException}.
 *
 * <p><b>Reading needs no write access.</b> Opening an existing root creates nothing (a missing
 * root is created); the internal directories are created by the first write that needs them.
 * {@link #read}, {@link #stat}, {@link #openStream} and {@link #list} take no lock and write
 * nothing, so they work on a read-only root. Files are only ever replaced by atomic moves, so a
 * reader sees the old bytes or the new, never a torn mix, each paired with its own metadata. A
 * whole read checks the file's size against the caller's bound before reading a byte, and reads
 * at most one byte more than the bound.
 *
 * <p><b>Versions</b> are a SHA-256 over the object's bytes and metadata, never its modification
 * time, inode or size: writing old bytes with the same metadata gives the old version back ({@link
 * #versionsRepeat()} is true), and two objects with equal bytes and metadata have equal versions.
 * Computing one reads the whole file, so {@link #stat} and {@link #list} cost a read of every
 * object they report.
 *
 * <p><b>Metadata belongs to the datastore's own files.</b> It travels in the object's own file, as
 * an extended attribute ({@code user.tierlock.metadata}) set on the staged file and forced with its
 * bytes before the one rename that publishes both (one file flush, one rename, one directory flush
 * per write). Where the file system keeps no extended attributes (or none that large), and in roots
 * written by earlier versions, a metadata sidecar ({@code meta/<sha256 of key>.meta}) holds it
 * instead; a reader takes the file's own entry first, then the sidecar's, and the first write that
 * attaches it moves the key's sidecar out. Either way an entry binds the digest of the bytes and the identity of
 * the one file the datastore moved into place with them: its file key (the inode on POSIX systems)
 * and modification time, both taken from the staged temp file before the atomic move, which keeps
 * them. A file another writer puts at the path (a copy restored by an operator, the original tool
 * writing a shared directory) is another file or has another modification time, so it has no
 * metadata whatever its bytes, even bytes equal to an earlier write of the datastore: it reads as
 * a version without metadata (no commit id), never as that earlier version. Anything that changes
 * the file's modification time ({@code touch}, an in-place rewrite) therefore drops its metadata,
 * and so does copying the root elsewhere; changing only its permissions does not. Where the
 * provider has no file keys (the JDK's zip file system, Windows' default provider), files cannot be
 * told apart and metadata is bound by the bytes' digest alone. See {@link Sidecar}.
 *
 * <p><b>Changes.</b> A write stages its bytes in a staging directory of its own (made in {@code
 * tmp/}, holding one sub-directory named by a random claim id), then makes it the key's
 * <em>claim</em> by renaming it onto the key's slot {@code claims/<sha256 of key>}, which the file
 * system does only while the slot is absent or empty. Under the claim it checks its precondition
 * against the current file, records the metadata and publishes by renaming the staged file over the
 * target, forces the directory, and releases the claim by deleting its sub-directory. A delete
 * renames the object into the claim's sub-directory. Every step that changes the object or its
 * sidecar is thus a rename from or into the claim's own sub-directory, which fails, changing
 * nothing, once that sub-directory has left the slot. Unconditional writes are last-writer-wins. A
 * crash at any point leaves either the old object or the new one, each with its own metadata.
 * Preconditions are atomic with respect to every writer that goes through a {@code
 * FileSystemDatastore}; a file replaced or rewritten by other means reads as a new version with no
 * metadata.
 *
 * <p><b>A stopped writer.</b> A writer waiting for a key notes the claim it sees in the slot (its
 * id) and since when on its <em>own</em> clock; once it has seen the same claim unchanged for the
 * takeover bound ({@link FileSystemDatastoreOptions#takeoverAfter()}, default 5 s), it renames that
 * claim's sub-directory out of the slot (the takeover) and claims the key itself. No other
 * process's clock or timestamp, and no process id, enters that judgement (the claim's {@code owner}
 * file only names its writer in messages). The stopped writer, if it resumes, finds its
 * sub-directory gone: its rename fails and its change did not happen; the datastore reports it as
 * the precondition failure it now is (its version is stale) or, when the precondition still holds,
 * as {@link dev.tierlock.spi.DatastoreBusyException}. Renames are atomic and serialised by the file
 * system (on a network share, by its server), so this rests on neither the claim being exclusive
 * nor clocks agreeing: a live writer slower than the bound is taken over like a stopped one, and
 * its change is refused likewise. A writer killed inside its change leaves its claim, which the
 * next writer takes over after the bound. Writers of one JVM take turns in a fair in-JVM queue per
 * key first and never take over each other.
 *
 * <p><b>Earlier versions.</b> Earlier versions of this datastore exclude each other with an OS lock
 * on {@code locks/<sha256 of key>.lock}. A writer of this version takes that lock too, after its
 * claim, so old and new writers may share a root during an upgrade: each excludes the other. A
 * lock held by an earlier version's writer is waited for until the lock timeout, never taken over
 * (nothing would refuse its change if it resumed), so a stopped earlier-version writer still blocks
 * its key, each call ending busy. A lock held by a writer of this version whose claim was taken over
 * is passed by: its change can no longer land. One race remains while both versions write: if a
 * stopped writer of this version resumes while its taker's change is in flight, an earlier version's
 * writer may take the OS lock it releases and change the key concurrently with that taker. Upgrade
 * every writer of a root to close it.
 *
 * <p>{@link #identity()} names the root directory's device and inode where the file system has
 * them; user metadata may hold {@value #MAX_METADATA_BYTES} bytes ({@link #maxMetadataBytes()}).
 *
 * <p><b>Bounds.</b> A change waits for its key at most the lock timeout (default 10 s): behind the
 * writers of this JVM, then for a claim (taken over once seen unchanged for the takeover bound) and
 * the OS lock of earlier versions. A key kept past it (a live writer of this JVM, an earlier
 * version's writer, or a takeover bound longer than the lock timeout) is a {@link
 * dev.tierlock.spi.DatastoreBusyException} ({@code datastore_busy}) naming the holder (pid, host,
 * since when, process start) when it names itself; Tierlock retries it within the transaction's
 * deadline. Each instance remembers, per key, the claim it saw and since when, so a takeover bound
 * longer than the lock timeout is reached across calls. The file operations themselves are bounded
 * by the filesystem: mount network filesystems so that their calls time out.
 *
 * <p><b>Failures</b> are translated in one place: a full disk is a {@link
 * dev.tierlock.spi.DatastoreUnavailableException} saying so and that nothing changed; a refused
 * permission or a read-only file system a {@link dev.tierlock.spi.DatastoreAccessDeniedException};
 * other I/O errors a {@link dev.tierlock.spi.DatastoreUnavailableException}, or a {@link
 * dev.tierlock.spi.OutcomeUnknownException} when the atomic move that publishes a change (or
 * forcing it afterwards) failed. Channels are interruptible: a thread interrupted during a read, or
 * before a change was published, gets a {@link dev.tierlock.spi.DatastoreUnavailableException}
 * saying so, with its interrupt flag kept.
 *
 * <p><b>Providers.</b> Works on the default file system and on any NIO provider that supports
 * {@code newByteChannel}, {@code FileChannel.open}, {@code createFile}, directory streams, {@code
 * delete} and {@code move} with {@code ATOMIC_MOVE} and {@code REPLACE_EXISTING} between
 * directories of the root (so the root must not span file systems). Where the provider supports
 * {@code AsynchronousFileChannel} locks they exclude other processes; where it cannot lock that
 * way, writers fall back to the in-JVM queue alone and exclude only writers in this JVM (an
 * in-memory file system has no other processes). Claims exclude other processes on the default
 * file system only; on another provider the in-JVM queue is the claim. Forcing a directory is
 * skipped where the provider cannot open one.
 *
 * <p>Thread-safe. Holds no open file, lock or claim between calls; {@link #close()} does nothing.
 */
public final class FileSystemDatastore implements Datastore {

  /** The most bytes of metadata names and values one object may carry here, as on GCS. */
  public static final int MAX_METADATA_BYTES = 8192;

  private final RootLayout layout;
  private final DatastoreIdentity identity;
  private final FileSystemDatastoreOptions options;
  private final FileIo io;
  private final FileSystemFailures failures;
  private final KeyClaims claims;
  private final ObjectReader reader;
  private final ObjectLister lister;
  private final ObjectWriter writer;
  private final TempFiles temps;

  private FileSystemDatastore(
      RootLayout layout, DatastoreIdentity identity, FileSystemDatastoreOptions options, FileIo io) {
    this.layout = layout;
    this.identity = identity;
    this.options = options;
    this.io = io;
    this.failures = new FileSystemFailures(layout.describe());
    this.temps = new TempFiles(layout.tmpDirectory(), options.clock());
    this.claims = new KeyClaims(layout, temps, options);
    this.reader = new ObjectReader(layout);
    this.lister = new ObjectLister(layout, reader);
    this.writer = new ObjectWriter(layout, reader);
  }

  /**
   * Opens the datastore rooted at a directory with the default options, creating the directory
   * (and its parents) if it is missing. An existing root is not written to: nothing is created,
   * and only temp files whose writer is provably gone are deleted (best effort).
   *
   * @param root an absolute path to a directory, on any file system provider
   * @return the open datastore
   * @throws IllegalArgumentException if {@code root} is relative or exists and is not a directory
   * @throws dev.tierlock.spi.DatastoreAccessDeniedException if a missing root cannot be created for
   *     want of permission, or the root cannot be read
   * @throws dev.tierlock.spi.DatastoreUnavailableException if it cannot be created or resolved
   *     otherwise
   */
  public static FileSystemDatastore open(Path root) {
    return open(root, FileSystemDatastoreOptions.defaults());
  }

  /**
   * Opens the datastore rooted at a directory as {@link #open(Path)} does, with these options.
   *
   * @param root an absolute path to a directory, on any file system provider
   * @param options the lock timeout, clock and sleeper
   * @return the open datastore
   */
  public static FileSystemDatastore open(Path root, FileSystemDatastoreOptions options) {
    return open(root, options, FileIo.STANDARD);
  }

  static FileSystemDatastore open(Path root, FileSystemDatastoreOptions options, FileIo io) {
    if (!root.isAbsolute()) {
      throw new IllegalArgumentException(
          "Cannot open filesystem datastore at " + root + ": the root must be an absolute path");
    }
    if (Files.exists(root) && !Files.isDirectory(root)) {
      throw new IllegalArgumentException(
          "Cannot open filesystem datastore at " + root.toUri() + ": it exists and is not a directory");
    }
    try {
      if (!Files.isDirectory(root)) {
        Files.createDirectories(root);
      }
      RootLayout layout = new RootLayout(root.toRealPath());
      FileSystemDatastore store = new FileSystemDatastore(layout, RootIdentity.of(layout.root()), options, io);
      store.temps.sweepOrphans();
      return store;
    } catch (IOException | UncheckedIOException | UnsupportedOperationException | SecurityException e) {
      throw new FileSystemFailures(root.toUri().toString()).reading("open", "filesystem datastore", e);
    }
  }

  /** {@return the root directory (its real path, links resolved)} */
  public Path root() {
    return layout.root();
  }

  /** {@return the options this datastore was opened with} */
  public FileSystemDatastoreOptions options() {
    return options;
  }

  /**
   * Returns scheme {@code file}, the root directory's file key as endpoint (device and inode where
   * the file system has them, so a root deleted and created again at the same path is another
   * store; on a non-default provider without file keys, the URI of that file system's root;
   * otherwise empty), no container, and the root's real path as prefix; read once, at open.
   */
  @Override
  public DatastoreIdentity identity() {
    return identity;
  }

  /** Returns the root as a URI, such as {@code file:///srv/tier/}. */
  @Override
  public String describe() {
    return layout.describe();
  }

  /** Returns {@value #MAX_METADATA_BYTES}. */
  @Override
  public int maxMetadataBytes() {
    return MAX_METADATA_BYTES;
  }

  /**
   * Returns true: a version is a digest of the bytes and metadata, so writing old bytes with the
   * same metadata gives the old version back (Tierlock's commit ids in the metadata tell such
   * writes apart).
   */
  @Override
  public boolean versionsRepeat() {
    return true;
  }

  /**
   * Returns true: a version is a digest of the bytes and the metadata, so two objects with one
   * version carry one commit lineage (a file another writer put there has no metadata at all).
   */
  @Override
  public boolean versionsBindMetadata() {
    return true;
  }

  /**
   * {@inheritDoc}
   *
   * <p>The version is a digest of the bytes, so the size is checked before it: a read of an object
   * over the bound is refused even when it is conditional on the object's current version.
   *
   * @throws IllegalArgumentException if the key cannot live in a filesystem datastore, or {@code
   *     maxBytes} is not positive
   * @throws dev.tierlock.spi.ObjectTooLargeException if the file is larger than {@code maxBytes}
   * @throws dev.tierlock.spi.DatastoreUnavailableException if the file cannot be read
   * @throws dev.tierlock.spi.DatastoreAccessDeniedException if reading it is not permitted
   */
  @Override
  public ReadResult read(ObjectKey key, ReadCondition condition, long maxBytes) {
    Path file = layout.objectPath(key, "read");
    if (maxBytes <= 0) {
      throw new IllegalArgumentException("Cannot read object " + key + " at " + describe()
          + ": the bound must be positive, got " + maxBytes);
    }
    Optional<Content> content = reading("read", key, () -> reader.readAll(key, file, maxBytes));
    if (content.isEmpty()) {
      return ReadResult.Absent.INSTANCE;
    }
    ObjectState state = content.get().state();
    if (condition instanceof ReadCondition.IfNoneMatch ifNoneMatch && ifNoneMatch.version().equals(state.version())) {
      return new ReadResult.NotModified(state.version());
    }
    return new ReadResult.Found(state.describe(key), content.get().bytes());
  }

  /**
   * {@inheritDoc}
   *
   * <p>The returned stream reads through a channel opened before the version was computed, so it
   * yields exactly that version's bytes even if the object is replaced meanwhile.
   *
   * @throws IllegalArgumentException if the key cannot live in a filesystem datastore
   */
  @Override
  public Optional<ObjectStream> openStream(ObjectKey key) {
    Path file = layout.objectPath(key, "read");
    return reading("read", key, () -> reader.stream(key, file));
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalArgumentException if the key cannot live in a filesystem datastore
   */
  @Override
  public Optional<StoredObject> stat(ObjectKey key) {
    Path file = layout.objectPath(key, "stat");
    return reading("stat", key, () -> reader.state(key, file)).map(state -> state.describe(key));
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalArgumentException if the key cannot live in a filesystem datastore, an object
   *     at a key that is a prefix of {@code key} (or below {@code key}) already occupies the path,
   *     or the metadata is larger than {@link #maxMetadataBytes()}; nothing changed
   * @throws dev.tierlock.spi.DatastoreBusyException if another writer kept the key's lock past the
   *     lock timeout; nothing changed
   * @throws dev.tierlock.spi.DatastoreAccessDeniedException if writing is not permitted or the file
   *     system is read-only; nothing changed
   * @throws dev.tierlock.spi.DatastoreUnavailableException if the disk is full or the change failed
   *     before it was published; nothing changed
   * @throws dev.tierlock.spi.OutcomeUnknownException if publishing the change failed and it may have
   *     happened
   */
  @Override
  public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
    Path target = layout.objectPath(key, "write");
    writer.refuseOversize(key, metadata, MAX_METADATA_BYTES);
    layout.refuseOccupied(key, target);
    return changing("write", key, change -> writer.write(key, target, body, condition, metadata, change));
  }

  /**
   * {@inheritDoc}
   *
   * <p>Directories left empty by the delete are removed, so the key's prefixes can become objects.
   *
   * @throws IllegalArgumentException for {@link WriteCondition#mustNotExist()}, or a key that
   *     cannot live in a filesystem datastore
   * @throws dev.tierlock.spi.DatastoreBusyException if another writer kept the key's lock past the
   *     lock timeout; nothing changed
   * @throws dev.tierlock.spi.DatastoreUnavailableException if the delete failed before it was
   *     attempted; nothing changed
   * @throws dev.tierlock.spi.OutcomeUnknownException if the delete failed and may have happened
   */
  @Override
  public DeleteResult delete(ObjectKey key, WriteCondition condition) {
    if (condition instanceof WriteCondition.MustNotExist) {
      throw new IllegalArgumentException("Cannot delete object " + key + " at " + describe()
          + ": mustNotExist is not a delete condition (use none or mustMatch)");
    }
    Path target = layout.objectPath(key, "delete");
    return changing("delete", key, change -> writer.delete(key, target, condition, change));
  }

  /**
   * {@inheritDoc}
   *
   * <p>Walks the directory tree below the root; the internal directory (locks, metadata, temp
   * files) is never listed.
   *
   * @throws IllegalArgumentException if no valid key could start with {@code prefix}
   */
  @Override
  public List<StoredObject> list(String prefix) {
    ObjectKey.validatePrefix(prefix);
    try {
      return lister.list(prefix);
    } catch (IOException | UncheckedIOException | UnsupportedOperationException | SecurityException e) {
      throw failures.reading("list", "prefix \"" + prefix + "\"", e);
    }
  }

  /**
   * Returns the file that holds the object at {@code key} (which may not exist yet); for tests.
   *
   * @throws IllegalArgumentException if the key cannot live in a filesystem datastore
   */
  Path pathOf(ObjectKey key) {
    return layout.objectPath(key, "locate");
  }

  /** Does nothing: this datastore holds no open file or lock between calls. */
  @Override
  public void close() {
    // nothing is held between calls
  }

  @Override
  public String toString() {
    return "FileSystemDatastore[" + describe() + "]";
  }

  /** Runs one change of {@code key} on a claim of its own, translating every failure. */
  private <T> T changing(String verb, ObjectKey key, ChangeStep<T> step) {
    @Nullable StagedChange change = null;
    try (KeyClaims.Claim claim = claims.prepare(key, verb + " of object " + key + " at " + describe())) {
      change = new StagedChange(io, claim);
      return step.run(change);
    } catch (KeyClaims.Busy busy) {
      throw failures.lockTimeout(verb, key.value(), options.lockTimeout(), options.takeoverAfter(), busy.holder());
    } catch (KeyClaims.Lost lost) {
      throw failures.takenOver(verb, key.value(), lost);
    } catch (IOException | UncheckedIOException | UnsupportedOperationException | SecurityException e) {
      throw failures.changing(verb, key.value(), change == null ? Phase.PREPARE : change.phase(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw failures.interrupted(verb, key.value(), e);
    }
  }

  private <T> T reading(String verb, ObjectKey key, IoCall<T> call) {
    try {
      return call.run();
    } catch (IOException | UncheckedIOException | UnsupportedOperationException | SecurityException e) {
      throw failures.reading(verb, "object " + key, e);
    }
  }

  /** A read step that may fail with an {@link IOException}. */
  @FunctionalInterface
  private interface IoCall<T> {
    T run() throws IOException;
  }

  /** The body of a change: stages it, takes the claim through {@code change}, and publishes it. */
  @FunctionalInterface
  private interface ChangeStep<T> {
    T run(StagedChange change) throws IOException, InterruptedException, KeyClaims.Busy;
  }
}
