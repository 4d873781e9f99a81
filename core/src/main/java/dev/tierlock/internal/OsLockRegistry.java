package dev.tierlock.internal;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place Tierlock opens and locks lock files: every local lock of Tierlock (the checkout's
 * transaction and pulled-extensions locks, the filesystem datastore's key locks) goes through the
 * registry of its class loader, {@link #shared()}.
 *
 * <p><b>Why.</b> On POSIX systems an OS file lock ({@code fcntl}) belongs to the process, and closing
 * <em>any</em> channel of a file drops the process's lock on it. A lock that opens a second channel
 * on a file this JVM has locked, sees it busy and closes that channel, silently frees the live lock
 * for every other process. So the registry keeps:
 *
 * <ul>
 *   <li><b>exactly one channel per canonical lock file</b> (the real path of its directory, which is
 *       created, plus its name), opened on first need;
 *   <li><b>a fair in-JVM queue per lock file</b> in front of the OS lock: only the thread at its head
 *       tries the OS lock, polling through the caller's {@link dev.tierlock.Sleeper} until the
 *       caller's deadline on the caller's {@link Clock}; queued threads are woken when their turn
 *       comes and re-read the clock at least every {@link LockWait#maxPause()}. A waiter that times
 *       out or is interrupted leaves the queue without disturbing the others; a thread that already
 *       has the turn is told so ({@link LockAttempt.Reentered}), never queued behind itself;
 *   <li><b>the holder in the file</b>: whoever takes the OS lock writes a {@link LockHolder} into the
 *       file through the same channel (and empties it on release), and a waiter that gives up reads
 *       it through that channel, so that a busy error can name the holder;
 *   <li><b>closing only when provably safe</b>. A channel is never closed while a holder of this
 *       registry holds its lock. When the last user of a lock file is gone, the channel is closed if
 *       this registry holds the OS lock at that moment (closing releases exactly our lock) or {@code
 *       tryLock} shows no other channel of this JVM holds it (it returns a lock, which closing
 *       releases, or null: another process holds it, and closing cannot drop another process's
 *       lock). If {@code tryLock} throws {@link java.nio.channels.OverlappingFileLockException},
 *       another channel of this JVM (another class loader's registry) holds the lock: the channel is
 *       parked, kept open with the lock file's entry, and reused by the next user.
 * </ul>
 *
 * The channels are {@link java.nio.channels.AsynchronousFileChannel}s, which, unlike a {@code
 * FileChannel}, are not closed when an interrupted thread reads or writes through them. Where the
 * file system provider cannot open or lock such a channel (a zip or in-memory file system), the
 * registry takes only the in-JVM turn ({@link HeldFileLock#excludesProcesses()} is false). Lock
 * files are never deleted (deleting a locked file would let two processes lock two files of one
 * name). Thread-safe.
 */
public final class OsLockRegistry {

  private static final Logger LOG = LoggerFactory.getLogger(OsLockRegistry.class);

  private static final OsLockRegistry SHARED = new OsLockRegistry(ChannelOpener.STANDARD);

  private final ChannelOpener opener;
  private final Map<Path, LockSlot> slots = new HashMap<>();

  private OsLockRegistry(ChannelOpener opener) {
    this.opener = opener;
  }

  /** {@return the registry of this class loader, which every lock of Tierlock uses} */
  public static OsLockRegistry shared() {
    return SHARED;
  }

  /**
   * {@return a registry of its own that opens channels through {@code opener}, for tests that inject
   * failures} It shares nothing with {@link #shared()}: towards it, it behaves like the registry of
   * another class loader.
   *
   * @param opener what opens the lock files' channels
   */
  public static OsLockRegistry using(ChannelOpener opener) {
    return new OsLockRegistry(opener);
  }

  /**
   * Takes the lock of {@code lockFile}: queues behind the other threads of this JVM, then polls the
   * OS lock, until {@code wait}'s deadline (one attempt when it has passed), then writes the holder
   * into the file.
   *
   * @param lockFile the lock file
   * @param guards what the lock guards, written into the file for waiters' messages
   * @param wait the deadline, the pauses between attempts and what runs when queued
   * @return the held lock, {@link LockAttempt.Busy} when another holder kept it past the deadline,
   *     or {@link LockAttempt.Reentered} when the calling thread has it already
   * @throws IOException if the lock file's directory cannot be created or resolved, or the file
   *     cannot be opened, locked or written; nothing is held then
   * @throws InterruptedException if the thread was interrupted while waiting; nothing is held then
   */
  public LockAttempt acquire(Path lockFile, String guards, LockWait wait) throws IOException, InterruptedException {
    Instant start = wait.clock().instant();
    LockSlot slot = join(canonical(lockFile, true));
    TurnQueue.Turn turn = null;
    boolean held = false;
    try {
      if (slot.turns().isOwnedBy(Thread.currentThread())) {
        return new LockAttempt.Reentered();
      }
      turn = slot.turns().take(wait);
      if (turn == null) {
        return busy(slot, start, wait.clock());
      }
      Backoff pauses = new Backoff(wait.firstPause(), wait.maxPause(), Backoff.NO_JITTER);
      while (true) {
        LockAttempt.Acquired acquired = lockWithTurn(slot, turn, guards, wait.clock());
        if (acquired != null) {
          held = true;
          return acquired;
        }
        Duration remaining = Duration.between(wait.clock().instant(), wait.deadline());
        if (remaining.isNegative() || remaining.isZero()) {
          return busy(slot, start, wait.clock());
        }
        wait.sleeper().sleep(pauses.next(remaining));
      }
    } finally {
      if (!held) {
        if (turn != null) {
          slot.endTurn(turn);
        }
        leave(slot);
      }
    }
  }

  /**
   * Takes the lock of {@code lockFile} if nobody in this JVM has or awaits it and the OS lock is
   * free now, without waiting.
   *
   * @param lockFile the lock file
   * @param guards what the lock guards, written into the file for waiters' messages
   * @param clock stamps the holder's acquired-at
   * @return the held lock, {@link LockAttempt.Busy} (having waited zero), or {@link
   *     LockAttempt.Reentered}
   * @throws IOException as for {@link #acquire}
   */
  public LockAttempt tryAcquire(Path lockFile, String guards, Clock clock) throws IOException {
    LockSlot slot = join(canonical(lockFile, true));
    TurnQueue.Turn turn = null;
    boolean held = false;
    try {
      if (slot.turns().isOwnedBy(Thread.currentThread())) {
        return new LockAttempt.Reentered();
      }
      turn = slot.turns().tryTake();
      LockAttempt.Acquired acquired = turn == null ? null : lockWithTurn(slot, turn, guards, clock);
      if (acquired == null) {
        return new LockAttempt.Busy(slot.readHolder().orElse(null), Duration.ZERO);
      }
      held = true;
      return acquired;
    } finally {
      if (!held) {
        if (turn != null) {
          slot.endTurn(turn);
        }
        leave(slot);
      }
    }
  }

  /**
   * Returns who holds the lock of {@code lockFile}: the holder in this registry if there is one,
   * else what the file says, read through the registry's channel.
   *
   * @param lockFile the lock file
   * @return the holder, or empty when the lock file is missing or names nobody
   * @throws IOException if the lock file's directory cannot be resolved
   */
  public Optional<LockHolder> holder(Path lockFile) throws IOException {
    Optional<Path> file = canonicalIfPresent(lockFile);
    if (file.isEmpty()) {
      return Optional.empty();
    }
    LockSlot slot;
    synchronized (slots) {
      if (!slots.containsKey(file.get()) && !Files.exists(file.get())) {
        return Optional.empty();
      }
      slot = join(file.get());
    }
    try {
      return slot.readHolder();
    } finally {
      leave(slot);
    }
  }

  /**
   * {@return whether any thread holds, awaits or reads the lock of {@code lockFile} through this registry}
   *
   * @param lockFile the lock file
   */
  public boolean inUse(Path lockFile) {
    LockSlot slot = slotOf(lockFile);
    synchronized (slots) {
      return slot != null && slot.users > 0;
    }
  }

  /**
   * {@return how many threads are queued for the lock of {@code lockFile}, behind the one whose turn it is}
   *
   * @param lockFile the lock file
   */
  public int queued(Path lockFile) {
    LockSlot slot = slotOf(lockFile);
    return slot == null ? 0 : slot.turns().queued();
  }

  /** Releases a held lock; for {@link HeldFileLock#release()}. */
  void release(LockSlot slot, TurnQueue.Turn turn) throws IOException {
    try {
      synchronized (slots) {
        slot.users--;
        if (slot.users > 0) {
          slot.unlock();
          return;
        }
        boolean closed = true;
        try {
          closed = slot.closeIfSafe();
        } finally {
          if (closed) {
            slots.remove(slot.file(), slot);
          }
        }
      }
    } finally {
      slot.endTurn(turn);
    }
  }

  /**
   * For the thread whose turn it is: tries the OS lock and, once it is taken (or cannot be taken on
   * this file system), writes the holder into the lock file.
   *
   * @return the held lock, or null when another process or class loader holds the OS lock
   */
  private LockAttempt.@Nullable Acquired lockWithTurn(LockSlot slot, TurnQueue.Turn turn, String guards, Clock clock)
      throws IOException {
    LockSlot.OsResult result = slot.tryLock();
    if (result == LockSlot.OsResult.BUSY) {
      return null;
    }
    LockHolder holder = LockHolder.current(guards, clock.instant());
    try {
      slot.hold(holder);
    } catch (IOException | RuntimeException e) {
      try {
        slot.unlock();
      } catch (IOException unlocking) {
        e.addSuppressed(unlocking);
      }
      throw e;
    }
    return new LockAttempt.Acquired(new HeldFileLock(this, slot, turn, holder, result == LockSlot.OsResult.LOCKED));
  }

  private LockAttempt.Busy busy(LockSlot slot, Instant start, Clock clock) {
    return new LockAttempt.Busy(slot.readHolder().orElse(null), Duration.between(start, clock.instant()));
  }

  private LockSlot join(Path file) {
    synchronized (slots) {
      LockSlot slot = slots.computeIfAbsent(file, f -> new LockSlot(f, opener));
      slot.users++;
      return slot;
    }
  }

  /** Ends one use begun by {@link #join}; the last user closes the channel if that is safe, else parks it. */
  private void leave(LockSlot slot) {
    synchronized (slots) {
      if (--slot.users > 0) {
        return;
      }
      try {
        if (slot.closeIfSafe()) {
          slots.remove(slot.file(), slot);
        }
      } catch (IOException e) {
        // the channel is closed all the same: nothing of ours is left open or locked
        LOG.warn("Cannot close lock file {} cleanly: {}", slot.file(), e.toString());
        slots.remove(slot.file(), slot);
      }
    }
  }

  private @Nullable LockSlot slotOf(Path lockFile) {
    Optional<Path> file;
    try {
      file = canonicalIfPresent(lockFile);
    } catch (IOException e) {
      return null;
    }
    synchronized (slots) {
      return file.map(slots::get).orElse(null);
    }
  }

  private static Path canonical(Path lockFile, boolean create) throws IOException {
    Path absolute = lockFile.toAbsolutePath().normalize();
    Path parent = absolute.getParent();
    Path name = absolute.getFileName();
    if (parent == null || name == null) {
      throw new FileSystemException(lockFile.toString(), null, "a lock file must be a file in a directory");
    }
    if (create && !Files.isDirectory(parent)) {
      Files.createDirectories(parent);
    }
    return parent.toRealPath().resolve(name.toString());
  }

  private static Optional<Path> canonicalIfPresent(Path lockFile) throws IOException {
    Path parent = lockFile.toAbsolutePath().normalize().getParent();
    return parent == null || !Files.isDirectory(parent) ? Optional.empty() : Optional.of(canonical(lockFile, false));
  }
}
