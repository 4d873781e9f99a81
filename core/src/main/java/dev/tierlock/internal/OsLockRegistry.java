package dev.tierlock.internal;

import java.io.IOException;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
 *       tries the OS lock, pausing between attempts as the caller's {@link Wait} says until the
 *       caller's deadline on the caller's {@link Clock}; queued threads are woken when their turn
 *       comes and re-read the clock at least every {@link Wait#maxPause()}. A waiter that times
 *       out or is interrupted leaves the queue without disturbing the others; a thread that already
 *       has the turn is told so ({@link Attempt.Reentered}), never queued behind itself;
 *   <li><b>the holder in the file</b>: whoever takes the OS lock writes who it is into the
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
 * registry takes only the in-JVM turn ({@link Held#excludesProcesses()} is false). Lock
 * files are never deleted (deleting a locked file would let two processes lock two files of one
 * name). Thread-safe.
 */
public final class OsLockRegistry {

  private static final Logger LOG = LoggerFactory.getLogger(OsLockRegistry.class);

  private static final OsLockRegistry SHARED = new OsLockRegistry(Opener.STANDARD);

  private final Opener opener;
  private final Map<Path, LockSlot> slots = new HashMap<>();

  private OsLockRegistry(Opener opener) {
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
  public static OsLockRegistry using(Opener opener) {
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
   * @return the held lock, {@link Attempt.Busy} when another holder kept it past the deadline, or
   *     {@link Attempt.Reentered} when the calling thread has it already
   * @throws IOException if the lock file's directory cannot be created or resolved, or the file
   *     cannot be opened, locked or written; nothing is held then
   * @throws InterruptedException if the thread was interrupted while waiting; nothing is held then
   */
  public Attempt acquire(Path lockFile, String guards, Wait wait) throws IOException, InterruptedException {
    Instant start = wait.clock().instant();
    LockSlot slot = join(canonical(lockFile, true));
    TurnQueue.Turn<Void> turn = null;
    boolean held = false;
    try {
      if (slot.turns().isOwnedBy(Thread.currentThread())) {
        return new Attempt.Reentered();
      }
      turn = slot.turns().take(wait.clock(), wait.deadline(), wait.maxPause(), wait.onQueued());
      if (turn == null) {
        return busy(slot, start, wait.clock());
      }
      if (turn.interrupted()) {
        // granted just as the interrupt came: the interrupt wins, and the turn passes on
        Thread.interrupted();
        throw new InterruptedException("interrupted while queued for " + lockFile);
      }
      Backoff pauses = new Backoff(wait.firstPause(), wait.maxPause(), Backoff.NO_JITTER);
      while (true) {
        Attempt.Acquired acquired = lockWithTurn(slot, turn, guards, wait.clock());
        if (acquired != null) {
          held = true;
          return acquired;
        }
        Duration remaining = Duration.between(wait.clock().instant(), wait.deadline());
        if (remaining.isNegative() || remaining.isZero()) {
          return busy(slot, start, wait.clock());
        }
        wait.pause().pause(pauses.next(remaining));
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
   * @return the held lock, {@link Attempt.Busy} (having waited zero), or {@link Attempt.Reentered}
   * @throws IOException as for {@link #acquire}
   */
  public Attempt tryAcquire(Path lockFile, String guards, Clock clock) throws IOException {
    LockSlot slot = join(canonical(lockFile, true));
    TurnQueue.Turn<Void> turn = null;
    boolean held = false;
    try {
      if (slot.turns().isOwnedBy(Thread.currentThread())) {
        return new Attempt.Reentered();
      }
      turn = slot.turns().tryTake();
      Attempt.Acquired acquired = turn == null ? null : lockWithTurn(slot, turn, guards, clock);
      if (acquired == null) {
        return new Attempt.Busy(slot.readHolder().orElse(null), Duration.ZERO);
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
   * @return the holder for messages ({@code pid 4242 on host h since <acquired>; started <process
   *     start> (<name>; guards <what>)}), or empty when the lock file is missing or names nobody
   * @throws IOException if the lock file's directory cannot be resolved
   */
  public Optional<String> holder(Path lockFile) throws IOException {
    return readHolder(lockFile).map(LockHolder::describe);
  }

  /**
   * Returns who holds the lock of {@code lockFile}, as {@link #holder} does, followed by what this
   * host can tell of the holder's process: {@code ; its process is stopped}, {@code ; its process
   * is running}, or {@code ; whether its process runs cannot be told from here} (another host,
   * another pid namespace, or no {@code /proc}). The state is read when asked, for messages only.
   *
   * @param lockFile the lock file
   * @return the holder and its state, or empty when the lock file is missing or names nobody
   * @throws IOException if the lock file's directory cannot be resolved
   */
  public Optional<String> holderAndState(Path lockFile) throws IOException {
    return readHolder(lockFile).map(h -> h.describe() + "; " + h.processState().map(state -> "its process " + state)
        .orElse("whether its process runs cannot be told from here"));
  }

  private Optional<LockHolder> readHolder(Path lockFile) throws IOException {
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

  /** Releases a held lock; for {@link Held#release()}. */
  private void release(LockSlot slot, TurnQueue.Turn<Void> turn) throws IOException {
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
  private Attempt.@Nullable Acquired lockWithTurn(LockSlot slot, TurnQueue.Turn<Void> turn, String guards, Clock clock)
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
    return new Attempt.Acquired(new Held(this, slot, turn, holder, result == LockSlot.OsResult.LOCKED));
  }

  private Attempt.Busy busy(LockSlot slot, Instant start, Clock clock) {
    return new Attempt.Busy(slot.readHolder().orElse(null), Duration.between(start, clock.instant()));
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

  /**
   * How an attempt at a lock file ended: contention and re-entry are values, I/O failures are
   * exceptions.
   */
  public sealed interface Attempt permits Attempt.Acquired, Attempt.Busy, Attempt.Reentered {

    /**
     * The caller holds the lock.
     *
     * @param lock the held lock; release it
     */
    record Acquired(Held lock) implements Attempt {}

    /** Another holder (a thread of this JVM or another process) kept the lock until the deadline. */
    final class Busy implements Attempt {
      private final @Nullable LockHolder holder;
      private final Duration waited;

      private Busy(@Nullable LockHolder holder, Duration waited) {
        this.holder = holder;
        this.waited = waited;
      }

      /**
       * {@return the holder as the lock file (or this JVM's holder) told it, for messages: {@code pid
       * 4242 on host h since <acquired>; started <process start> (<name>; guards <what>)}, if known}
       */
      public Optional<String> holder() {
        return Optional.ofNullable(holder).map(LockHolder::describe);
      }

      /** Returns the holder as the lock file (or this JVM's holder) told it, if known. */
      Optional<LockHolder> lockHolder() {
        return Optional.ofNullable(holder);
      }

      /** {@return how long the caller waited, on its clock} */
      public Duration waited() {
        return waited;
      }

      @Override
      public String toString() {
        return "Busy[" + (holder == null ? "unknown holder" : holder.describe()) + ", waited " + waited + "]";
      }
    }

    /**
     * The calling thread already holds this lock file through this registry; nothing was taken or
     * changed. The caller decides what that is (a nested transaction, a programming error).
     */
    record Reentered() implements Attempt {}
  }

  /**
   * A lock file held through an {@link OsLockRegistry}: this JVM's turn on it and, unless its file
   * system cannot lock, the OS lock. Release it exactly once (later calls do nothing), on any
   * thread. Thread-safe.
   */
  public static final class Held {

    private final OsLockRegistry registry;
    private final LockSlot slot;
    private final TurnQueue.Turn<Void> turn;
    private final LockHolder holder;
    private final boolean excludesProcesses;
    private boolean released;

    private Held(OsLockRegistry registry, LockSlot slot, TurnQueue.Turn<Void> turn, LockHolder holder,
        boolean excludesProcesses) {
      this.registry = registry;
      this.slot = slot;
      this.turn = turn;
      this.holder = holder;
      this.excludesProcesses = excludesProcesses;
    }

    /** {@return the canonical lock file} */
    public Path lockFile() {
      return slot.file();
    }

    /** Returns who holds it, as written into the lock file. */
    LockHolder holder() {
      return holder;
    }

    /**
     * {@return whether the lock also excludes other processes: false when the file system provider
     * cannot lock files, so that only this JVM's turn was taken}
     */
    public boolean excludesProcesses() {
      return excludesProcesses;
    }

    /** {@return whether {@link #release()} was called} */
    public synchronized boolean isReleased() {
      return released;
    }

    /**
     * Empties the lock file, releases the OS lock (closing the channel when nobody else in this
     * registry uses it) and hands this JVM's turn to the next waiter. The OS lock and the turn are
     * free afterwards even when this throws. Idempotent.
     *
     * @throws IOException if emptying the file or unlocking it failed (then the channel was closed,
     *     which released the lock)
     */
    public synchronized void release() throws IOException {
      if (released) {
        return;
      }
      released = true;
      registry.release(slot, turn);
    }

    @Override
    public String toString() {
      return "Held[" + slot.file() + (isReleased() ? ", released" : "") + "]";
    }
  }

  /**
   * How one {@link #acquire} waits: until {@code deadline} on {@code clock}, first in this JVM's
   * queue (woken when its turn comes, re-reading the clock at least every {@code maxPause}), then
   * polling the OS lock, {@code firstPause} doubling up to {@code maxPause} between attempts, each
   * spent by {@code pause}. Immutable.
   *
   * @param clock measures the deadline and stamps the holder's acquired-at
   * @param pause spends the pauses between attempts at the OS lock
   * @param deadline when to give up; one attempt when it has passed
   * @param firstPause the first pause; positive
   * @param maxPause the longest pause, also the longest a queued waiter goes without re-reading the
   *     clock; at least {@code firstPause}
   * @param onQueued run on the waiting thread, once, when it has to queue behind another thread
   */
  public record Wait(Clock clock, Pause pause, Instant deadline, Duration firstPause, Duration maxPause,
      Runnable onQueued) {

    /**
     * Validates the pauses.
     *
     * @param clock measures the deadline and stamps the holder's acquired-at
     * @param pause spends the pauses between attempts at the OS lock
     * @param deadline when to give up; one attempt when it has passed
     * @param firstPause the first pause; positive
     * @param maxPause the longest pause, also the longest a queued waiter goes without re-reading
     *     the clock; at least {@code firstPause}
     * @param onQueued run on the waiting thread, once, when it has to queue behind another thread
     * @throws IllegalArgumentException if {@code firstPause} is not positive or exceeds {@code
     *     maxPause}
     */
    public Wait {
      if (firstPause.isNegative() || firstPause.isZero() || maxPause.compareTo(firstPause) < 0) {
        throw new IllegalArgumentException("Cannot wait for a lock with pauses from " + firstPause + " to " + maxPause
            + ": the first must be positive and at most the longest");
      }
    }

    /**
     * {@return a wait until {@code deadline} that polls every {@code poll} and runs nothing when
     * queued}
     *
     * @param deadline when to give up; one attempt when it has passed
     * @param clock measures the deadline and stamps the holder's acquired-at
     * @param pause spends the pauses between attempts
     * @param poll the pause between attempts; positive
     * @throws IllegalArgumentException if {@code poll} is not positive
     */
    public static Wait until(Instant deadline, Clock clock, Pause pause, Duration poll) {
      return new Wait(clock, pause, deadline, poll, poll, () -> { });
    }

    /**
     * {@return this wait with {@code first} doubling up to {@code max} between attempts}
     *
     * @param first the first pause; positive
     * @param max the longest pause; at least {@code first}
     */
    public Wait withPauses(Duration first, Duration max) {
      return new Wait(clock, pause, deadline, first, max, onQueued);
    }

    /**
     * {@return this wait running {@code action} when the caller has to queue in this JVM}
     *
     * @param action what runs on the waiting thread, once, when it queues
     */
    public Wait withOnQueued(Runnable action) {
      return new Wait(clock, pause, deadline, firstPause, maxPause, action);
    }
  }

  /** Spends one pause between attempts at a busy OS lock ({@code Sleeper::sleep} fits). */
  @FunctionalInterface
  public interface Pause {

    /**
     * Waits for {@code duration}.
     *
     * @param duration how long to wait; positive
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    void pause(Duration duration) throws InterruptedException;
  }

  /**
   * Opens the one channel a registry keeps per lock file. {@link #STANDARD} is the only opener
   * outside tests; tests inject failures through their own ({@link #using}).
   */
  @FunctionalInterface
  public interface Opener {

    /**
     * Opens {@code file} for reading and writing, creating it if missing. An {@link
     * AsynchronousFileChannel}, because a {@link java.nio.channels.FileChannel} is closed by an
     * interrupt that arrives while a thread reads, writes or truncates through it, and closing any
     * channel of a file drops this process's lock on it; an asynchronous channel ignores interrupts.
     * Its reads and writes run on the calling thread ({@link CallingThreadExecutor}), never handed
     * to a pool thread.
     */
    Opener STANDARD = file -> AsynchronousFileChannel.open(file, java.util.Set.of(StandardOpenOption.CREATE,
        StandardOpenOption.READ, StandardOpenOption.WRITE), CallingThreadExecutor.INSTANCE);

    /**
     * Opens {@code file} (canonical, in an existing directory) for reading and writing, creating it.
     *
     * @param file the lock file
     * @return the open channel
     * @throws IOException if it cannot be opened
     * @throws UnsupportedOperationException if its file system provider cannot open such a channel
     *     (the registry then locks in this JVM only)
     */
    AsynchronousFileChannel open(Path file) throws IOException;
  }
}
