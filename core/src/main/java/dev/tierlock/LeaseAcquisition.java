package dev.tierlock;

import dev.tierlock.internal.Backoff;
import dev.tierlock.spi.DatastoreBusyException;
import dev.tierlock.spi.DatastoreException;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.OutcomeUnknownException;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquisition of a {@link Lease}'s remote lock, by the thread whose turn it is in its {@link
 * LeaseLine}: the attempts (a create-only write, a look at the holder, a takeover of a stale or
 * dead one), the waits between them and the reservation of the next turn ({@link
 * LeaseReservation}); see {@link Lease} for the protocol.
 *
 * <p><b>Waits between attempts.</b> Each wait is drawn uniformly from [0, cap] (full jitter). The
 * first cap is the duration of the acquisition's first attempt as the lock's clock measured it
 * (near the store's round trip; at least 1 ms, at most the retry interval); each next cap is twice
 * the last, up to the maximum retry interval, while the attempts find one holder; an attempt that
 * finds the lock changed hands (another holder, or none) starts the caps again from the first (a
 * reserver for its first 256 turnovers only), so a waiter behind a stream of short holdings keeps
 * polling near the round trip (and so keeps an even chance against the one just released) instead
 * of backing off to seconds; no wait runs past the maximum wait.
 *
 * <p>Not thread-safe: one per acquisition.
 */
final class LeaseAcquisition {

  private static final Logger LOG = LoggerFactory.getLogger(Lease.class);

  /** The smallest first cap of the waits: a round trip the lock's clock cannot see starts here. */
  static final Duration SHORTEST_FIRST_WAIT = Duration.ofMillis(1);

  /**
   * How many times a waiter sees the lock change hands before it reserves the next turn: past this
   * it is losing more races than chance among a dozen or so contenders explains (among 16 waiters
   * drawn at random, about one wait in 60 runs this long).
   */
  static final int RESERVE_AFTER_TURNOVERS = 64;

  /** How many turnovers restart a reserver's waits from the first cap; past them they keep growing. */
  static final int RESERVED_RESTARTS = 256;

  /** What one attempt found. */
  private sealed interface Attempt {
    record Acquired(LeaseHolding lease) implements Attempt {}

    record Busy(@Nullable LockInfo holder) implements Attempt {}

    record HeldBack(LockInfo reserver) implements Attempt {}

    record Failed(DatastoreException failure) implements Attempt {}
  }

  /** Whether a stale holder may be taken over in this step. */
  private enum TakeOver { IF_STALE, NEVER }

  private final Lease lock;
  private final LeaseLine line;
  private final String nonce;
  private final Instant start;
  private final Instant deadline;
  private boolean maybeWritten;
  private @Nullable ObjectVersion reserved;
  private Instant reservedAt = Instant.MIN;
  private @Nullable String heldBackBy;
  private int turnovers;
  private int reservedTurnovers;
  /** The holder the attempts of {@link #acquire} last saw. */
  private @Nullable LockInfo lastHolder;

  LeaseAcquisition(Lease lock, LeaseLine line, String nonce, Instant start, Instant deadline) {
    this.lock = lock;
    this.line = line;
    this.nonce = nonce;
    this.start = start;
    this.deadline = deadline;
  }

  /** Tries once, without waiting or reserving: the lease, or empty when a live holder or a reservation keeps it. */
  Optional<LeaseHolding> tryOnce() {
    Attempt attempt = attempt();
    if (attempt instanceof Attempt.Acquired acquired) {
      return Optional.of(acquired.lease());
    }
    if (attempt instanceof Attempt.Failed failed) {
      throw failed.failure();
    }
    return Optional.empty();
  }

  /**
   * Acquires the lock, waiting until the deadline: the first wait capped near the first attempt's
   * own duration, full jitter, the cap doubling up to the maximum retry interval.
   *
   * @throws LockTimeoutException if the deadline passed first
   * @throws DatastoreException if the store fails in a way waiting cannot fix, or never answered
   */
  LeaseHolding acquire() {
    @Nullable DatastoreException lastFailure = null;
    boolean reachedStore = false;
    int attempts = 0;
    @Nullable Duration firstCap = null;
    @Nullable Backoff backoff = null;
    boolean reservedSchedule = false;
    turnovers = 0;
    reservedTurnovers = 0;
    lastHolder = null;
    try {
      while (true) {
        attempts++;
        Instant before = lock.clock.instant();
        Attempt attempt = attempt();
        Instant now = lock.clock.instant();
        if (firstCap == null) {
          firstCap = firstCap(Duration.between(before, now));
        }
        if (attempt instanceof Attempt.Acquired acquired) {
          if (attempts > 1) {
            LOG.info("Acquired {} after {} attempts", lock.describe(), attempts);
          }
          return acquired.lease();
        }
        if (attempt instanceof Attempt.Busy busy) {
          reachedStore = true;
          lastFailure = null;
          if (sawBusy(busy.holder(), now)) {
            backoff = null;
          }
          reserveIfStarved(now);
        } else if (attempt instanceof Attempt.HeldBack) {
          reachedStore = true;
          lastFailure = null;
        } else if (attempt instanceof Attempt.Failed failed) {
          lastFailure = failed.failure();
          LOG.debug("Attempt on {} failed; retrying within the wait", lock.describe(), lastFailure);
        }
        Duration remaining = Duration.between(now, deadline);
        if (remaining.isNegative() || remaining.isZero()) {
          return giveUp(lastHolder, lastFailure, reachedStore, Duration.between(start, now));
        }
        if (backoff == null || reservedSchedule != (reserved != null)) {
          reservedSchedule = reserved != null;
          backoff = Backoff.fullJitter(firstCap, reservedSchedule ? reservedCap(firstCap) : lock.options.maxRetryInterval(),
              lock::nextUnit);
        }
        sleep(paced(attempt, backoff.next(remaining), remaining));
        line.poke();
      }
    } finally {
      if (reserved != null) {
        lock.reservations.remove(reserved, nonce);
        reserved = null;
      }
    }
  }

  /**
   * Takes in a busy lock held by {@code holder} (null when it was gone or unreadable): logs the wait,
   * remembers the holder, and counts a turnover when the lock changed hands.
   *
   * @return whether the waits start again from the first cap: the lock changes hands, so it comes
   *     free about as often as we see it move, instead of growing as they do behind one long holder;
   *     a reserver does so for its first {@link #RESERVED_RESTARTS} turnovers only (contended peers
   *     hold back for it, so it sees few; more mean holders that ignore reservations, which must not
   *     make it poll at the round trip until its deadline)
   */
  private boolean sawBusy(@Nullable LockInfo holder, Instant now) {
    LockInfo last = lastHolder;
    boolean turnedOver = holder == null || (last != null && !last.nonce().equals(holder.nonce()));
    if (holder != null) {
      if (last == null) {
        LOG.info("Waiting up to {} s for {}, held by {} on {} (pid {}, nonce {}) since {}",
            secondsLeft(now, deadline), lock.describe(), holder.holder(),
            holder.hostname(), holder.pid(), holder.nonce(), holder.acquiredAt());
      } else if (turnedOver) {
        LOG.debug("Still waiting for {}, now held by {} (nonce {})", lock.describe(), holder.holder(), holder.nonce());
      }
      lastHolder = holder;
      line.saw(holder);
    }
    if (!turnedOver) {
      return false;
    }
    turnovers++;
    return reserved == null || reservedTurnovers++ < RESERVED_RESTARTS;
  }

  /**
   * Returns {@code wait}, or, after an attempt refused for the store's per-object rate (GCS: one
   * write a second), at least the store's write interval, within {@code remaining}: sooner is
   * refused again.
   */
  private Duration paced(Attempt attempt, Duration wait, Duration remaining) {
    if (attempt instanceof Attempt.Failed failed && failed.failure() instanceof DatastoreBusyException) {
      Duration interval = lock.datastore.minWriteInterval();
      if (wait.compareTo(interval) < 0) {
        return interval.compareTo(remaining) > 0 ? remaining : interval;
      }
    }
    return wait;
  }

  /** The first cap: the attempt's own duration, at least {@link #SHORTEST_FIRST_WAIT}, at most the retry interval. */
  private Duration firstCap(Duration attempt) {
    Duration low = attempt.compareTo(SHORTEST_FIRST_WAIT) < 0 ? SHORTEST_FIRST_WAIT : attempt;
    return low.compareTo(lock.options.retryInterval()) > 0 ? lock.options.retryInterval() : low;
  }

  /** The cap of a reserver's waits: the retry interval, or a third of the ttl if shorter, never under the first cap. */
  private Duration reservedCap(Duration first) {
    Duration cap = lock.options.retryInterval().compareTo(lock.options.heartbeatInterval()) < 0
        ? lock.options.retryInterval() : lock.options.heartbeatInterval();
    return cap.compareTo(first) < 0 ? first : cap;
  }

  private LeaseHolding giveUp(@Nullable LockInfo lastHolder, @Nullable DatastoreException lastFailure, boolean reachedStore,
      Duration waited) {
    if (maybeWritten) {
      try {
        Attempt last = readAndDecide(TakeOver.NEVER);
        if (last instanceof Attempt.Acquired acquired) {
          return acquired.lease();
        }
      } catch (DatastoreException e) {
        LOG.warn("Giving up on {}: a lock record written with nonce {} may remain until its ttl of {} passes",
            lock.describe(), nonce, lock.options.ttl(), e);
      }
    }
    if (lastFailure != null && !reachedStore) {
      throw lastFailure;
    }
    LockTimeoutException timeout = new LockTimeoutException(lock.key.value(), lastHolder, waited);
    if (lastFailure != null) {
      timeout.addSuppressed(lastFailure);
    }
    throw timeout;
  }

  /**
   * One attempt, once the store passed its self-check (so that our record is stamped after it). A
   * contended acquirer first looks at the reservation (or refreshes its own) and
   * holds back for another's fresh one; then one create-only write and, if the lock exists, one look
   * at its holder (and a takeover if it is stale or its process is gone).
   */
  private Attempt attempt() {
    try {
      lock.ensureStoreChecked();
    } catch (DatastoreUnavailableException | DatastoreBusyException | OutcomeUnknownException e) {
      return new Attempt.Failed(e);
    }
    Instant now = lock.clock.instant();
    try {
      if (reserved != null) {
        refreshReservationIfDue(now);
      } else if (lock.isContended(now)) {
        LeaseReservation.Look look = lock.reservations.look(nonce);
        if (look instanceof LeaseReservation.Look.Other other) {
          lock.sawContention(now);
          if (!other.reserver().nonce().equals(heldBackBy)) {
            heldBackBy = other.reserver().nonce();
            LOG.debug("Holding back from {}: {} on {} (pid {}, nonce {}) has waited longest and reserved the next turn",
                lock.describe(), other.reserver().holder(), other.reserver().hostname(), other.reserver().pid(),
                other.reserver().nonce());
          }
          return new Attempt.HeldBack(other.reserver());
        }
        if (look instanceof LeaseReservation.Look.Mine mine) {
          reserved = mine.version();
          reservedAt = now;
        }
      }
    } catch (DatastoreUnavailableException | DatastoreBusyException | OutcomeUnknownException e) {
      return new Attempt.Failed(e);
    }
    LockInfo mine = lock.recordAt(now, nonce);
    try {
      WriteResult result = lock.datastore.write(lock.key, ObjectBody.of(LockInfoCodec.encode(mine)),
          WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);
      if (result instanceof WriteResult.Written written) {
        return new Attempt.Acquired(lock.hold(written.version(), mine));
      }
      lock.sawContention(now);
    } catch (OutcomeUnknownException e) {
      maybeWritten = true;
      LOG.debug("Create of {} had no answer; reading it back", lock.describe(), e);
    } catch (DatastoreUnavailableException | DatastoreBusyException e) {
      // busy: refused for the store's per-object rate (GCS), the wait below respects it
      return new Attempt.Failed(e);
    }
    try {
      return readAndDecide(TakeOver.IF_STALE);
    } catch (DatastoreUnavailableException | DatastoreBusyException | OutcomeUnknownException e) {
      return new Attempt.Failed(e);
    }
  }

  /**
   * Reads the lock and decides: our own record (from a write whose answer was lost) is ours; a
   * stale one, or one whose process is gone from this host, is taken over when allowed; anything
   * else is busy.
   */
  private Attempt readAndDecide(TakeOver takeOver) {
    ReadResult read = lock.datastore.read(lock.key, ReadCondition.always(), LockInfoCodec.MAX_BYTES);
    if (!(read instanceof ReadResult.Found found)) {
      return new Attempt.Busy(null);
    }
    Optional<LockInfo> holder = LockInfoCodec.tryDecode(lock.key.value(), found.bytes());
    ObjectVersion version = found.object().version();
    if (holder.isPresent() && holder.get().nonce().equals(nonce)) {
      LOG.info("Found {} already holding our nonce {} after an unanswered write; holding it", lock.describe(), nonce);
      return new Attempt.Acquired(lock.hold(version, holder.get()));
    }
    if (takeOver == TakeOver.IF_STALE) {
      if (holder.isPresent() && lock.processes.isGone(holder.get())) {
        return takeOver(version, holder.get(), "whose process is gone from this host");
      }
      if (lock.isStale(version, holder)) {
        return takeOver(version, holder.orElse(null), "whose lease is stale");
      }
    }
    return new Attempt.Busy(holder.orElse(null));
  }

  private Attempt takeOver(ObjectVersion staleVersion, @Nullable LockInfo stale, String why) {
    LockInfo mine = lock.recordAt(lock.clock.instant(), nonce);
    try {
      WriteResult result = lock.datastore.write(lock.key, ObjectBody.of(LockInfoCodec.encode(mine)),
          WriteCondition.mustMatch(staleVersion), ObjectMetadata.EMPTY);
      if (result instanceof WriteResult.Written written) {
        LOG.warn("Took over {} from {} {}", lock.describe(),
            stale == null ? "an unreadable record at version " + staleVersion
                : stale.holder() + " (pid " + stale.pid() + ", nonce " + stale.nonce() + ", refreshed " + stale.acquiredAt() + ")",
            why);
        return new Attempt.Acquired(lock.hold(written.version(), mine));
      }
      return new Attempt.Busy(stale);
    } catch (OutcomeUnknownException e) {
      maybeWritten = true;
      return readAndDecide(TakeOver.NEVER);
    }
  }

  /**
   * Claims the reservation of the next turn once this acquisition has waited past the lock's bound:
   * longer than {@link Lease#reserveAfter()}, or through {@link #RESERVE_AFTER_TURNOVERS} turns
   * of other holders.
   */
  private void reserveIfStarved(Instant now) {
    if (reserved != null || (turnovers < RESERVE_AFTER_TURNOVERS
        && Duration.between(start, now).compareTo(lock.reserveAfter()) <= 0)) {
      return;
    }
    try {
      Optional<ObjectVersion> claimed = lock.reservations.claim(lock.recordAt(now, nonce));
      if (claimed.isPresent()) {
        reserved = claimed.get();
        reservedAt = now;
        LOG.debug("Reserved the next turn of {} after waiting {} ms (nonce {})", lock.describe(),
            Duration.between(start, now).toMillis(), nonce);
      }
    } catch (DatastoreUnavailableException | DatastoreBusyException e) {
      LOG.debug("Cannot reserve the next turn of {}; trying again on the next attempt", lock.describe(), e);
    }
  }

  /** Refreshes our reservation when a third of its ttl has passed since we wrote it. */
  private void refreshReservationIfDue(Instant now) {
    ObjectVersion version = reserved;
    if (version == null || Duration.between(reservedAt, now).compareTo(lock.options.heartbeatInterval()) < 0) {
      return;
    }
    Optional<ObjectVersion> refreshed;
    try {
      refreshed = lock.reservations.refresh(version, lock.recordAt(now, nonce));
    } catch (DatastoreUnavailableException | DatastoreBusyException | OutcomeUnknownException e) {
      LOG.debug("Cannot refresh the reservation of {}; trying again on the next attempt", lock.describe(), e);
      return;
    }
    if (refreshed.isPresent()) {
      reserved = refreshed.get();
      reservedAt = now;
    } else {
      reserved = null;
      LOG.debug("Lost the reservation of the next turn of {} (nonce {}): it expired and was removed", lock.describe(), nonce);
    }
  }

  /** {@return the whole seconds from {@code now} to {@code deadline}, rounded up: a wait of 0.9 s is 1 s} */
  static long secondsLeft(Instant now, Instant deadline) {
    long millis = Math.max(0, Duration.between(now, deadline).toMillis());
    return (millis + 999) / 1000;
  }

  private void sleep(Duration duration) {
    try {
      lock.sleeper.sleep(duration);
    } catch (InterruptedException e) {
      if (maybeWritten) {
        LOG.warn("Interrupted while acquiring {}: a record with nonce {} may remain until its ttl of {} passes",
            lock.describe(), nonce, lock.options.ttl());
      }
      throw new InterruptedOperationException("Cannot acquire " + lock.describe(), e);
    }
  }
}
