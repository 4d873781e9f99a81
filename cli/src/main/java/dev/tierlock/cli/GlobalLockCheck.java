package dev.tierlock.cli;

import dev.tierlock.DistributedLock;
import dev.tierlock.HostProcesses;
import dev.tierlock.LockInfo;
import dev.tierlock.LockUnreadableException;
import dev.tierlock.TierlockException;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import java.time.Instant;
import java.util.Optional;

/**
 * {@code global-lock}: free, or its holder (host and pid, last heartbeat, nonce) and whether its
 * lease is fresh, stale or held by a process gone from this host, with the break-glass command when
 * it is safe. It reads the lock only: it never takes or breaks it.
 */
final class GlobalLockCheck implements DoctorCheck {

  static final String NAME = "global-lock";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public DoctorFinding run(DoctorContext doctor) {
    ObjectKey key = DistributedLock.globalKey(doctor.namespace());
    String lock = "lock \"" + key + "\" on " + doctor.datastore().describe();
    Optional<LockInfo> info;
    try {
      info = inspect(doctor.datastore(), key);
    } catch (LockUnreadableException e) {
      return DoctorFinding.warn(NAME, e.getMessage() + " (" + lock + ")",
          "a writer treats it as held until it has stayed unchanged for longer than a lease ttl, then takes it over;"
              + " it cannot be released by nonce", e.code());
    } catch (TierlockException e) {
      return DoctorFinding.failure(NAME, "Cannot read " + lock, e, null);
    }
    if (info.isEmpty()) {
      return DoctorFinding.ok(NAME, "free: " + lock);
    }
    return held(doctor, lock, info.get());
  }

  private static DoctorFinding held(DoctorContext doctor, String lock, LockInfo holder) {
    Instant now = doctor.now();
    HostProcesses processes = HostProcesses.system();
    boolean here = holder.hostname().equals(processes.hostname());
    boolean running = here && processes.isRunning(holder.pid());
    boolean gone = here && (!running || processes.isGone(holder));
    boolean stale = holder.isStaleAt(now);
    String who = holder.holder() + " (host " + holder.hostname() + ", pid " + holder.pid()
        + holder.processStart().map(start -> ", started " + start).orElse("")
        + (here ? !running ? ", no such process on this host" : gone ? ", now another process's on this host"
            : ", alive on this host" : "") + ")";
    String since = "last heartbeat " + holder.acquiredAt() + " (" + doctor.ago(holder.acquiredAt()) + ", ttl "
        + holder.ttl().toMillis() + " ms), nonce " + holder.nonce();
    String release = "tierlock lock release --nonce " + holder.nonce();
    if (gone) {
      return DoctorFinding.warn(NAME, "held by a process that is gone: " + who + ", " + since + ", "
          + lock, "break-glass is safe (its process is gone): " + release + " (the next writer on this"
              + " host takes it over anyway)", null);
    }
    if (stale) {
      return DoctorFinding.warn(NAME, "stale: held by " + who + ", " + since + ": not refreshed for over twice its"
          + " ttl, " + lock, "the next writer takes it over; break-glass is safe: " + release, null);
    }
    return DoctorFinding.ok(NAME, "held by " + who + ", " + since + ", lease fresh, " + lock, here
        ? "its process is alive: a writer waits for it; it renews the lease while it works"
        : "its host is another: a writer waits for it; only once you know that process is gone: " + release);
  }

  /** Reads the global lock's holder as {@link DistributedLock#inspect()} does, through the read-only store. */
  private static Optional<LockInfo> inspect(Datastore store, ObjectKey key) {
    ReadResult read = store.read(key, ReadCondition.always(), LockInfo.MAX_BYTES);
    return read instanceof ReadResult.Found found ? Optional.of(LockInfo.parse(key.value(), found.bytes()))
        : Optional.empty();
  }
}
