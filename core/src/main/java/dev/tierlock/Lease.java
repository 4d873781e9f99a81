package dev.tierlock;

import dev.tierlock.internal.TurnQueue;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreException;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.OutcomeUnknownException;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.WriteCondition;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The datastore global lock ({@link DistributedLock}) over any {@link Datastore}: a lease kept as one
 * object, built by {@link Tierlock} from its {@link Environment} and {@link LockOptions}.
 *
 * <p>The lock is one object at its key holding a JSON {@link LockInfo}. Acquiring is a create-only
 * write, stamped once the store has passed its precondition self-check (a check that takes long
 * never publishes a record already old); a holder renews its lease by a heartbeat every ttl/3,
 * written conditional on the version it last wrote; a holder whose record this lock has itself seen
 * stay at one version for longer than its ttl is stale, and is taken over by a write conditional on
 * the stale version; release is a delete conditional on the held version. Staleness never compares
 * two machines' clocks: the record's own timestamp is the holder's clock and is never read against
 * ours; the time the version stayed unchanged is measured on this process's monotonic clock ({@link
 * System#nanoTime()}, or the {@link Environment#clock()} when one is injected), so a waiter whose
 * clock runs ahead of the holder's by any amount waits a whole ttl of its own, and a live holder
 * renews long before that. A waiter that has never seen the lock before therefore waits a ttl even
 * for a record abandoned long ago. No operation ever deletes or overwrites a lock unconditionally,
 * so a stalled holder can never remove its successor's lock. A record that cannot be read is
 * treated as held until it has stayed unchanged for longer than this lock's ttl: {@link
 * DistributedLock#inspect()} then throws {@link LockUnreadableException} (code {@code
 * lock_unreadable}) rather than report the lock free, and {@link
 * DistributedLock#forceRelease(String)} cannot match its nonce.
 *
 * <p><b>A dead holder on this host.</b> A record names its holder's process start time when it is
 * known ({@code processStartedAt}), and the boot and pid namespace its pid belongs to ({@code
 * bootId}, {@code pidNamespace}), so that host, boot, pid namespace, pid and start time pin one
 * process. A record that names this host and this process's own boot and pid namespace ({@link
 * HostProcesses#sharesProcessTable}) is taken over at once, by the same write conditional on the
 * version read (two takers never both win), when no process with its pid runs here any more or the
 * one that does started at another time: the pid was reused ({@link HostProcesses#isGone}). Any
 * other record (the original tool's, an older Tierlock's without a namespace, one written in another
 * container that shares this host's name) is judged by its ttl alone: its pid cannot tell a reused,
 * made-up or foreign id from the holder, and taking it over early could steal a live lease.
 *
 * <p><b>One queue per lease in this JVM.</b> Callers of one store, key and identity queue in
 * memory, first come first served, and a held lease passes from one to the next without a remote
 * call, within a {@link HandoverBudget}: see {@link LeaseLine}. {@link
 * DistributedLock#tryAcquire()} never queues.
 *
 * <p><b>Waits between attempts</b> cost one call an attempt and scale with the hold and the queue
 * wait this lease measured ({@link LeaseSchedule}), not with the store's round trip; nothing starts
 * again when the lock changes hands: see {@link LeaseAcquisition}.
 *
 * <p><b>Bounded waits across processes.</b> A waiter past its bound reserves the next turn in
 * {@code <key>.reservation}, and contended acquirers hold back for it: see {@link
 * LeaseReservation}.
 *
 * <p>Acquiring retries {@link DatastoreUnavailableException} and {@link OutcomeUnknownException}
 * within the maximum wait (a create whose answer was lost is resolved by reading the record back:
 * our nonce means we hold it); any other datastore failure, such as access denied, propagates at
 * once. When the wait runs out, {@link LockTimeoutException} names the key, the last holder seen and
 * the time waited; when no attempt ever reached the store, the last store failure is thrown
 * instead. A thread interrupted while waiting gets {@link InterruptedOperationException}. Every
 * lock takes {@link LockLevel#GLOBAL} in the lock order, on the thread that acquires it.
 *
 * <p>Thread-safe: its state is its configuration, one observation of the lock object (used to judge
 * a record that never changes), one of the reservation ({@link LeaseReservation}), and when it last
 * met contention, shared by every acquisition through it. Its callers queue in the {@link
 * LeaseLine} of its store, key and identity; the one whose turn it is runs a {@link
 * LeaseAcquisition}, whose remote holding is a {@link LeaseHolding}; each caller gets a {@link
 * Held} of its own.
 */
final class Lease implements DistributedLock {

  private static final Logger LOG = LoggerFactory.getLogger(Lease.class);
  private static final Pattern NONCE = Pattern.compile("[A-Za-z0-9-]{1,128}");
  private static final int FORCE_RELEASE_ROUNDS = 3;

  /**
   * How far one remote holding may be handed over in this JVM before it is released remotely, so
   * that other processes get their turn. Zero leases turns handing over off.
   *
   * @param leases the most consecutive handovers; not negative
   * @param held the longest the holding may have been held, since its remote acquisition, when it
   *     is handed over; not negative
   */
  record HandoverBudget(int leases, Duration held) {

    /** The default: 16 handovers in a row, within 10 s of the remote acquisition. */
    static final HandoverBudget DEFAULT = new HandoverBudget(16, Duration.ofSeconds(10));

    HandoverBudget {
      if (leases < 0 || held.isNegative()) {
        throw new IllegalArgumentException("Cannot use handover budget of " + leases + " leases and " + held
            + ": neither may be negative");
      }
    }
  }

  final Datastore datastore;
  final ObjectKey key;
  final LockOptions options;
  final Clock clock;
  final Sleeper sleeper;
  final HostProcesses processes;
  final HandoverBudget budget;
  final LeaseReservation reservations;
  final LeaseSchedule schedule = new LeaseSchedule();
  private final RandomGenerator random;
  private final LockIdentity identity;
  private final @Nullable Instant processStart;
  private final LockInfo.@Nullable ProcessNamespace processNamespace;
  private final LongSupplier ticks;
  private final Supplier<String> nonces;
  private final Heartbeats heartbeats;
  private final Consumer<String> queueing;
  private final LeaseLine.Key lineKey;
  private final AtomicReference<@Nullable Observation> observed = new AtomicReference<>();
  private volatile Instant contendedUntil = Instant.MIN;
  /** When this lease last read the lock, and the holder it found (null: none, or unreadable). */
  private volatile @Nullable Instant lookedAt;
  private volatile @Nullable LockInfo lookedHolder;
  /** When this lease last looked at the reservation, and whether another's held it back. */
  private volatile @Nullable Instant reservationLookedAt;
  private volatile boolean heldBack;

  /**
   * Creates the lease kept at {@code key} in {@code datastore}; it holds nothing until acquired.
   *
   * @param datastore where the lock lives; not closed by the lease
   * @param environment the clock, sleeper, jitter, identity (looked up once, here), nonces,
   *     heartbeats, host processes and queueing hook of the lease
   */
  Lease(Datastore datastore, ObjectKey key, LockOptions options, Environment environment, HandoverBudget budget) {
    this.datastore = datastore;
    this.key = key;
    this.options = options;
    this.clock = environment.clock();
    this.sleeper = environment.sleeper();
    this.random = environment.random();
    this.identity = environment.lockIdentity();
    this.nonces = environment.nonces();
    this.heartbeats = environment.heartbeats();
    this.queueing = environment.queueing();
    this.processes = environment.hostProcesses();
    this.budget = budget;
    this.processStart = identity.hostname().equals(processes.hostname())
        ? processes.startOf(identity.pid()).orElse(null) : null;
    this.processNamespace = processStart == null ? null : processes.processNamespace().orElse(null);
    this.ticks = ticksOf(clock);
    this.reservations = new LeaseReservation(this);
    this.lineKey = new LeaseLine.Key(datastore.identity(), key, identity);
  }

  /** A version of the lock object and when this lease first saw it, in {@link #ticks}. */
  private record Observation(ObjectVersion version, long since) {}

  /**
   * Returns the nanosecond ticks that measure how long a version stayed unchanged: the system's
   * monotonic clock for the system clock (a wall clock stepped forward never shortens a wait), else
   * the injected clock's instants.
   */
  private static LongSupplier ticksOf(Clock clock) {
    if (clock == Environment.system().clock()) {
      return System::nanoTime;
    }
    return () -> {
      Instant now = clock.instant();
      return Math.addExact(Math.multiplyExact(now.getEpochSecond(), 1_000_000_000L), now.getNano());
    };
  }

  @Override
  public String describe() {
    return "lock \"" + key + "\" on " + datastore.describe();
  }

  @Override
  public DistributedLock.Held acquire() {
    LockOrder.Ticket ticket = LockOrder.enter(LockLevel.GLOBAL, describe());
    LeaseLine line = null;
    TurnQueue.Turn<LeaseLine.Grant> turn = null;
    try {
      Instant start = clock.instant();
      Instant deadline = deadlineAfter(start);
      line = LeaseLine.join(lineKey);
      turn = takeTurn(line, start, deadline);
      if (turn.handed() instanceof LeaseLine.Grant.Handed handed) {
        if (handed.holding().isHeld()) {
          handed.holding().lendTo(datastore);
          return new Held(line, turn, handed.holding(), ticket);
        }
        line.drop(turn);
        handed.holding().release();
      }
      if (turn.handed() instanceof LeaseLine.Grant.Yielded) {
        sawContention(clock.instant());
      }
      LeaseHolding holding = new LeaseAcquisition(this, line, newNonce(), start, deadline).acquire();
      line.hold(turn, holding);
      return new Held(line, turn, holding, ticket);
    } catch (RuntimeException | Error e) {
      if (turn != null) {
        line.end(turn);
      }
      if (line != null) {
        line.leave();
      }
      ticket.close();
      throw e;
    }
  }

  private TurnQueue.Turn<LeaseLine.Grant> takeTurn(LeaseLine line, Instant start, Instant deadline) {
    try {
      String description = describe();
      TurnQueue.Turn<LeaseLine.Grant> turn = line.take(clock, deadline, options.maxRetryInterval(),
          () -> queueing.accept(description));
      if (turn == null) {
        throw new LockTimeoutException(key.value(), line.holderToName(), Duration.between(start, clock.instant()));
      }
      return turn;
    } catch (InterruptedException e) {
      throw new InterruptedOperationException("Cannot acquire " + describe() + " while queued in this JVM", e);
    }
  }

  private Instant deadlineAfter(Instant start) {
    try {
      return start.plus(options.maxWait());
    } catch (ArithmeticException | DateTimeException e) {
      return Instant.MAX;
    }
  }

  @Override
  public Optional<DistributedLock.Held> tryAcquire() {
    LockOrder.Ticket ticket = LockOrder.enter(LockLevel.GLOBAL, describe());
    LeaseLine line = null;
    TurnQueue.Turn<LeaseLine.Grant> turn = null;
    boolean held = false;
    try {
      line = LeaseLine.join(lineKey);
      turn = line.tryTake();
      if (turn == null) {
        return Optional.empty();
      }
      Instant now = clock.instant();
      Optional<LeaseHolding> holding = new LeaseAcquisition(this, line, newNonce(), now, now).tryOnce();
      if (holding.isEmpty()) {
        return Optional.empty();
      }
      line.hold(turn, holding.get());
      held = true;
      return Optional.of(new Held(line, turn, holding.get(), ticket));
    } finally {
      if (!held) {
        if (turn != null) {
          line.end(turn);
        }
        if (line != null) {
          line.leave();
        }
        ticket.close();
      }
    }
  }

  /** Starts holding the lock at {@code version} under {@code record}: registers it for shutdown and starts its heartbeat. */
  LeaseHolding hold(ObjectVersion version, LockInfo record) {
    observed.set(null);
    LeaseHolding holding = new LeaseHolding(this, version, record);
    ShutdownRelease.register(holding);
    try {
      holding.startHeartbeat(heartbeats);
    } catch (RuntimeException | Error e) {
      holding.release();
      throw e;
    }
    return holding;
  }

  /**
   * Returns whether the holder is stale: this lease has itself seen the lock object stay at {@code
   * version} for longer than the holder's ttl (this lease's ttl when the record cannot be read),
   * measured on this process's clock alone ({@link #ticksOf}). The record's own timestamp is never
   * read against our clock: the two clocks may disagree by any amount.
   */
  boolean isStale(ObjectVersion version, Optional<LockInfo> holder) {
    long now = ticks.getAsLong();
    Observation seen = observed.updateAndGet(
        o -> o != null && o.version().equals(version) ? o : new Observation(version, now));
    Duration unchanged = Duration.ofNanos(now - seen.since());
    return unchanged.compareTo(holder.map(LockInfo::ttl).orElse(options.ttl())) > 0;
  }

  /**
   * Makes sure the store passed its precondition self-check before a record is stamped, so that the
   * time the check takes never ages the record it publishes.
   *
   * @throws DatastoreException as the check does
   */
  void ensureStoreChecked() {
    if (datastore instanceof SelfCheckedDatastore guard) {
      guard.ensureChecked();
    }
  }

  /** Records that this lease read the lock at {@code now} and found {@code holder} (null: none, or unreadable). */
  void looked(Instant now, @Nullable LockInfo holder) {
    lookedHolder = holder;
    lookedAt = now;
  }

  /**
   * Returns whether a refused create is followed by a read of the lock: this lease never read it,
   * its last read is a third of the ttl old (so that a record unchanged for a ttl is seen as such),
   * or the holder it last read is a process of this host that is gone ({@link HostProcesses#isGone},
   * no call).
   */
  boolean lookDue(Instant now) {
    Instant at = lookedAt;
    LockInfo holder = lookedHolder;
    return at == null || Duration.between(at, now).compareTo(options.heartbeatInterval()) >= 0
        || (holder != null && processes.isGone(holder));
  }

  /** Records that this lease looked at the reservation at {@code now}, and whether another's held it back. */
  void lookedAtReservation(Instant now, boolean other) {
    heldBack = other;
    reservationLookedAt = now;
  }

  /**
   * Returns whether a contended waiter's next attempt looks at the reservation: it never did, its
   * last look is a third of the ttl old, or another's reservation held it back then.
   */
  boolean reservationLookDue(Instant now) {
    Instant at = reservationLookedAt;
    return at == null || heldBack || Duration.between(at, now).compareTo(options.heartbeatInterval()) >= 0;
  }

  /** Returns whether this lease met contention (a busy lock, a reservation) within the last two ttls. */
  boolean isContended(Instant now) {
    return now.isBefore(contendedUntil);
  }

  /** Records that this lease met contention at {@code now}. */
  void sawContention(Instant now) {
    try {
      contendedUntil = now.plus(options.ttl().multipliedBy(2));
    } catch (ArithmeticException | DateTimeException e) {
      contendedUntil = Instant.MAX;
    }
  }

  /** A waiter reserves the next turn once it waited this many of the lease's measured holds... */
  static final int STARVED_HOLDS = 64;

  /** ... or this long, if that is longer. */
  static final Duration SOONEST_RESERVATION = Duration.ofSeconds(1);

  /**
   * Returns how long an acquisition waits before it reserves the next turn: {@value #STARVED_HOLDS}
   * holds (as {@link LeaseSchedule} measured them) or {@link #SOONEST_RESERVATION} if that is
   * longer, at most twice the maximum retry interval or half the maximum wait. A waiter whose waits
   * grew behind a stream of short holdings (it cannot tell them from one long holder without
   * reading each) so reserves within a second or so, not after seconds more of its peers' turns.
   */
  Duration reserveAfter() {
    Duration twice = options.maxRetryInterval().multipliedBy(2);
    Duration half = options.maxWait().dividedBy(2);
    Duration bound = twice.compareTo(half) < 0 ? twice : half;
    Duration holds = schedule.hold(LeaseAcquisition.SHORTEST_FIRST_WAIT).multipliedBy(STARVED_HOLDS);
    Duration starved = holds.compareTo(SOONEST_RESERVATION) < 0 ? SOONEST_RESERVATION : holds;
    return starved.compareTo(bound) < 0 ? starved : bound;
  }

  @Override
  public Optional<LockInfo> inspect() {
    ReadResult read = datastore.read(key, ReadCondition.always(), LockInfoCodec.MAX_BYTES);
    if (read instanceof ReadResult.Found found) {
      return Optional.of(LockInfoCodec.decode(key.value(), found.bytes()));
    }
    return Optional.empty();
  }

  @Override
  public boolean forceRelease(String nonce) {
    if (nonce.isBlank()) {
      throw new IllegalArgumentException("Cannot force-release " + describe() + ": the nonce is blank");
    }
    boolean maybeDeleted = false;
    for (int round = 0; round < FORCE_RELEASE_ROUNDS; round++) {
      ReadResult read = datastore.read(key, ReadCondition.always(), LockInfoCodec.MAX_BYTES);
      if (!(read instanceof ReadResult.Found found)) {
        return maybeDeleted;
      }
      Optional<LockInfo> holder = LockInfoCodec.tryDecode(key.value(), found.bytes());
      if (holder.isEmpty() || !holder.get().nonce().equals(nonce)) {
        return maybeDeleted;
      }
      try {
        DeleteResult result = datastore.delete(key, WriteCondition.mustMatch(found.object().version()));
        if (result == DeleteResult.DELETED) {
          LOG.warn("Force-released {} held by {} (pid {}, nonce {})", describe(), holder.get().holder(),
              holder.get().pid(), nonce);
          return true;
        }
        if (result == DeleteResult.ABSENT) {
          return false;
        }
      } catch (OutcomeUnknownException e) {
        maybeDeleted = true;
      }
    }
    return false;
  }

  /** Returns a record of this lease's holder at {@code now}, naming its process start time when known. */
  LockInfo recordAt(Instant now, String nonce) {
    LockInfo record = new LockInfo(identity.holder(), identity.hostname(), identity.pid(), now, options.ttl(), nonce);
    if (processStart == null) {
      return record;
    }
    LockInfo started = record.withProcessStart(processStart);
    return processNamespace == null ? started : started.withProcessNamespace(processNamespace);
  }

  private String newNonce() {
    String nonce = nonces.get();
    if (!NONCE.matcher(nonce).matches()) {
      throw new IllegalStateException("Cannot acquire " + describe() + ": the nonce supplier returned \""
          + nonce + "\", which does not match " + NONCE.pattern());
    }
    return nonce;
  }

  /** Draws the next jitter unit, under the random source's own lock. */
  double nextUnit() {
    synchronized (random) {
      return random.nextDouble();
    }
  }

  /**
   * One lease handed to one caller: a turn of its {@link LeaseLine} riding on a remote {@link
   * LeaseHolding}. Every acquisition gets its own, also when the holding is handed over from the
   * turn before, so closing one twice, or closing one whose turn has passed, never touches the next
   * caller's: only the first release of the turn that owns the line ends it (handing the holding
   * on, or releasing it remotely). Thread-safe.
   */
  static final class Held implements DistributedLock.Held {

    private final LeaseLine line;
    private final TurnQueue.Turn<LeaseLine.Grant> turn;
    private final LeaseHolding holding;
    private final LockOrder.Ticket ticket;
    private final AtomicBoolean released = new AtomicBoolean();

    Held(LeaseLine line, TurnQueue.Turn<LeaseLine.Grant> turn, LeaseHolding holding, LockOrder.Ticket ticket) {
      this.line = line;
      this.turn = turn;
      this.holding = holding;
      this.ticket = ticket;
    }

    @Override
    public LockInfo info() {
      return holding.info();
    }

    @Override
    public boolean isHeld() {
      return !released.get() && holding.isHeld();
    }

    @Override
    public void release() {
      if (!released.compareAndSet(false, true)) {
        return;
      }
      try {
        LeaseHolding detached = line.handOverOrDetach(turn);
        if (detached != null) {
          try {
            detached.release();
          } finally {
            line.end(turn);
          }
        }
      } finally {
        try {
          ticket.close();
        } finally {
          line.leave();
        }
      }
    }

    @Override
    public String toString() {
      return (released.get() ? "released " : "") + holding;
    }
  }
}
