package dev.tierlock;

import dev.tierlock.spi.DatastoreException;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.OutcomeUnknownException;

import dev.tierlock.internal.Backoff;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.time.Clock;
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
 * state is its configuration plus one observation of the lock object (used to judge a record that
 * never changes), shared by every acquisition through it.
 */
final class LeaseLock implements DistributedLock {

  private static final Logger LOG = LoggerFactory.getLogger(LeaseLock.class);
  private static final Pattern NONCE = Pattern.compile("[A-Za-z0-9-]{1,128}");
  private static final int FORCE_RELEASE_ROUNDS = 3;

  final Datastore datastore;
  final ObjectKey key;
  final LockOptions options;
  final Clock clock;
  private final Sleeper sleeper;
  private final RandomGenerator random;
  private final LockIdentity identity;
  private final Supplier<String> nonces;
  private final Heartbeats heartbeats;
  private final AtomicReference<@Nullable Observation> observed = new AtomicReference<>();

  LeaseLock(Datastore datastore, ObjectKey key, LockOptions options, Clock clock, Sleeper sleeper,
      RandomGenerator random, LockIdentity identity, Supplier<String> nonces, Heartbeats heartbeats) {
    this.datastore = datastore;
    this.key = key;
    this.options = options;
    this.clock = clock;
    this.sleeper = sleeper;
    this.random = random;
    this.identity = identity;
    this.nonces = nonces;
    this.heartbeats = heartbeats;
  }

  /** A version of the lock object and when this lock first saw it. */
  private record Observation(ObjectVersion version, Instant since) {}

  /** What one attempt found. */
  private sealed interface Attempt {
    record Acquired(HeldLease lease) implements Attempt {}

    record Busy(@Nullable LockInfo holder) implements Attempt {}

    record Failed(DatastoreException failure) implements Attempt {}
  }

  /** What one acquisition remembers across its attempts. */
  private static final class Acquisition {
    final String nonce;
    final LockOrder.Ticket ticket;
    boolean maybeWritten;

    Acquisition(String nonce, LockOrder.Ticket ticket) {
      this.nonce = nonce;
      this.ticket = ticket;
    }
  }

  @Override
  public String describe() {
    return "lock \"" + key + "\" on " + datastore.describe();
  }

  @Override
  public LockLease acquire() {
    LockOrder.Ticket ticket = LockOrder.enter(LockLevel.GLOBAL, describe());
    try {
      return acquireWithin(new Acquisition(newNonce(), ticket));
    } catch (RuntimeException | Error e) {
      ticket.close();
      throw e;
    }
  }

  private LockLease acquireWithin(Acquisition acquisition) {
    Instant start = clock.instant();
    Instant deadline = start.plus(options.maxWait());
    Backoff backoff = new Backoff(options.retryInterval(), options.maxRetryInterval(), this::nextUnit);
    @Nullable LockInfo lastHolder = null;
    @Nullable DatastoreException lastFailure = null;
    boolean reachedStore = false;
    int attempts = 0;
    while (true) {
      attempts++;
      Attempt attempt = attempt(acquisition);
      if (attempt instanceof Attempt.Acquired acquired) {
        if (attempts > 1) {
          LOG.info("Acquired {} after {} attempts", describe(), attempts);
        }
        return acquired.lease();
      }
      if (attempt instanceof Attempt.Busy busy) {
        reachedStore = true;
        lastFailure = null;
        if (busy.holder() != null) {
          if (lastHolder == null || !lastHolder.nonce().equals(busy.holder().nonce())) {
            LOG.info("Waiting up to {} s for {}, held by {} on {} (pid {}, nonce {}) since {}",
                Math.max(0, Duration.between(clock.instant(), deadline).toSeconds()), describe(),
                busy.holder().holder(), busy.holder().hostname(), busy.holder().pid(), busy.holder().nonce(),
                busy.holder().acquiredAt());
          }
          lastHolder = busy.holder();
        }
      } else if (attempt instanceof Attempt.Failed failed) {
        lastFailure = failed.failure();
        LOG.debug("Attempt on {} failed; retrying within the wait", describe(), lastFailure);
      }
      Instant now = clock.instant();
      Duration remaining = Duration.between(now, deadline);
      if (remaining.isNegative() || remaining.isZero()) {
        return giveUp(acquisition, lastHolder, lastFailure, reachedStore, Duration.between(start, now));
      }
      sleep(backoff.next(remaining), acquisition);
    }
  }

