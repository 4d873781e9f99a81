package dev.tierlock;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a lock's holder writes into the lock: who holds it and until when it is fresh. Serialised
 * as a JSON object {@code {holder, hostname, pid, acquiredAt, ttlMs, nonce}} ({@code acquiredAt}
 * ISO-8601, refreshed by every heartbeat), plus {@code processStartedAt} (ISO-8601) when the
 * holder's process start time is known: with the host name and the pid it pins one process, so
 * that a holder on the same host whose process is gone is told apart from one whose pid was
 * reused ({@link HostProcesses#isGone}). A record without it (the original tool's, an older
 * Tierlock's) reads as one whose start is unknown. Immutable; equal when every part is equal.
 */
public final class LockInfo {

  /** The largest lock body a reader accepts, in bytes; a real one is a few hundred. */
  public static final int MAX_BYTES = LockInfoCodec.MAX_BYTES;

  private final String holder;
  private final String hostname;
  private final long pid;
  private final Instant acquiredAt;
  private final Duration ttl;
  private final String nonce;
  private final @Nullable Instant processStart;

  /**
   * Creates a record whose process start time is unknown.
   *
   * @param holder who holds it, {@code user@host}
   * @param hostname the holder's host name
   * @param pid the holder's process id
   * @param acquiredAt when the lock was acquired or last heartbeat
   * @param ttl how long the lease stays fresh without a heartbeat (see {@link #isStaleAt} for how
   *     waiters judge it)
   * @param nonce unique id of this holding, used to release or force-release it
   * @throws IllegalArgumentException if the nonce is blank or the ttl is not positive
   */
  public LockInfo(String holder, String hostname, long pid, Instant acquiredAt, Duration ttl, String nonce) {
    this(holder, hostname, pid, acquiredAt, ttl, nonce, null);
  }

  private LockInfo(String holder, String hostname, long pid, Instant acquiredAt, Duration ttl, String nonce,
      @Nullable Instant processStart) {
    if (nonce.isBlank()) {
      throw new IllegalArgumentException("Cannot describe lock holder " + holder + ": the nonce is blank");
    }
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("Cannot describe lock holder " + holder + ": ttl must be positive, got " + ttl);
    }
    this.holder = Objects.requireNonNull(holder, "holder");
    this.hostname = Objects.requireNonNull(hostname, "hostname");
    this.pid = pid;
    this.acquiredAt = Objects.requireNonNull(acquiredAt, "acquiredAt");
    this.ttl = ttl;
    this.nonce = nonce;
    this.processStart = processStart;
  }

  /**
   * Reads the body of a lock object as every holder of the datastore global lock writes it (see the
   * class description), ignoring fields it does not know.
   *
   * @param lockKey the lock's key or path, for the message
   * @param body the lock object's bytes
   * @return the record the body holds
   * @throws LockUnreadableException if the body is larger than {@link #MAX_BYTES}, not one JSON
   *     object, or missing or mistyping a required field
   */
  public static LockInfo parse(String lockKey, byte[] body) {
    return LockInfoCodec.decode(Objects.requireNonNull(lockKey, "lockKey"), Objects.requireNonNull(body, "body"));
  }

  /** {@return who holds it, {@code user@host}} */
  public String holder() {
    return holder;
  }

  /** {@return the holder's host name} */
  public String hostname() {
    return hostname;
  }

  /** {@return the holder's process id} */
  public long pid() {
    return pid;
  }

  /** {@return when the lock was acquired or last heartbeat, by the holder's clock} */
  public Instant acquiredAt() {
    return acquiredAt;
  }

  /** {@return how long the lease stays fresh without a heartbeat} */
  public Duration ttl() {
    return ttl;
  }

  /** {@return the unique id of this holding} */
  public String nonce() {
    return nonce;
  }

  /** {@return when the holder's process started, if the record says} */
  public Optional<Instant> processStart() {
    return Optional.ofNullable(processStart);
  }

  /**
   * {@return the same record naming {@code start} as its process's start time}
   *
   * @param start when the holder's process started
   */
  public LockInfo withProcessStart(Instant start) {
    return new LockInfo(holder, hostname, pid, acquiredAt, ttl, nonce, Objects.requireNonNull(start, "start"));
  }

  /**
   * Returns whether the lease is stale at {@code now} by its own timestamp: not refreshed within
   * twice its ttl, so any waiter takes it over at first sight. Twice, because {@code acquiredAt} was
   * written by the holder's clock and {@code now} is read from another: a live holder (refreshed
   * every ttl/3) is never judged stale unless the clocks differ by more than about 5/3 ttl. A record
   * younger than that may still be stale: a waiter that has itself seen the lock's version unchanged
   * for longer than the ttl (measured on its own clock alone) takes it over too.
   *
   * @param now the instant to judge at, from the caller's clock; not null
   * @return whether {@code now} is more than {@code 2 × ttl} after {@code acquiredAt}
   */
  public boolean isStaleAt(Instant now) {
    return now.isAfter(acquiredAt.plus(ttl.multipliedBy(2)));
  }

  /**
   * {@return the same holding with {@code acquiredAt} moved to {@code now} (a heartbeat)}
   *
   * @param now the time of the heartbeat, by the holder's clock
   */
  public LockInfo refreshedAt(Instant now) {
    return new LockInfo(holder, hostname, pid, now, ttl, nonce, processStart);
  }

  @Override
  public boolean equals(@Nullable Object other) {
    return other instanceof LockInfo that && pid == that.pid && holder.equals(that.holder)
        && hostname.equals(that.hostname) && acquiredAt.equals(that.acquiredAt) && ttl.equals(that.ttl)
        && nonce.equals(that.nonce) && Objects.equals(processStart, that.processStart);
  }

  @Override
  public int hashCode() {
    return Objects.hash(holder, hostname, pid, acquiredAt, ttl, nonce, processStart);
  }

  @Override
  public String toString() {
    return "LockInfo[holder=" + holder + ", hostname=" + hostname + ", pid=" + pid + ", acquiredAt=" + acquiredAt
        + ", ttl=" + ttl + ", nonce=" + nonce + (processStart == null ? "" : ", processStart=" + processStart) + "]";
  }
}
