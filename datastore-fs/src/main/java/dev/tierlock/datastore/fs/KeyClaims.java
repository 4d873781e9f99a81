package dev.tierlock.datastore.fs;

import dev.tierlock.LockIdentity;
import dev.tierlock.Sleeper;
import dev.tierlock.internal.Backoff;
import dev.tierlock.internal.TurnQueue;
import dev.tierlock.spi.ObjectKey;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The exclusion each change of a key takes: a <em>claim</em> on the key, which a writer that
 * stopped inside its change (with {@code SIGSTOP}, or hung) holds only until another writer has seen
 * it unchanged for the takeover bound, and whose change is then refused if it ever resumes.
 *
 * <p><b>A claim</b> is a staging directory made in the temp directory ({@link TempFiles}) that holds
 * one sub-directory named by the claim's random id, holding an {@code owner} file (who made it, for
 * messages) and the files the change stages. It becomes the key's claim when it is renamed onto the
 * key's slot, {@code .tierlock/claims/<sha256 of key>}, which the file system does only while the slot
 * is absent or empty: a rename of a directory onto a directory that has entries fails. Every step
 * that changes the object or its metadata sidecar is then a rename whose source or destination lies
 * in {@code <slot>/<id>/} (the staged bytes and sidecar moved out, a deleted object moved in), and
 * the claim is released by deleting that sub-directory, then the slot if it is empty.
 *
 * <p><b>A takeover</b> renames the claim's sub-directory, by the name it was seen under, out of the
 * slot into the temp directory, in one rename, and deletes it there; the slot is left empty, and the
 * taker (or any writer) renames its own claim onto it. A writer waiting for a key notes the claim it
 * sees there (its id) and since when on its own clock ({@link Sightings}); once it has seen the same
 * claim for the takeover bound, it takes it over, then claims the key itself. Two waiters that take
 * over at once move the one claim once: the second rename finds it gone and does nothing, and a
 * claim made meanwhile has another name.
 *
 * <p><b>What each guarantee rests on.</b>
 *
 * <ul>
 *   <li><em>At most one claim can change the key at any moment</em>: the slot holds the files of one
 *       claim at a time (the rename onto it needs it empty), and each change step renames from or into
 *       the claim's own sub-directory, which exists in the slot only while the claim is the key's: a
 *       rename whose source, or whose destination's directory, is gone fails ({@code ENOENT}) and does
 *       nothing;
 *   <li><em>a stalled writer's late change is refused</em>: the takeover moved its sub-directory out of
 *       the slot before the taker claimed the key, and renames are atomic and serialised by the file
 *       system (on a network share, by its server): the stalled rename either happened before the
 *       takeover, and the taker reads its result as the current version, or fails;
 *   <li><em>a precondition holds when the change lands</em>: it is checked after the claim is taken
 *       and before the renames that publish the change, all while the claim is the key's;
 *   <li><em>a wait is bounded</em>: by the lock timeout per call, and a claim by the takeover bound
 *       measured on the waiter's own clock; never by comparing two processes' clocks, and never by
 *       asking whether a process id is alive. The {@code owner} file only names the holder in
 *       messages.
 * </ul>
 *
 * None of this rests on the claim being held by one process only: a live writer slower than the
 * bound is taken over like a stopped one, and its change is refused (it is told so, and Tierlock
 * tries again). The writers of one JVM take turns in a fair in-JVM queue per slot first (one map per
 * class loader, the only static state of this datastore), so they wait without polling; only the
 * head of the queue polls the slot, with pauses of 1 ms doubling to 50 ms. Beside its claim a writer
 * takes the OS lock that earlier versions of this datastore exclude each other with ({@link KeyLocks}).
 *
 * <p>On a file system other than the default one (a zip or in-memory file system) a directory
 * cannot be renamed atomically: there the in-JVM queue alone is the claim, and writers exclude each
 * other only within this JVM (such a file system has no other processes). Thread-safe.
 */
final class KeyClaims {

  private static final Logger LOG = LoggerFactory.getLogger(KeyClaims.class);

  /** The file in a claim's sub-directory that names its writer. */
  static final String OWNER = "owner";

  private static final Duration FIRST_PAUSE = Duration.ofMillis(1);
  private static final Duration MAX_PAUSE = Duration.ofMillis(50);
  /**
   * How many renames onto the slot one claim may see refused while the slot is found free just
   * after: a holder released it in between, each time; past that, the refusal is the file system's.
   */
  static final int REFUSALS_WHILE_FREE = 8;