  private LockLease giveUp(Acquisition acquisition, @Nullable LockInfo lastHolder,
      @Nullable DatastoreException lastFailure, boolean reachedStore, Duration waited) {
    if (acquisition.maybeWritten) {
      try {
        Attempt last = readAndDecide(acquisition, TakeOver.NEVER);
        if (last instanceof Attempt.Acquired acquired) {
          return acquired.lease();
        }
      } catch (DatastoreException e) {
        LOG.warn("Giving up on {}: a lock record written with nonce {} may remain until its ttl of {} passes",
            describe(), acquisition.nonce, options.ttl(), e);
      }
    }
    if (lastFailure != null && !reachedStore) {
      throw lastFailure;
    }
    LockTimeoutException timeout = new LockTimeoutException(key.value(), lastHolder, waited);
    if (lastFailure != null) {
      timeout.addSuppressed(lastFailure);
    }
    throw timeout;
  }

  @Override
  public Optional<LockLease> tryAcquire() {
    LockOrder.Ticket ticket = LockOrder.enter(LockLevel.GLOBAL, describe());
    try {
      Attempt attempt = attempt(new Acquisition(newNonce(), ticket));
      if (attempt instanceof Attempt.Acquired acquired) {
        return Optional.of(acquired.lease());
      }
      if (attempt instanceof Attempt.Failed failed) {
        throw failed.failure();
      }
      ticket.close();
      return Optional.empty();
    } catch (RuntimeException | Error e) {
      ticket.close();
      throw e;
    }
  }

  /** Whether a stale holder may be taken over in this step. */
  private enum TakeOver { IF_STALE, NEVER }

  /** One create-only write, then, if the lock exists, one look at its holder (and a takeover if stale). */
  private Attempt attempt(Acquisition acquisition) {
    LockInfo mine = recordAt(clock.instant(), acquisition.nonce);
    try {
      WriteResult result = datastore.write(key, ObjectBody.of(LockInfoCodec.encode(mine)),
          WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);
      if (result instanceof WriteResult.Written written) {
        return new Attempt.Acquired(hold(written.version(), mine, acquisition));
      }
    } catch (OutcomeUnknownException e) {
      acquisition.maybeWritten = true;
      LOG.debug("Create of {} had no answer; reading it back", describe(), e);
    } catch (DatastoreUnavailableException e) {
      return new Attempt.Failed(e);
    }
    try {
      return readAndDecide(acquisition, TakeOver.IF_STALE);
    } catch (DatastoreUnavailableException | OutcomeUnknownException e) {
      return new Attempt.Failed(e);
    }
  }

  /**
   * Reads the lock and decides: our own record (from a write whose answer was lost) is ours; a
   * stale one is taken over when allowed; anything else is busy.
   */
  private Attempt readAndDecide(Acquisition acquisition, TakeOver takeOver) {
    ReadResult read = datastore.read(key, ReadCondition.always(), LockInfoCodec.MAX_BYTES);
    if (!(read instanceof ReadResult.Found found)) {
      return new Attempt.Busy(null);
    }
    Optional<LockInfo> holder = LockInfoCodec.tryDecode(key.value(), found.bytes());
    ObjectVersion version = found.object().version();
    if (holder.isPresent() && holder.get().nonce().equals(acquisition.nonce)) {
      LOG.info("Found {} already holding our nonce {} after an unanswered write; holding it", describe(), acquisition.nonce);
      return new Attempt.Acquired(hold(version, holder.get(), acquisition));
    }
    if (takeOver == TakeOver.IF_STALE && isStale(version, holder)) {
      return takeOver(acquisition, version, holder.orElse(null));
    }
    return new Attempt.Busy(holder.orElse(null));
  }

