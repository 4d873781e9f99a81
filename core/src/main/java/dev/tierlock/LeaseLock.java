package dev.tierlock;

import dev.tierlock.spi.Datastore;
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
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lease lock over a {@link Datastore}; see {@link LeaseLocks} for the protocol. Thread-safe: its
 * state is its configuration, one observation of the lock object (used to judge a record that
 * never changes), one of the reservation, and when it last met contention, shared by every
 * acquisition through it. Its callers queue in the {@link LeaseLine} of its store, key and
 * identity; the one whose turn it is runs a {@link LeaseAcquisition}.
 */
final class LeaseLock implements DistributedLock {

  private static final Logger LOG = LoggerFactory.getLogger(LeaseLock.class);
  private static final Pattern NONCE = Pattern.compile("[A-Za-z0-9-]{1,128}");
  private static final int FORCE_RELEASE_ROUNDS = 3;

  /**
   * How far one remote holding may be handed over in this JVM before it is released remotely.
   *
   * @param leases the most consecutive handovers
   * @param held the longest the holding may have been held, since its remote acquisition, when it
   *     is handed over
   */
  record HandoverBudget(int leases, Duration held) {}

  final Datastore datastore;
  final ObjectKey key;
  final LockOptions options;
  final Clock clock;
  final Sleeper sleeper;
  final HostProcesses processes;
  final HandoverBudget budget;
  final LeaseReservation reservations;
  private final RandomGenerator random;
  private final LockIdentity identity;
  private final @Nullable Instant processStart;
  private final Supplier<String> nonces;
  private final Heartbeats heartbeats;
  private final LeaseLine.Key lineKey;
  private final AtomicReference<@Nullable Observation> observed = new AtomicReference<>();
  private volatile Instant contendedUntil = Instant.MIN;

  LeaseLock(Datastore datastore, ObjectKey key, LockOptions options, Clock clock, Sleeper sleeper,
      RandomGenerator random, LockIdentity identity, Supplier<String> nonces, Heartbeats heartbeats,
      HostProcesses processes, HandoverBudget budget) {
    this.datastore = datastore;
    this.key = key;
    this.options = options;
    this.clock = clock;
    this.sleeper = sleeper;
    this.random = random;
    this.identity = identity;
    this.nonces = nonces;
    this.heartbeats = heartbeats;
    this.processes = processes;
    this.budget = budget;
    this.processStart = identity.hostname().equals(processes.hostname())
        ? processes.startOf(identity.pid()).orElse(null) : null;
    this.reservations = new LeaseReservation(this);
    this.lineKey = new LeaseLine.Key(datastore.identity(), key, identity);
  }

  /** A version of the lock object and when this lock first saw it. */
  private record Observation(ObjectVersion version, Instant since) {}

  @Override
  public String describe() {
    return "lock \"" + key + "\" on " + datastore.describe();
  }

  @Override
  public LockLease acquire() {
    LockOrder.Ticket ticket = LockOrder.enter(LockLevel.GLOBAL, describe());
    LeaseLine line = null;
    LeaseLine.Turn turn = null;
    try {
      Instant start = clock.instant();
      Instant deadline = deadlineAfter(start);
      line = LeaseLine.join(lineKey);
      turn = takeTurn(line, start, deadline);
      HeldLease handed = turn.handed();
      if (handed != null) {
        if (handed.isHeld()) {
          handed.lendTo(datastore);
          return new LeaseTurn(line, turn, handed, ticket);
        }
        line.drop(turn);
        handed.release();
      }
      if (turn.yielded()) {
        sawContention(clock.instant());
      }
      HeldLease holding = new LeaseAcquisition(this, line, newNonce(), start, deadline).acquire();
      line.hold(turn, holding);
      return new LeaseTurn(line, turn, holding, ticket);
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

  private LeaseLine.Turn takeTurn(LeaseLine line, Instant start, Instant deadline) {
    try {
      LeaseLine.Turn turn = line.take(clock, deadline, options.maxRetryInterval());
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
  public Optional<LockLease> tryAcquire() {
    LockOrder.Ticket ticket = LockOrder.enter(LockLevel.GLOBAL, describe());
    LeaseLine line = null;
    LeaseLine.Turn turn = null;
    boolean held = false;
    try {
      line = LeaseLine.join(lineKey);
      turn = line.tryTake();
      if (turn == null) {
        return Optional.empty();
      }
      Instant now = clock.instant();
      Optional<HeldLease> holding = new LeaseAcquisition(this, line, newNonce(), now, now).tryOnce();
      if (holding.isEmpty()) {
        return Optional.empty();
      }
      line.hold(turn, holding.get());
      held = true;
      return Optional.of(new LeaseTurn(line, turn, holding.get(), ticket));
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
  HeldLease hold(ObjectVersion version, LockInfo record) {
    observed.set(null);
    HeldLease lease = new HeldLease(this, version, record);
    ShutdownRelease.register(lease);
    try {
      lease.startHeartbeat(heartbeats);
    } catch (RuntimeException | Error e) {
      lease.release();
      throw e;
    }
    return lease;
  }

  /**
   * Returns whether the holder is stale: its version unchanged for longer than its ttl since this
   * lock first saw it (whatever the record says, even when it cannot be read; measured on our clock
   * alone, so immune to skew, and it also defeats a holder whose clock runs ahead), or its record
   * older than twice its ttl by our clock ({@link LockInfo#isStaleAt}), so a lock abandoned long ago
   * is taken over at first sight while a live holder whose clock lags ours by up to about 5/3 ttl is
   * not.
   */
  boolean isStale(ObjectVersion version, Optional<LockInfo> holder) {
    Instant now = clock.instant();
    Observation seen = observed.updateAndGet(
        o -> o != null && o.version().equals(version) ? o : new Observation(version, now));
    Duration unchanged = Duration.between(seen.since(), now);
    if (holder.isPresent()) {
      return holder.get().isStaleAt(now) || unchanged.compareTo(holder.get().ttl()) > 0;
    }
    return unchanged.compareTo(options.ttl()) > 0;
  }

  /** Returns whether this lock met contention (a busy lock, a reservation) within the last two ttls. */
  boolean isContended(Instant now) {
    return now.isBefore(contendedUntil);
  }

  /** Records that this lock met contention at {@code now}. */
  void sawContention(Instant now) {
    try {
      contendedUntil = now.plus(options.ttl().multipliedBy(2));
    } catch (ArithmeticException | DateTimeException e) {
      contendedUntil = Instant.MAX;
    }
  }

  /**
   * Returns how long an acquisition waits before it reserves the next turn: twice the maximum retry
   * interval, or half the maximum wait if that is shorter.
   */
  Duration reserveAfter() {
    Duration twice = options.maxRetryInterval().multipliedBy(2);
    Duration half = options.maxWait().dividedBy(2);
    return twice.compareTo(half) < 0 ? twice : half;
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

  /** Returns a record of this lock's holder at {@code now}, naming its process start time when known. */
  LockInfo recordAt(Instant now, String nonce) {
    LockInfo record = new LockInfo(identity.holder(), identity.hostname(), identity.pid(), now, options.ttl(), nonce);
    return processStart == null ? record : record.withProcessStart(processStart);
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
}