  private final RootLayout layout;
  private final TempFiles temps;
  private final KeyLocks legacy;
  private final boolean acrossProcesses;
  private final Duration timeout;
  private final Duration takeoverAfter;
  private final Clock clock;
  private final Sleeper sleeper;
  private final Sightings sightings;
  private final Runnable onQueued;

  KeyClaims(RootLayout layout, TempFiles temps, FileSystemDatastoreOptions options) {
    this(layout, temps, options, () -> { });
  }

  /** Creates claims that run {@code onQueued} on a thread each time it has to queue in this JVM (for tests). */
  KeyClaims(RootLayout layout, TempFiles temps, FileSystemDatastoreOptions options, Runnable onQueued) {
    this.layout = layout;
    this.temps = temps;
    this.acrossProcesses = layout.root().getFileSystem().equals(FileSystems.getDefault());
    this.timeout = options.lockTimeout();
    this.takeoverAfter = options.takeoverAfter();
    this.clock = options.clock();
    this.sleeper = options.sleeper();
    this.sightings = new Sightings(clock);
    this.legacy = new KeyLocks(options);
    this.onQueued = onQueued;
  }

  /** Returns whether claims exclude writers of other processes (false on a file system other than the default one). */
  boolean excludesProcesses() {
    return acrossProcesses;
  }

  /** Returns whether any caller in this JVM holds or waits for the turn on a key's slot. */
  static boolean inUse(Path slot) {
    return Turns.inUse(slot);
  }

  /** Returns how many callers of this JVM are queued for the turn on a key's slot, behind the one that has it. */
  static int queued(Path slot) {
    return Turns.queued(slot);
  }

  /**
   * Makes a claim on {@code key}, not yet the key's: its staging directory, with its {@code owner}
   * file.
   *
   * @param guards what the change is, for messages
   * @throws IOException if the staging directory cannot be made
   */
  Claim prepare(ObjectKey key, String guards) throws IOException {
    Path staging = temps.createDirectory();
    String id = UUID.randomUUID().toString();
    try {
      Files.createDirectory(staging.resolve(id));
      Files.write(staging.resolve(id).resolve(OWNER), describeSelf(guards, clock.instant()).getBytes(StandardCharsets.UTF_8));
    } catch (IOException | RuntimeException e) {
      quietly(() -> TempFiles.deleteTree(staging), "the staging directory " + staging);
      throw e;
    }
    return new Claim(key, staging, id);
  }

  /** A claim stayed held by another writer until the lock timeout; nothing changed. */
  static final class Busy extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient @Nullable String holder;

    Busy(@Nullable String holder) {
      super(holder == null ? "held by another writer" : "held by " + holder, null, false, false);
      this.holder = holder;
    }