  /**
   * Returns whether the holder is stale: its version unchanged for longer than its ttl since this
   * lock first saw it (whatever the record says, even when it cannot be read; measured on our clock
   * alone, so immune to skew, and it also defeats a holder whose clock runs ahead), or its record
   * older than twice its ttl by our clock ({@link LockInfo#isStaleAt}), so a lock abandoned long ago
   * is taken over at first sight while a live holder whose clock lags ours by up to about 5/3 ttl is
   * not.
   */
  private boolean isStale(ObjectVersion version, Optional<LockInfo> holder) {
    Instant now = clock.instant();
    Observation seen = observed.updateAndGet(
        o -> o != null && o.version().equals(version) ? o : new Observation(version, now));
    Duration unchanged = Duration.between(seen.since(), now);
    if (holder.isPresent()) {
      return holder.get().isStaleAt(now) || unchanged.compareTo(holder.get().ttl()) > 0;
    }
    return unchanged.compareTo(options.ttl()) > 0;
  }

  private Attempt takeOver(Acquisition acquisition, ObjectVersion staleVersion, @Nullable LockInfo stale) {
    LockInfo mine = recordAt(clock.instant(), acquisition.nonce);
    try {
      WriteResult result = datastore.write(key, ObjectBody.of(LockInfoCodec.encode(mine)),
          WriteCondition.mustMatch(staleVersion), ObjectMetadata.EMPTY);
      if (result instanceof WriteResult.Written written) {
        LOG.warn("Took over stale {} from {}", describe(),
            stale == null ? "an unreadable record at version " + staleVersion
                : stale.holder() + " (pid " + stale.pid() + ", nonce " + stale.nonce() + ", refreshed " + stale.acquiredAt() + ")");
        return new Attempt.Acquired(hold(written.version(), mine, acquisition));
      }
      return new Attempt.Busy(stale);
    } catch (OutcomeUnknownException e) {
      acquisition.maybeWritten = true;
      return readAndDecide(acquisition, TakeOver.NEVER);
    }
  }

  private HeldLease hold(ObjectVersion version, LockInfo record, Acquisition acquisition) {
    observed.set(null);
    HeldLease lease = new HeldLease(this, version, record, acquisition.ticket);
    ShutdownRelease.register(lease);
    try {
      lease.startHeartbeat(heartbeats);
    } catch (RuntimeException | Error e) {
      lease.release();
      throw e;
    }
    return lease;
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

  /** Returns a record of this lock's holder at {@code now}. */
  LockInfo recordAt(Instant now, String nonce) {
    return new LockInfo(identity.holder(), identity.hostname(), identity.pid(), now, options.ttl(), nonce);
  }

  private String newNonce() {
    String nonce = nonces.get();
    if (!NONCE.matcher(nonce).matches()) {
      throw new IllegalStateException("Cannot acquire " + describe() + ": the nonce supplier returned \""
          + nonce + "\", which does not match " + NONCE.pattern());
    }
    return nonce;
  }

  private double nextUnit() {
    synchronized (random) {
      return random.nextDouble();
    }
  }

  private void sleep(Duration duration, Acquisition acquisition) {
    try {
      sleeper.sleep(duration);
    } catch (InterruptedException e) {
      if (acquisition.maybeWritten) {
        LOG.warn("Interrupted while acquiring {}: a record with nonce {} may remain until its ttl of {} passes",
            describe(), acquisition.nonce, options.ttl());
      }
      throw new InterruptedOperationException("Cannot acquire " + describe(), e);
    }
  }
}
