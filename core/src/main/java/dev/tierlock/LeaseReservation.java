package dev.tierlock;

import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
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
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reservation of a lease lock's next turn ({@link LeaseLocks}, the bounded-wait rule): one
 * object next to the lock, {@code <lock key>.reservation}, holding a {@link LockInfo} record (the
 * reserver's nonce and ttl) in the lock's own format. A waiter that has waited past its bound
 * claims it by a create-only write; contended acquirers other than the reserver hold back while it
 * is fresh; the reserver refreshes it every ttl/3 while it waits, conditional on its version, and
 * deletes it (conditionally) once it holds the lock or gives up. A reservation is fresh while its
 * record is younger than its ttl by the reader's clock and the reader has not itself seen its
 * version unchanged for longer than that ttl, so a dead reserver holds nobody back for more than
 * its ttl whatever the clocks say; an expired or unreadable one is deleted, conditional on the
 * version seen, by the first contended acquirer that finds it. It is advisory only: the lock object
 * alone excludes, and a holder that knows nothing of reservations (the original tool) is excluded
 * by it as before. Thread-safe; one per lease lock (its state is the observation of a version).
 */
final class LeaseReservation {

  private static final Logger LOG = LoggerFactory.getLogger(LeaseLock.class);

  /** What a contended acquirer found. */
  sealed interface Look {
    /** No fresh reservation: go ahead. */
    record Free() implements Look {}

    /** Our own, from a claim whose answer was lost. */
    record Mine(ObjectVersion version) implements Look {}

    /** Another waiter's fresh reservation: hold back. */
    record Other(LockInfo reserver) implements Look {}
  }

  /** A version of the reservation and when this lock first saw it. */
  private record Observation(ObjectVersion version, Instant since) {}

  private final LeaseLock lock;
  private final ObjectKey key;
  private final AtomicReference<@Nullable Observation> observed = new AtomicReference<>();

  LeaseReservation(LeaseLock lock) {
    this.lock = lock;
    this.key = keyOf(lock.key);
  }

  /** Returns the key of the reservation of the lock at {@code lockKey}: {@code <lockKey>.reservation}. */
  static ObjectKey keyOf(ObjectKey lockKey) {
    return ObjectKey.of(lockKey.value() + ".reservation");
  }

  /** Returns the reservation's key. */
  ObjectKey key() {
    return key;
  }

  /**
   * Reads the reservation: another's fresh one holds us back, ours is ours, an expired or unreadable
   * one is deleted conditionally (best effort) and counts as free.
   *
   * @param nonce the caller's nonce
   */
  Look look(String nonce) {
    ReadResult read = lock.datastore.read(key, ReadCondition.always(), LockInfoCodec.MAX_BYTES);
    if (!(read instanceof ReadResult.Found found)) {
      return new Look.Free();
    }
    ObjectVersion version = found.object().version();
    Optional<LockInfo> reserver = LockInfoCodec.tryDecode(key.value(), found.bytes());
    if (reserver.isPresent() && reserver.get().nonce().equals(nonce)) {
      return new Look.Mine(version);
    }
    Instant now = lock.clock.instant();
    Observation seen = observed.updateAndGet(
        o -> o != null && o.version().equals(version) ? o : new Observation(version, now));
    if (reserver.isPresent() && isFresh(reserver.get(), Duration.between(seen.since(), now), now)) {
      return new Look.Other(reserver.get());
    }
    try {
      if (lock.datastore.delete(key, WriteCondition.mustMatch(version)) == DeleteResult.DELETED) {
        LOG.info("Removed the expired reservation of {} ({})", lock.describe(),
            reserver.map(r -> "by " + r.holder() + ", nonce " + r.nonce() + ", refreshed " + r.acquiredAt())
                .orElse("unreadable"));
      }
    } catch (RuntimeException e) {
      LOG.debug("Cannot remove the expired reservation of {}; it is ignored all the same", lock.describe(), e);
    }
    return new Look.Free();
  }

  private static boolean isFresh(LockInfo reserver, Duration unchanged, Instant now) {
    return now.isBefore(reserver.acquiredAt().plus(reserver.ttl())) && unchanged.compareTo(reserver.ttl()) <= 0;
  }

  /**
   * Claims the reservation for {@code mine} by a create-only write.
   *
   * @return the version written, or empty when another waiter has it or the answer was lost (a
   *     later {@link #look} finds our own)
   */
  Optional<ObjectVersion> claim(LockInfo mine) {
    try {
      WriteResult result = lock.datastore.write(key, ObjectBody.of(LockInfoCodec.encode(mine)),
          WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);
      if (result instanceof WriteResult.Written written) {
        return Optional.of(written.version());
      }
    } catch (OutcomeUnknownException e) {
      LOG.debug("Claim of the reservation of {} had no answer; the next look tells", lock.describe(), e);
    }
    return Optional.empty();
  }

  /**
   * Refreshes our reservation at {@code version} with {@code mine}, conditional on that version.
   *
   * @return the version now ours, or empty when it is no longer ours (taken after it expired, or
   *     deleted)
   */
  Optional<ObjectVersion> refresh(ObjectVersion version, LockInfo mine) {
    try {
      WriteResult result = lock.datastore.write(key, ObjectBody.of(LockInfoCodec.encode(mine)),
          WriteCondition.mustMatch(version), ObjectMetadata.EMPTY);
      if (result instanceof WriteResult.Written written) {
        return Optional.of(written.version());
      }
    } catch (OutcomeUnknownException e) {
      LOG.debug("Refresh of the reservation of {} had no answer; reading it back", lock.describe(), e);
    }
    return ours(mine.nonce());
  }

  /** Deletes our reservation (best effort: one that stays expires after its ttl); never throws. */
  void remove(@Nullable ObjectVersion version, String nonce) {
    try {
      if (version != null) {
        DeleteResult result = lock.datastore.delete(key, WriteCondition.mustMatch(version));
        if (result != DeleteResult.PRECONDITION_FAILED) {
          return;
        }
      }
      Optional<ObjectVersion> current = ours(nonce);
      if (current.isPresent()) {
        lock.datastore.delete(key, WriteCondition.mustMatch(current.get()));
      }
    } catch (RuntimeException e) {
      LOG.debug("Cannot remove our reservation of {} (nonce {}); it expires after its ttl", lock.describe(), nonce, e);
    }
  }

  /** Returns the reservation's version if it holds our nonce. */
  private Optional<ObjectVersion> ours(String nonce) {
    ReadResult read = lock.datastore.read(key, ReadCondition.always(), LockInfoCodec.MAX_BYTES);
    if (read instanceof ReadResult.Found found
        && LockInfoCodec.tryDecode(key.value(), found.bytes()).filter(r -> r.nonce().equals(nonce)).isPresent()) {
      return Optional.of(found.object().version());
    }
    return Optional.empty();
  }
}
