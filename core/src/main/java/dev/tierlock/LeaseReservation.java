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
 * The reservation of a lease's next turn: one object next to the lock, {@code <lock
 * key>.reservation}, holding a {@link LockInfo} record (the reserver's nonce and ttl) in the lock's
 * own format, read and written by {@link LeaseAcquisition}.
 *
 * <p><b>Bounded waits across processes.</b> An acquirer that met contention (a busy lock, a
 * reservation) within the last two ttls is <em>contended</em>, and reads the reservation object
 * {@code <key>.reservation} once a third of the ttl as one of its attempts, on every attempt while
 * another's fresh reservation holds it back ({@link LeaseAcquisition}), and before each {@link
 * DistributedLock#tryAcquire()}. Another
 * waiter's fresh reservation holds it back: no create on that attempt. An expired or unreadable
 * reservation is deleted, conditional on the version read, and ignored. An acquisition that has
 * waited longer than {@link Lease#reserveAfter()} (64 measured holds or a second, at most twice the
 * maximum retry interval or half its maximum wait) claims the reservation: a create-only write of its own record (its nonce and ttl). While it waits, the
 * reserver refreshes the reservation every ttl/3 (conditional on its version) and waits at most the
 * retry interval between attempts; it deletes the reservation (conditionally) once it holds the
 * lock or gives up. A reservation is fresh while its record is younger than its ttl by the reader's
 * clock and the reader has not itself seen it unchanged for longer than its ttl, so a dead reserver
 * holds nobody back for longer than its ttl. Cost: nothing on the uncontended path (an acquire
 * stays one create-only write, a release one conditional delete); under contention one read a third of
 * the ttl per waiter (every attempt of a waiter held back), and a write to claim, one per ttl/3 to refresh and a delete to finish for the one waiter
 * that reserves. The reservation is advisory: the lock object alone excludes. The original tool,
 * which knows nothing of it, still contends by the lock object and is excluded by it; so is an
 * acquirer that met no contention within two ttls, which makes its one create without reading the
 * reservation and may pass a reserver that way. Every acquirer that keeps polling holds back, so a
 * waiter that outlasts the bound is next among them.
 *
 * <p>Thread-safe; one per lease (its state is the observation of a version).
 */
final class LeaseReservation {

  private static final Logger LOG = LoggerFactory.getLogger(Lease.class);

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

  private final Lease lock;
  private final ObjectKey key;
  private final AtomicReference<@Nullable Observation> observed = new AtomicReference<>();

  LeaseReservation(Lease lock) {
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
