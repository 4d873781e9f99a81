package dev.tierlock.cli;

import dev.tierlock.HostProcesses;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * {@code checkout-lock}: who holds this checkout's transaction lock ({@code <state>/transaction.lock},
 * which every transaction on the checkout takes after the global lease), by the holder its lock file
 * names ({@link CheckoutLockFile}): free, held by a live process, or held by a stopped one, which
 * blocks every transaction on this checkout until it is resumed or ended (break-glass on the global
 * lease does not free it). It reads the file only: it never takes the lock.
 */
final class CheckoutLockCheck implements DoctorCheck {

  static final String NAME = "checkout-lock";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public DoctorFinding run(DoctorContext doctor) {
    Path file = doctor.state().resolve(StateDirectoryCheck.TRANSACTION_LOCK);
    Optional<CheckoutLockFile> lock;
    try {
      lock = CheckoutLockFile.read(doctor.state(), HostProcesses.system());
    } catch (IOException e) {
      return DoctorFinding.warn(NAME, "Cannot read " + file + ": " + e.getMessage(),
          "a transaction on this checkout that finds it held names its holder when it gives up", "local_io");
    }
    if (lock.isEmpty()) {
      return DoctorFinding.ok(NAME, "free: " + file);
    }
    CheckoutLockFile held = lock.get();
    if (held.holderGone()) {
      return DoctorFinding.ok(NAME, "free: " + file + " (its last holder, " + held.describe()
          + ", ended without emptying it; the operating system released its lock)");
    }
    if (held.holderStopped()) {
      return DoctorFinding.warn(NAME, "held by a stopped process: " + held.describe() + ", " + file
          + ": every transaction on this checkout waits for it", held.process().resumeOrEnd()
          + "; 'tierlock lock release' does not free this lock", null);
    }
    return DoctorFinding.ok(NAME, "held by " + held.describe() + ", " + file,
        "a transaction on this checkout runs; others on it wait for it");
  }
}
