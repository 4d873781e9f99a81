package dev.tierlock;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.slf4j.LoggerFactory;

/**
 * One local lockfile file: a snapshot read when opened, and writes that never lose a concurrent
 * local writer's entries.
 *
 * <p><b>Snapshot.</b> {@link #snapshot()} and {@link #entry} answer from memory: the state read at
 * {@link #open}, at the last {@link #refresh()} or written by the last write through this
 * repository. They never touch the disk, so two repositories opened at different times may
 * disagree; call {@link #refresh()} to re-read.
 *
 * <p><b>Writes.</b> Every write takes the lockfile's own lock ({@link LockLevel#LOCKFILE}: an in-JVM
 * lock plus an OS lock on {@link #lockPath()}, 10 attempts 100 ms apart), re-reads the file under
 * it, applies the change, replaces the file atomically (temp file in the same directory, fsync,
 * atomic move, fsync of the directory) and updates the snapshot.
 *
 * <p>A missing file is an empty lockfile. A file that does not decode is an error ({@link
 * LockfileFormatException}) and is never replaced by an empty one. Thread-safe.
 */
public final class LockfileRepository {

  private final Path path;
  private final LocalFileLock lock;
  private volatile Lockfile snapshot;

  private LockfileRepository(Path path, LocalFileLock lock, Lockfile snapshot) {
    this.path = path;
    this.lock = lock;
    this.snapshot = snapshot;
  }

  /**
   * Opens the lockfile at {@code lockfile}, reading its snapshot.
   *
   * @param lockfile the lockfile; need not exist
   * @param lockPath the file the lockfile's lock is taken on (kept outside any synced directory);
   *     created when first locked, never deleted
   * @param sleeper waits between lock attempts
   * @return the repository
   * @throws LockfileFormatException if the file exists and does not decode
   * @throws LocalFileException if it cannot be read
   */
  public static LockfileRepository open(Path lockfile, Path lockPath, Sleeper sleeper) {
    Path absolute = lockfile.toAbsolutePath().normalize();
    LockfileRepository repository = new LockfileRepository(absolute, LocalFileLock.at(lockPath, absolute, sleeper),
        Lockfile.EMPTY);
    repository.refresh();
    return repository;
  }

  /**
   * Opens a local cache of the shared lockfile as {@link #open} does, except that a file that does
   * not decode gives an empty snapshot instead of failing: the cache is only a copy, which the next
   * fetch replaces (reads and writes through the repository still refuse it until then).
   *
   * @throws LocalFileException if it cannot be read
   */
  static LockfileRepository openCache(Path lockfile, Path lockPath, Sleeper sleeper) {
    Path absolute = lockfile.toAbsolutePath().normalize();
    LockfileRepository repository = new LockfileRepository(absolute, LocalFileLock.at(lockPath, absolute, sleeper),
        Lockfile.EMPTY);
    try {
      repository.refresh();
    } catch (LockfileFormatException e) {
      LoggerFactory.getLogger(LockfileRepository.class).warn("{}; the next fetch of the shared lockfile replaces it",
          e.getMessage());
    }
    return repository;
  }

  /** {@return the lockfile's path (absolute)} */
  public Path path() {
    return path;
  }

  /** {@return the canonical path of the lock file that guards writes} */
  public Path lockPath() {
    return lock.path();
  }

  /** {@return the snapshot, without reading the disk} */
  public Lockfile snapshot() {
    return snapshot;
  }

  /**
   * Returns the snapshot's entry of {@code name}, without reading the disk.
   *
   * @param name the entry's name
   * @return its entry in the snapshot, or empty
   */
  public Optional<LockfileEntry> entry(ExtensionName name) {
    return snapshot.entry(name);
  }

  /**
   * Re-reads the file into the snapshot.
   *
   * @return the new snapshot
   * @throws LockfileFormatException if the file does not decode; the snapshot is then unchanged
   * @throws LocalFileException if it cannot be read
   */
  public Lockfile refresh() {
    Lockfile read = read();
    snapshot = read;
    return read;
  }

  /**
   * Sets the entry of {@code name} (in place if present, appended if new).
   *
   * @param name the entry's name
   * @param entry its new entry
   * @return the lockfile as written
   * @throws LockfileBusyException if the lock stayed held; nothing changed
   * @throws LockfileFormatException if the file on disk does not decode; nothing changed
   * @throws LocalFileException if the file cannot be written; it holds the old bytes
   */
  public Lockfile writeEntry(ExtensionName name, LockfileEntry entry) {
    return update(current -> current.with(name, entry));
  }

  /**
   * Removes the entry of {@code name}; the file is written even when it had none.
   *
   * @param name the entry's name
   * @return the lockfile as written
   * @throws LockfileBusyException if the lock stayed held; nothing changed
   * @throws LockfileFormatException if the file on disk does not decode; nothing changed
   * @throws LocalFileException if the file cannot be written; it holds the old bytes
   */
  public Lockfile removeEntry(ExtensionName name) {
    return update(current -> current.without(name));
  }

  /**
   * Applies {@code delta} to the file's current content, restoring its entries verbatim.
   *
   * @param delta the change to apply
   * @return the lockfile as written
   * @throws LockfileBusyException if the lock stayed held; nothing changed
   * @throws LockfileFormatException if the file on disk does not decode; nothing changed
   * @throws LocalFileException if the file cannot be written; it holds the old bytes
   */
  public Lockfile apply(LockfileDelta delta) {
    return update(delta::applyTo);
  }

  /**
   * Replaces the whole content with {@code lockfile}, whatever the file held (it is not re-read).
   *
   * @param lockfile the new content
   * @return {@code lockfile}
   * @throws LockfileBusyException if the lock stayed held; nothing changed
   * @throws LocalFileException if the file cannot be written; it holds the old bytes
   */
  @SuppressWarnings("try") // the lock is held for the block
  public Lockfile replaceAll(Lockfile lockfile) {
    try (LocalFileLock.Held held = lock.acquire()) {
      store(lockfile);
      return lockfile;
    }
  }

  /**
   * Applies {@code change} to the content read under the lock, and writes the result.
   *
   * @return the lockfile as written
   */
  @SuppressWarnings("try") // the lock is held for the block
  Lockfile update(UnaryOperator<Lockfile> change) {
    try (LocalFileLock.Held held = lock.acquire()) {
      Lockfile current = read();
      Lockfile next = change.apply(current);
      store(next);
      return next;
    }
  }

  /** Reads the file's bytes, or empty when it does not exist. */
  Optional<byte[]> readBytes() {
    try (InputStream in = Files.newInputStream(path)) {
      byte[] bytes = in.readNBytes(LockfileCodec.MAX_BYTES + 1);
      if (bytes.length > LockfileCodec.MAX_BYTES) {
        throw new LockfileFormatException(path.toString(), "the file is larger than the limit of "
            + LockfileCodec.MAX_BYTES + " bytes", 0, 0, null);
      }
      return Optional.of(bytes);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new LocalFileException("Cannot read lockfile " + path + ": " + e.getMessage(), e);
    }
  }

  private Lockfile read() {
    return readBytes().map(bytes -> LockfileCodec.decode(bytes, path.toString())).orElse(Lockfile.EMPTY);
  }

  private void store(Lockfile lockfile) {
    try {
      AtomicFileWriter.write(path, LockfileCodec.encode(lockfile));
    } catch (IOException e) {
      throw new LocalFileException("Cannot write lockfile " + path + ": " + e.getMessage(), e);
    }
    snapshot = lockfile;
  }
}
