package dev.tierlock;

import dev.tierlock.spi.DatastoreBusyException;
import dev.tierlock.spi.OutcomeUnknownException;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One remote holding of a {@link Lease}: the record this JVM wrote into the lock object. Its
 * heartbeat rewrites the record conditional on the version it last wrote; its release deletes
 * conditional on that version. Both run under this object's monitor, so a release never races a
 * heartbeat's write. The handles given to callers ride on it ({@link Lease.Held}): one after
 * another while it is handed over in this JVM ({@link LeaseLine}), each lent the store of the lease
 * it was handed to, so that a caller who closed the store of an earlier lease leaves it out of the
 * path. Its clock, options and heartbeat stay those of the lease that acquired it.
 *
 * <p>A heartbeat that finds the lock gone or under another nonce loses the lease at once. One that
 * cannot reach the store keeps the lease and tries again on the next beat, but loses it once the
 * last confirmed refresh is a ttl old (from then on another holder may take it over). A write whose
 * answer was lost is resolved by reading the record back: our nonce with the bytes we sent means it
 * landed.
 */
final class LeaseHolding {

  private static final Logger LOG = LoggerFactory.getLogger(LeaseHolding.class);

  private enum State { HELD, LOST, RELEASED }

  /** Why a lease was lost: whether its record may still be ours in the store. */
  private enum Loss { TAKEN_OR_GONE, UNCONFIRMED }

  /** How many times a release refused for the store's rate is sent again. */
  private static final int BUSY_RELEASES = 3;

  private final Lease lock;
  private final LockInfo acquired;
  private volatile Datastore store;
  private volatile State state = State.HELD;
  private @Nullable Loss loss;
  private ObjectVersion version;
  private LockInfo current;
  private Instant confirmedAt;
  /** When the last confirmed refresh stops protecting the lease: from then on a peer may take it over. */
  private volatile Instant expiresAt;
  private Heartbeats.@Nullable Scheduled heartbeat;

  LeaseHolding(Lease lock, ObjectVersion version, LockInfo record) {
    this.lock = lock;
    this.acquired = record;
    this.store = lock.datastore;
    this.version = version;
    this.current = record;
    this.confirmedAt = record.acquiredAt();
    this.expiresAt = record.acquiredAt().plus(record.ttl());
  }

  synchronized void startHeartbeat(Heartbeats heartbeats) {
    if (state == State.HELD && heartbeat == null) {
      heartbeat = heartbeats.schedule(lock.describe(), lock.options.heartbeatInterval(), this::beat);
    }
  }

  /** Returns the record written when the lock was acquired remotely. */
  LockInfo info() {
    return acquired;
  }

  /** Makes later calls go through {@code value}, a store of the same identity (the lock it is handed to). */
  void lendTo(Datastore value) {
    store = value;
  }

  /**
   * Returns whether the holding may be handed over once more, after {@code handedSoFar}
   * consecutive handovers: within the acquiring lock's budget of handovers and of time held since
   * it was acquired remotely, by that lock's clock.
   */
  boolean mayHandOver(int handedSoFar) {
    Lease.HandoverBudget budget = lock.budget;
    return handedSoFar < budget.leases()
        && Duration.between(acquired.acquiredAt(), lock.clock.instant()).compareTo(budget.held()) < 0;
  }

  /**
   * Returns whether the lease is held: not released, not found lost by a heartbeat, and its last
   * confirmed refresh less than a ttl old by the lock's clock. The last condition makes the lease
   * read as lost when its heartbeats stop (a stalled or dead heartbeat thread, a process paused past
   * its ttl) from the moment a peer may take it over, without waiting for a heartbeat to notice. A
   * heartbeat that runs late and still wins its conditional write proves that nobody took the lock
   * over and makes the lease held again.
   */
  boolean isHeld() {
    return state == State.HELD && lock.clock.instant().isBefore(expiresAt);
  }

  /** Refreshes the record once; never throws. Runs on the heartbeat's thread or a caller's. */
  synchronized void beat() {
    if (state != State.HELD) {
      return;
    }
    Instant now = lock.clock.instant();
    LockInfo refreshed = current.refreshedAt(now);
    byte[] body = LockInfoCodec.encode(refreshed);
    try {
      WriteResult result = store.write(lock.key, ObjectBody.of(body),
          WriteCondition.mustMatch(version), ObjectMetadata.EMPTY);
      if (result instanceof WriteResult.Written written) {
        confirm(written.version(), refreshed);
      } else {
        reconcile(null, refreshed);
      }
    } catch (OutcomeUnknownException e) {
      LOG.debug("Heartbeat of {} had no answer; reading it back", lock.describe(), e);
      reconcile(body, refreshed);
    } catch (RuntimeException e) {
      LOG.warn("Heartbeat of {} failed (nonce {}); retrying on the next beat", lock.describe(), acquired.nonce(), e);
    }
    if (state == State.HELD && !now.isBefore(confirmedAt.plus(current.ttl()))) {
      lose(Loss.UNCONFIRMED, "no heartbeat was confirmed since " + confirmedAt + ", a ttl of " + current.ttl() + " ago");
    }
  }

