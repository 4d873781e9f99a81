package dev.tierlock;

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
 * LeaseLine}: the attempts, the waits between them and the reservation of the next turn ({@link
 * LeaseReservation}); see {@link Lease} for the protocol.
 *
 * <p><b>One call an attempt.</b> Each attempt of {@link #acquire} is one call: a create-only write
 * of our record ({@code CREATE}), a read of the lock ({@code LOOK}: its holder, and a takeover
 * when it is stale or its process is gone, the takeover a second call) or a call on the
 * reservation ({@code RESERVATION}: a look, a claim or a refresh). A refused create is not followed
 * by a read of the holder; the lock is read only when the lease has a reason to: it never read it,
 * its last read is a third of the ttl old (so a record unchanged for a ttl is still seen as such,
 * within a third of a ttl), the holder it last read is a process of this host that is gone, or a
 * create's answer was lost. A contended waiter looks at the reservation once a third of the ttl,
 * and on every attempt while another's fresh reservation holds it back; a starved waiter claims it
 * (a look and, when it is free, the claim), a reserver refreshes it every third of the ttl. After
 * a look that found the lock free the create follows at once.
 *
 * <p><b>Waits between attempts</b> follow the lease's {@link LeaseSchedule}: they scale with the
 * hold and the queue wait the lease measured, not with the store's round trip, and nothing starts
 * again when the lock changes hands; no wait runs past the maximum wait.
 *
 * <p>Not thread-safe: one per acquisition.
 */
final class LeaseAcquisition {

  private static final Logger LOG = LoggerFactory.getLogger(Lease.class);

  /** The smallest hold before one is measured: a round trip the lock's clock cannot see starts here. */
  static final Duration SHORTEST_FIRST_WAIT = Duration.ofMillis(1);

  /** What one attempt found. */
  private sealed interface Attempt {
    record Acquired(LeaseHolding lease) implements Attempt {}

    record Busy(@Nullable LockInfo holder) implements Attempt {}

    record HeldBack(LockInfo reserver) implements Attempt {}

    /** The reservation lets this waiter create now. */
    record Cleared() implements Attempt {}

    /** The lock was found free: create now. */
    record Free() implements Attempt {}

    record Failed(DatastoreException failure) implements Attempt {}
  }

  /** The one call an attempt makes. */
  private enum Step { CREATE, LOOK, RESERVATION }

  /** Whether a stale holder may be taken over in this step. */
  private enum TakeOver { IF_STALE, NEVER }

  private final Lease lock;
  private final LeaseLine line;
  private final String nonce;
  private final Instant start;
  private final Instant deadline;
  private boolean maybeWritten;
  /** A create's answer was lost and no look has told since. */
  private boolean unresolved;
  private @Nullable ObjectVersion reserved;
  private Instant reservedAt = Instant.MIN;
  /** When this acquisition first claimed the reservation: the reserver's waits grow from there. */
  private Instant reservedSince = Instant.MIN;
  private @Nullable String heldBackBy;
  /** The holder the looks of this acquisition last saw. */
  private @Nullable LockInfo lastHolder;

  LeaseAcquisition(Lease lock, LeaseLine line, String nonce, Instant start, Instant deadline) {
    this.lock = lock;
    this.line = line;
    this.nonce = nonce;
    this.start = start;
    this.deadline = deadline;
  }

  /**
   * Tries once, without waiting or reserving: the lease, or empty when a live holder or a
   * reservation keeps it. A contended caller first looks at the reservation; a refused create is
   * followed by one read of the holder (a takeover if it is stale or its process is gone).
   */
  Optional<LeaseHolding> tryOnce() {
    Attempt attempt = check();
    if (attempt == null && lock.isContended(lock.clock.instant())) {
      attempt = lookAtReservation(lock.clock.instant());
      attempt = attempt instanceof Attempt.HeldBack ? attempt : null;
    }
    if (attempt == null) {
      attempt = create();
      if (attempt instanceof Attempt.Busy) {
        attempt = look();
      }
    }
    if (attempt instanceof Attempt.Acquired acquired) {
      return Optional.of(acquired.lease());
    }
    if (attempt instanceof Attempt.Failed failed) {
      throw failed.failure();
    }
    return Optional.empty();
  }

  /**
   * Acquires the lock, waiting until the deadline: one call an attempt, the waits by the lease's
   * {@link LeaseSchedule}.
   *
   * @throws LockTimeoutException if the deadline passed first
   * @throws DatastoreException if the store fails in a way waiting cannot fix, or never answered
   */
  LeaseHolding acquire() {
    @Nullable DatastoreException lastFailure = null;
    boolean reachedStore = false;
    int attempts = 0;
    int pastDeadline = 0;
    @Nullable Duration fallbackHold = null;
    @Nullable Duration firstPoint = null;
    @Nullable Instant first = null;
    Step step = Step.CREATE;
    lastHolder = null;
    try {
      while (true) {
        attempts++;
        Instant before = lock.clock.instant();
        if (first == null) {
          first = before;
        }
        Attempt attempt = attempt(step, before);
        Instant now = lock.clock.instant();
        if (fallbackHold == null) {
          fallbackHold = firstCap(Duration.between(before, now));
        }
        if (attempt instanceof Attempt.Acquired acquired) {
          lock.schedule.waited(Duration.between(first, before));
          LOG.debug("Acquired {} after {} attempts", lock.describe(), attempts);
          return acquired.lease();
        }
        if (attempt instanceof Attempt.Failed failed) {
          lastFailure = failed.failure();
          LOG.debug("Attempt on {} failed; retrying within the wait", lock.describe(), lastFailure);
        } else if (step != Step.RESERVATION) {
          // only the lock's own key answering counts: a reservation answering while every write of
          // the lock is refused (its key's OS lock held elsewhere) is still the store being busy
          reachedStore = true;
          lastFailure = null;
        }
        if (attempt instanceof Attempt.Busy busy && busy.holder() != null) {
          sawBusy(busy.holder(), now);
        }
        Duration remaining = Duration.between(now, deadline);
        boolean due = remaining.isNegative() || remaining.isZero();
        Step at = atOnce(step, attempt, now);
        // a step taken at once waits for nothing: the look a refused create is due (a holder whose
        // process is gone is taken over even with no wait left), and the create after a look that
        // found the lock free, at most twice past the deadline
        if (at != null && (!due || pastDeadline++ < 2)) {
          step = at;
          continue;
        }
        if (due) {
          return giveUp(lastFailure, reachedStore, Duration.between(start, now));
        }
        if (firstPoint == null) {
          firstPoint = lock.schedule.firstPoint(lock.nextUnit());
        }
        Duration wait = lock.schedule.next(Duration.between(first, now), firstPoint,
            reserved == null ? null : Duration.between(reservedSince, now), fallbackHold, lock.nextUnit(), lock.options,
            remaining);
        sleep(paced(attempt, wait, remaining));
        line.poke();
        step = reservationDue(lock.clock.instant()) ? Step.RESERVATION : Step.CREATE;
      }
    } finally {
      if (reserved != null) {
        lock.reservations.remove(reserved, nonce);
        reserved = null;
      }
    }
  }

  /** Makes the one call of {@code step}, once the store passed its self-check. */
  private Attempt attempt(Step step, Instant now) {
    Attempt checked = check();
    if (checked != null) {
      return checked;
    }
    return switch (step) {
      case CREATE -> create();
      case LOOK -> look();
      case RESERVATION -> lookAtReservation(now);
    };
  }

  /**
   * Returns the step to take at once, without a wait, after {@code attempt} of {@code step}: a look
   * after a refused create when one is due ({@link Lease#lookDue}) or its answer was lost; a create
   * after a look that found the lock free or a reservation that lets us go ahead; else null.
   */
  private @Nullable Step atOnce(Step step, Attempt attempt, Instant now) {
    if (attempt instanceof Attempt.Free) {
      return Step.CREATE;
    }
    if (step == Step.CREATE && attempt instanceof Attempt.Busy && (unresolved || lock.lookDue(now))) {
      return Step.LOOK;
    }
    return null;
  }

  /** Returns whether the next attempt after a wait is a call on the reservation rather than a create. */
  private boolean reservationDue(Instant now) {
    if (reserved != null) {
      return Duration.between(reservedAt, now).compareTo(lock.options.heartbeatInterval()) >= 0;
    }
    return starved(now) || (lock.isContended(now) && lock.reservationLookDue(now));
  }

  /** Returns whether this acquisition has waited past the lock's bound ({@link Lease#reserveAfter()}). */
  private boolean starved(Instant now) {
    return Duration.between(start, now).compareTo(lock.reserveAfter()) > 0;
  }

  /** Takes in a busy lock held by {@code holder}: logs the wait and remembers the holder. */
  private void sawBusy(LockInfo holder, Instant now) {
    LockInfo last = lastHolder;
    if (last == null) {
      LOG.info("Waiting up to {} s for {}, held by {} on {} (pid {}, nonce {}) since {}",
          secondsLeft(now, deadline), lock.describe(), holder.holder(),
          holder.hostname(), holder.pid(), holder.nonce(), holder.acquiredAt());
    } else if (!last.nonce().equals(holder.nonce())) {
      LOG.debug("Still waiting for {}, now held by {} (nonce {})", lock.describe(), holder.holder(), holder.nonce());
    }
    lastHolder = holder;
    line.saw(holder);
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

  /**
   * Gives up at the deadline: a last look resolves a create whose answer was lost (our record is
   * ours) and names the holder when this acquisition never read it.
   */
  private LeaseHolding giveUp(@Nullable DatastoreException lastFailure, boolean reachedStore, Duration waited) {
    if (maybeWritten || (reachedStore && lastHolder == null)) {
      try {
        Attempt last = readAndDecide(TakeOver.NEVER);
        if (last instanceof Attempt.Acquired acquired) {
          return acquired.lease();
        }
        if (last instanceof Attempt.Busy busy && busy.holder() != null) {
          lastHolder = busy.holder();
        }
      } catch (DatastoreException e) {
        if (maybeWritten) {
          LOG.warn("Giving up on {}: a lock record written with nonce {} may remain until its ttl of {} passes",
              lock.describe(), nonce, lock.options.ttl(), e);
        }
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
   * Makes sure the store passed its self-check, so that our record is stamped after it.
   *
   * @return null when it did, else the failure
   */
  private @Nullable Attempt check() {
    try {
      lock.ensureStoreChecked();
      return null;
    } catch (DatastoreUnavailableException | DatastoreBusyException | OutcomeUnknownException e) {
      return new Attempt.Failed(e);
    }
  }

  /** One create-only write of our record: acquired, or busy (holder unknown) when refused or unanswered. */
  private Attempt create() {
    Instant now = lock.clock.instant();
    LockInfo mine = lock.recordAt(now, nonce);
    try {
      WriteResult result = lock.datastore.write(lock.key, ObjectBody.of(LockInfoCodec.encode(mine)),
          WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);
      if (result instanceof WriteResult.Written written) {
        return new Attempt.Acquired(lock.hold(written.version(), mine));
      }
      lock.sawContention(now);
      return new Attempt.Busy(null);
    } catch (OutcomeUnknownException e) {
      maybeWritten = true;
      unresolved = true;
      LOG.debug("Create of {} had no answer; reading it back", lock.describe(), e);
      return new Attempt.Busy(null);
    } catch (DatastoreUnavailableException | DatastoreBusyException e) {
      // busy: refused for the store's per-object rate (GCS), the wait respects it
      return new Attempt.Failed(e);
    }
  }

  /** One read of the lock, deciding as {@link #readAndDecide} does with takeovers allowed. */
  private Attempt look() {
    try {
      Attempt found = readAndDecide(TakeOver.IF_STALE);
      unresolved = false;
      return found;
    } catch (DatastoreUnavailableException | DatastoreBusyException | OutcomeUnknownException e) {
      return new Attempt.Failed(e);
    }
  }

  /**
   * Reads the lock and decides: our own record (from a write whose answer was lost) is ours; a
   * stale one, or one whose process is gone from this host, is taken over when allowed; no record
   * is free; anything else is busy. The lease remembers what it read ({@link Lease#looked}).
   */
  private Attempt readAndDecide(TakeOver takeOver) {
    ReadResult read = lock.datastore.read(lock.key, ReadCondition.always(), LockInfoCodec.MAX_BYTES);
    if (!(read instanceof ReadResult.Found found)) {
      lock.looked(lock.clock.instant(), null);
      return new Attempt.Free();
    }
    Optional<LockInfo> holder = LockInfoCodec.tryDecode(lock.key.value(), found.bytes());
    lock.looked(lock.clock.instant(), holder.orElse(null));
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
   * One call on the reservation: a reserver refreshes it; a waiter past its bound, or contended,
   * looks at it, holds back for another's fresh one, and claims a free one when past its bound (a
   * second call, once).
   */
  private Attempt lookAtReservation(Instant now) {
    try {
      if (reserved != null) {
        refreshReservation(now);
        return new Attempt.Cleared();
      }
      LeaseReservation.Look look = lock.reservations.look(nonce);
      lock.lookedAtReservation(now, look instanceof LeaseReservation.Look.Other);
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
        reservedSince = reservedSince.equals(Instant.MIN) ? now : reservedSince;
      } else if (starved(now)) {
        claim(now);
      }
      return new Attempt.Cleared();
    } catch (DatastoreUnavailableException | DatastoreBusyException | OutcomeUnknownException e) {
      return new Attempt.Failed(e);
    }
  }

  /** Claims the reservation of the next turn: this acquisition has waited past the lock's bound. */
  private void claim(Instant now) {
    Optional<ObjectVersion> claimed = lock.reservations.claim(lock.recordAt(now, nonce));
    if (claimed.isPresent()) {
      reserved = claimed.get();
      reservedAt = now;
      reservedSince = now;
      LOG.debug("Reserved the next turn of {} after waiting {} ms (nonce {})", lock.describe(),
          Duration.between(start, now).toMillis(), nonce);
    }
  }

  /** Refreshes our reservation (due a third of its ttl after we wrote it). */
  private void refreshReservation(Instant now) {
    ObjectVersion version = reserved;
    if (version == null) {
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
