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
import java.io.IOException;
import java.util.Optional;

/**
 * {@code global-lock}: free, or its holder (host and pid, whether its process is alive, stopped or
 * gone where this host can tell, last heartbeat, nonce), and whether its lease is fresh or not
 * renewing (a heartbeat past its ttl), with the break-glass command when it will work ({@link
 * LeaseAdvice}). It reads the lock only: it never takes or breaks it.
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
    HostProcesses processes = HostProcesses.system();
    Optional<CheckoutLockFile> checkoutLock;
    try {
      checkoutLock = CheckoutLockFile.read(doctor.state(), processes);
    } catch (IOException e) {
      checkoutLock = Optional.empty();
    }
    LeaseAdvice advice = LeaseAdvice.of(holder, doctor.now(), processes, checkoutLock);
    String since = "last heartbeat " + holder.acquiredAt() + " (" + doctor.ago(holder.acquiredAt()) + ", ttl "
        + holder.ttl().toMillis() + " ms), nonce " + holder.nonce();
    if (!advice.warns()) {
      return DoctorFinding.ok(NAME, "held by " + advice.who() + ", " + since + ", lease fresh, " + lock, advice.advice());
    }
    String state = advice.state() + (advice.state().startsWith("held by") ? ": " : ": held by ") + advice.who();
    return DoctorFinding.warn(NAME, state + ", " + since + ", " + lock, advice.advice(), null);
  }

  /** Reads the global lock's holder as {@link DistributedLock#inspect()} does, through the read-only store. */
  private static Optional<LockInfo> inspect(Datastore store, ObjectKey key) {
    ReadResult read = store.read(key, ReadCondition.always(), LockInfo.MAX_BYTES);
    return read instanceof ReadResult.Found found ? Optional.of(LockInfo.parse(key.value(), found.bytes()))
        : Optional.empty();
  }
}