  /**
   * Reads the record back after a heartbeat write that failed its precondition ({@code written} is
   * null) or whose answer was lost, and adopts, keeps or loses the lease by what it finds.
   */
  private void reconcile(byte @Nullable [] written, LockInfo refreshed) {
    ReadResult read;
    try {
      read = store.read(lock.key, ReadCondition.always(), LockInfoCodec.MAX_BYTES);
    } catch (RuntimeException e) {
      LOG.warn("Cannot read back {} after a heartbeat (nonce {}); retrying on the next beat", lock.describe(), acquired.nonce(), e);
      return;
    }
    if (!(read instanceof ReadResult.Found found)) {
      lose(Loss.TAKEN_OR_GONE, "the lock was deleted");
      return;
    }
    Optional<LockInfo> holder = LockInfoCodec.tryDecode(lock.key.value(), found.bytes());
    if (holder.isEmpty() || !holder.get().nonce().equals(acquired.nonce())) {
      lose(Loss.TAKEN_OR_GONE, holder.map(h -> "it is held by " + h.holder() + " (pid " + h.pid() + ", nonce " + h.nonce() + ")")
          .orElse("it holds a record that cannot be read"));
      return;
    }
    ObjectVersion seen = found.object().version();
    if (written != null && Arrays.equals(found.bytes(), written)) {
      confirm(seen, refreshed);
    } else if (!seen.equals(version)) {
      // our own earlier write whose answer was lost: adopt it
      version = seen;
      current = holder.get();
      if (holder.get().acquiredAt().isAfter(confirmedAt)) {
        confirmedAt = holder.get().acquiredAt();
        expiresAt = confirmedAt.plus(current.ttl());
      }
    }
  }

  private void confirm(ObjectVersion written, LockInfo refreshed) {
    version = written;
    current = refreshed;
    confirmedAt = refreshed.acquiredAt();
    expiresAt = confirmedAt.plus(refreshed.ttl());
  }

  private void lose(Loss why, String reason) {
    state = State.LOST;
    loss = why;
    stopHeartbeat();
    LOG.warn("Lost the lease on {} (nonce {}): {}; work under it must stop", lock.describe(), acquired.nonce(), reason);
  }

  private void stopHeartbeat() {
    Heartbeats.Scheduled running = heartbeat;
    heartbeat = null;
    if (running != null) {
      try {
        running.close();
      } catch (RuntimeException e) {
        LOG.warn("Cannot stop the heartbeat of {}", lock.describe(), e);
      }
    }
  }

  /**
   * Releases the lease while the JVM shuts down ({@link ShutdownRelease}): deletes our record
   * conditional on its version, as {@link #release()} does; the leases riding on it read as lost.
   */
  void releaseAtShutdown() {
    releaseRecord(" at shutdown");
  }

  /** Releases the holding: deletes our record if it may still be ours; never throws. Idempotent. */
  void release() {
    ShutdownRelease.unregister(this);
    if (state == State.HELD) {
      lock.schedule.held(Duration.between(acquired.acquiredAt(), lock.clock.instant()));
    }
    releaseRecord("");
  }

  /** Marks the lease released and deletes our record if it may still be ours; never throws. */
  private void releaseRecord(String when) {
    @Nullable ObjectVersion held;
    synchronized (this) {
      if (state == State.RELEASED) {
        return;
      }
      boolean mayBeOurs = state == State.HELD || loss == Loss.UNCONFIRMED;
      state = State.RELEASED;
      stopHeartbeat();
      held = mayBeOurs ? version : null;
    }
    try {
      if (held != null) {
        deleteOwn(held);
      }
    } catch (RuntimeException e) {
      LOG.warn("Cannot release {} (nonce {}){}; it expires after its ttl of {}", lock.describe(), acquired.nonce(),
          when, current.ttl(), e);
    }
  }

  /** Deletes our record conditional on its version; leaves anyone else's. */
  private void deleteOwn(ObjectVersion held) {
    ObjectVersion target = held;
    int busy = 0;
    for (int round = 0; round < 2; round++) {
      try {
        DeleteResult result = store.delete(lock.key, WriteCondition.mustMatch(target));
        if (result != DeleteResult.PRECONDITION_FAILED) {
          return;
        }
      } catch (DatastoreBusyException e) {
        // refused for the store's per-object rate: left in place, the lock would block every peer
        // for its ttl, so the release waits out the interval and is sent again, a few times
        if (++busy > BUSY_RELEASES) {
          throw e;
        }
        Duration interval = store.minWriteInterval().isZero() ? Duration.ofSeconds(1) : store.minWriteInterval();
        try {
          lock.sleeper.sleep(interval);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
        round--;
        continue;
      } catch (OutcomeUnknownException e) {
        LOG.debug("Release of {} had no answer; reading it back", lock.describe(), e);
      }
      ReadResult read = store.read(lock.key, ReadCondition.always(), LockInfoCodec.MAX_BYTES);
      if (!(read instanceof ReadResult.Found found)) {
        return;
      }
      Optional<LockInfo> holder = LockInfoCodec.tryDecode(lock.key.value(), found.bytes());
      if (holder.isEmpty() || !holder.get().nonce().equals(acquired.nonce())) {
        LOG.info("Left {} alone on release: another holder has it", lock.describe());
        return;
      }
      target = found.object().version();
    }
    LOG.warn("Cannot release {} (nonce {}); it expires after its ttl of {}", lock.describe(), acquired.nonce(), current.ttl());
  }

  @Override
  public String toString() {
    return "lease on " + lock.describe() + " (nonce " + acquired.nonce() + ", " + state + ")";
  }
}
