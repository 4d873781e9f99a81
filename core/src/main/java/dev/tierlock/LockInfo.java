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
 * Tierlock's) reads as one whose start is unknown. With it, {@code bootId} and {@code pidNamespace}
 * name the boot of the holder's kernel and its pid namespace ({@link #processNamespace()}): a pid
 * means that process only to a reader of the same boot and pid namespace, so a record without them
 * never lets a reader judge its process gone. Immutable; equal when every part is equal.
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
  private final @Nullable ProcessNamespace namespace;

  /**
   * Where a pid means one process: a boot of one kernel ({@code /proc/sys/kernel/random/boot_id} on
   * Linux) and a pid namespace of it (the target of {@code /proc/self/ns/pid}, such as {@code
   * pid:[4026531836]}). Two processes that share both see one process table; a pid recorded under
   * any other pair means nothing to this process.
   *
   * @param bootId the kernel's boot id; not blank
   * @param pidNamespace the pid namespace's identity; not blank
   */
  public record ProcessNamespace(String bootId, String pidNamespace) {

    /**
     * Checks both parts.
     *
     * @param bootId the kernel's boot id; not blank
     * @param pidNamespace the pid namespace's identity; not blank
     * @throws IllegalArgumentException if a part is blank
     */
    public ProcessNamespace {
      if (bootId.isBlank() || pidNamespace.isBlank()) {
        throw new IllegalArgumentException("Cannot name a pid namespace by boot id \"" + bootId + "\" and namespace \""
            + pidNamespace + "\": neither may be blank");
      }
    }
  }

  /**
   * Creates a record whose process start time is unknown.
   *
   * @param holder who holds it, {@code user@host}
   * @param hostname the holder's host name
   * @param pid the holder's process id
   * @param acquiredAt when the lock was acquired or last heartbeat
   * @param ttl how long the lease stays fresh without a heartbeat (see {@link DistributedLock} for
   *     how waiters judge it)
   * @param nonce unique id of this holding, used to release or force-release it
   * @throws IllegalArgumentException if the nonce is blank or the ttl is not positive
   */
  public LockInfo(String holder, String hostname, long pid, Instant acquiredAt, Duration ttl, String nonce) {
    this(holder, hostname, pid, acquiredAt, ttl, nonce, null, null);
  }

  private LockInfo(String holder, String hostname, long pid, Instant acquiredAt, Duration ttl, String nonce,
      @Nullable Instant processStart, @Nullable ProcessNamespace namespace) {
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
    this.namespace = namespace;
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
    return new LockInfo(holder, hostname, pid, acquiredAt, ttl, nonce, Objects.requireNonNull(start, "start"), namespace);
  }

  /**
   * {@return the boot and pid namespace in which the holder's pid names its process, if the record
   * says (a record of an older Tierlock, or of a platform that cannot tell, does not)}
   */
  public Optional<ProcessNamespace> processNamespace() {
    return Optional.ofNullable(namespace);
  }

  /**
   * {@return the same record naming {@code value} as the boot and pid namespace of its pid}
   *
   * @param value the holder's boot and pid namespace
   */
  public LockInfo withProcessNamespace(ProcessNamespace value) {
    return new LockInfo(holder, hostname, pid, acquiredAt, ttl, nonce, processStart, Objects.requireNonNull(value, "value"));
  }

  /**
   * Returns whether the last heartbeat is more than a ttl before {@code now}, as a report reads it
   * ({@code lock status}, {@code doctor}: "not renewing"). Both instants come from two clocks (the
   * holder's and the caller's), so this is a hint for people only: no lock ever takes a lease over
   * by it. A waiter judges staleness by its own observation alone, the record's version unchanged
   * for longer than the ttl on its own clock ({@link DistributedLock}).
   *
   * @param now the instant to judge at, from the caller's clock; not null
   * @return whether {@code now} is more than a ttl after {@code acquiredAt}
   */
  public boolean isOverdueAt(Instant now) {
    return now.isAfter(acquiredAt.plus(ttl));
  }

  /**
   * {@return the same holding with {@code acquiredAt} moved to {@code now} (a heartbeat)}
   *
   * @param now the time of the heartbeat, by the holder's clock
   */
  public LockInfo refreshedAt(Instant now) {
    return new LockInfo(holder, hostname, pid, now, ttl, nonce, processStart, namespace);
  }

  @Override
  public boolean equals(@Nullable Object other) {
    return other instanceof LockInfo that && pid == that.pid && holder.equals(that.holder)
        && hostname.equals(that.hostname) && acquiredAt.equals(that.acquiredAt) && ttl.equals(that.ttl)
        && nonce.equals(that.nonce) && Objects.equals(processStart, that.processStart)
        && Objects.equals(namespace, that.namespace);
  }

  @Override
  public int hashCode() {
    return Objects.hash(holder, hostname, pid, acquiredAt, ttl, nonce, processStart, namespace);
  }

  @Override
  public String toString() {
    return "LockInfo[holder=" + holder + ", hostname=" + hostname + ", pid=" + pid + ", acquiredAt=" + acquiredAt
        + ", ttl=" + ttl + ", nonce=" + nonce + (processStart == null ? "" : ", processStart=" + processStart)
        + (namespace == null ? "" : ", bootId=" + namespace.bootId() + ", pidNamespace=" + namespace.pidNamespace()) + "]";
  }
}