    /** Returns who held it, for messages, or null when nobody could be named. */
    @Nullable String holder() {
      return holder;
    }
  }

  /** The claim was taken over before the change was published: the change did not happen. */
  static final class Lost extends IOException {
    private static final long serialVersionUID = 1L;

    Lost(String message, @Nullable Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * One change's claim on one key: made by {@link #prepare}, the key's once {@link #acquire} says
   * so, released (or its staging directory deleted) by {@link #close}. Not thread-safe: one per call.
   */
  final class Claim implements AutoCloseable {
    private final ObjectKey key;
    private final Path slot;
    private final Path staging;
    private final String id;
    private final String guards;
    private TurnQueue.@Nullable Turn<Void> turn;
    private @Nullable TurnQueue<Void> queue;
    private boolean held;
    /** The renames onto the slot refused while the slot was found free just after. */
    private int refusedWhileFree;
    private KeyLocks.@Nullable Held legacyLock;

    private Claim(ObjectKey key, Path staging, String id) {
      this.key = key;
      this.slot = layout.claimSlot(key);
      this.staging = staging;
      this.id = id;
      this.guards = "claim " + id + " of object " + key + " at " + layout.describe();
    }

    /** Returns the directory the change stages its files in: the claim's own sub-directory, wherever it is now. */
    Path directory() {
      return held && acrossProcesses ? slot.resolve(id) : staging.resolve(id);
    }

    /**
     * Returns the failure to report for a step that found a path missing: {@link Lost} when this
     * claim is the key's no more (its directory left the slot), else {@code e} itself.
     */
    IOException lostOr(IOException e) {
      if (held && acrossProcesses && !Files.isDirectory(directory(), LinkOption.NOFOLLOW_LINKS)) {
        return new Lost("its claim on the key was taken over by another writer, which saw it unchanged for "
            + takeoverAfter + " (the takeover bound)", e);
      }
      return e;
    }

    /**
     * Makes this claim the key's, waiting up to the lock timeout: first for this JVM's turn, then
     * for the slot, taking over a claim seen unchanged for the takeover bound; then takes the OS lock
     * of earlier versions beside it.
     *
     * @throws Busy if another writer kept the key past the lock timeout; nothing is held then
     * @throws IOException if the slot or the OS lock cannot be used
     * @throws InterruptedException if interrupted while waiting; nothing is held then
     */
    void acquire() throws Busy, IOException, InterruptedException {
      Instant deadline = clock.instant().plus(timeout);
      TurnQueue<Void> turns = Turns.join(slot);
      queue = turns;
      turn = turns.take(clock, deadline, MAX_PAUSE, onQueued);
      if (turn == null) {
        throw new Busy(occupant().flatMap(this::ownerOf).orElse(null));
      }
      if (turn.interrupted()) {
        Thread.interrupted();
        throw new InterruptedException("interrupted while queued for the claim on " + key);
      }
      if (!acrossProcesses) {
        held = true;
        return;
      }
      Backoff pauses = new Backoff(FIRST_PAUSE, MAX_PAUSE, Backoff.NO_JITTER);
      while (!moveIn()) {
        Optional<String> occupant = occupant();
        Duration left = Duration.between(clock.instant(), deadline);
        if (occupant.isPresent()) {
          Duration seen = sightings.see(slot, occupant.get());
          if (seen.compareTo(takeoverAfter) >= 0) {
            takeOver(occupant.get(), seen);
            continue;
          }
          if (left.isNegative() || left.isZero()) {
            throw new Busy(ownerOf(occupant.get()).map(o -> o + ", unchanged for " + seen).orElse(null));
          }
          Duration untilTakeover = takeoverAfter.minus(seen);
          left = untilTakeover.compareTo(left) < 0 ? untilTakeover : left;
        } else if (left.isNegative() || left.isZero()) {
          throw new Busy(null);
        }
        sleeper.sleep(pauses.next(left));
      }
      held = true;
      sightings.forget(slot);
      KeyLocks.Taken earlier = legacy.acquire(layout.lockFile(key), guards, deadline);
      if (earlier instanceof KeyLocks.Taken.Busy busy) {
        throw new Busy(busy.holder());
      }
      legacyLock = earlier instanceof KeyLocks.Taken.Locked locked ? locked.held() : null;
    }

    /**
     * Renames the staging directory onto the slot; returns false when the slot holds another claim,
     * or held one when the rename ran (at most {@link #REFUSALS_WHILE_FREE} times a claim).
     */
    private boolean moveIn() throws IOException {
      for (int attempt = 0; ; attempt++) {
        try {
          Files.move(staging, slot, StandardCopyOption.ATOMIC_MOVE);
          return true;
        } catch (AtomicMoveNotSupportedException e) {
          throw e;
        } catch (NoSuchFileException e) {
          if (attempt > 0 || !Files.isDirectory(staging, LinkOption.NOFOLLOW_LINKS)) {
            throw e; // our staging directory is gone (swept), or the claims directory cannot be made
          }
          Files.createDirectories(layout.claimsDirectory());
        } catch (FileSystemException e) {
          if (Files.isDirectory(slot, LinkOption.NOFOLLOW_LINKS)) {
            return false; // "directory not empty" (or "exists"): another claim is the key's
          }
          // the slot held a claim when the rename ran and its holder released it before this look
          // (nothing else empties it): the next look sees it free; a failure that persists is thrown
          if (++refusedWhileFree <= REFUSALS_WHILE_FREE) {
            return false;
          }
          throw e;
        }
      }
    }

    /** Returns the name of the claim in the slot, or empty when there is none (an empty slot is removed). */
    private Optional<String> occupant() throws IOException {
      String names;
      try (Stream<Path> entries = Files.list(slot)) {
        names = entries.map(p -> p.getFileName().toString()).sorted().collect(Collectors.joining(","));
      } catch (NoSuchFileException e) {
        return Optional.empty();
      }
      if (names.isEmpty()) {
        try {
          Files.deleteIfExists(slot); // left by a release or a crash half-way: nobody's claim
        } catch (DirectoryNotEmptyException e) {
          // a claim moved in meanwhile: the next look sees it
        }
        return Optional.empty();
      }
      return Optional.of(names);
    }

    /**
     * Moves the claim seen in the slot out of it, into the temp directory, and deletes it there. Only
     * the claim that was seen is moved (by its name): one that came in meanwhile is left alone.
     */
    private void takeOver(String occupant, Duration seen) throws IOException {
      sightings.forget(slot);
      for (String name : occupant.split(",")) {
        Path grave = temps.fresh();
        try {
          Files.move(slot.resolve(name), grave, StandardCopyOption.ATOMIC_MOVE);
        } catch (NoSuchFileException e) {
          continue; // released, or taken over by another waiter, meanwhile
        }
        LOG.warn("Took over the claim on object {} at {} of {}: seen unchanged for {} (the takeover bound {});"
            + " that writer stopped or hung inside its change, which is refused if it resumes", key, layout.describe(),
            ownerIn(grave.getParent(), grave.getFileName().toString()).orElse("a writer that left no owner file"),
            seen, takeoverAfter);
        quietly(() -> TempFiles.deleteTree(grave), "the claim taken over, moved to " + grave);
      }
    }

    private Optional<String> ownerOf(String occupant) {
      return ownerIn(slot, occupant);
    }

    /** Releases the OS lock of earlier versions, then the claim, then this JVM's turn; failures are logged. */
    @Override
    public void close() {
      KeyLocks.Held lock = legacyLock;
      legacyLock = null;
      if (lock != null) {
        quietly(lock::close, "the OS lock of object " + key);
      }
      if (held && acrossProcesses) {
        quietly(() -> TempFiles.deleteTree(slot.resolve(id)), "the claim on object " + key);
        try {
          Files.deleteIfExists(slot);
        } catch (DirectoryNotEmptyException e) {
          // another claim is the key's now (ours was taken over), or came in after ours
        } catch (IOException e) {
          LOG.debug("Cannot remove the empty claim slot of object {}; the next writer does", key, e);
        }
      }
      held = false;
      quietly(() -> TempFiles.deleteTree(staging), "the staging directory " + staging);
      TurnQueue<Void> turns = queue;
      if (turns != null) {
        if (turn != null) {
          turns.end(turn);
        }
        queue = null;
        Turns.leave(slot);
      }
    }
  }

  /** Describes this writer as the OS lock's holder is described: pid, host, since when, process start, thread, what. */
  private static String describeSelf(String guards, Instant now) {
    LockIdentity self = LockIdentity.current();
    return "pid " + self.pid() + " on host " + self.hostname() + " since " + now + "; started "
        + ProcessHandle.current().info().startInstant().map(Instant::toString).orElse("at an unknown time")
        + " (" + self.holder() + ", thread " + Thread.currentThread().getName() + "; guards " + guards + ")";
  }

  private static String namesIn(Path dir) {
    try (Stream<Path> entries = Files.list(dir)) {
      return entries.map(p -> p.getFileName().toString()).sorted().collect(Collectors.joining(","));
    } catch (IOException e) {
      return "";
    }
  }

  /** Reads who made a claim, from its owner file, for messages; empty when it cannot be read. */
  private static Optional<String> ownerIn(Path slot, String occupant) {
    try {
      String text = Files.readString(slot.resolve(occupant).resolve(OWNER), StandardCharsets.UTF_8).strip();
      return text.isEmpty() || text.contains("\n") ? Optional.empty() : Optional.of(text);
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  private static void quietly(IoStep step, String what) {
    try {
      step.run();
    } catch (IOException | RuntimeException e) {
      LOG.warn("Cannot clean up {}; a later writer or sweep removes it", what, e);
    }
  }

  @FunctionalInterface
  private interface IoStep {
    void run() throws IOException;
  }

  /** The fair in-JVM queues of this class loader, one per slot, kept while anyone uses one. */
  private static final class Turns {
    private static final Map<Path, Entry> ENTRIES = new HashMap<>();

    private static final class Entry {
      final TurnQueue<Void> queue = new TurnQueue<>();
      int users;
    }

    static TurnQueue<Void> join(Path slot) {
      synchronized (ENTRIES) {
        Entry entry = ENTRIES.computeIfAbsent(slot, s -> new Entry());
        entry.users++;
        return entry.queue;
      }
    }

    static void leave(Path slot) {
      synchronized (ENTRIES) {
        Entry entry = ENTRIES.get(slot);
        if (entry != null && --entry.users == 0) {
          ENTRIES.remove(slot);
        }
      }
    }

    static boolean inUse(Path slot) {
      synchronized (ENTRIES) {
        return ENTRIES.containsKey(slot);
      }
    }

    static int queued(Path slot) {
      synchronized (ENTRIES) {
        Entry entry = ENTRIES.get(slot);
        return entry == null ? 0 : entry.queue.queued();
      }
    }
  }
}
