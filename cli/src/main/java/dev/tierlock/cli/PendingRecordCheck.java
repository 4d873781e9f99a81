package dev.tierlock.cli;

import dev.tierlock.LockfileOutcomeUnknownException;
import dev.tierlock.PendingChange;
import dev.tierlock.Tierlock;
import dev.tierlock.TierlockException;
import java.util.Optional;

/**
 * {@code pending-record}: the change this checkout saved and has not published, if any, and what to
 * run about it. It opens Tierlock on the checkout only if the self-check opened it already or the
 * state directory existed before the run, so that it creates nothing.
 */
final class PendingRecordCheck implements DoctorCheck {

  static final String NAME = "pending-record";

  /** The pending record's file name in the state directory (core's {@code PendingRecord}). */
  static final String RECORD = "managed-config-lockfile-unpublished";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public DoctorFinding run(DoctorContext doctor) {
    if (!doctor.tierlockOpen() && !doctor.stateExisted()) {
      return DoctorFinding.ok(NAME, "none (no state directory yet)");
    }
    Tierlock tierlock;
    try {
      tierlock = doctor.tierlock();
    } catch (TierlockException e) {
      return DoctorFinding.failure(NAME, "Cannot open the checkout " + doctor.checkout(), e, null);
    }
    Optional<PendingChange> pending;
    try {
      pending = tierlock.transaction().pending();
    } catch (TierlockException e) {
      return DoctorFinding.failure(NAME, "Cannot read the pending record", e, null);
    }
    return pending.map(PendingRecordCheck::finding).orElseGet(() -> DoctorFinding.ok(NAME, "none"));
  }

  private static DoctorFinding finding(PendingChange change) {
    String detail = change.describe() + " (record " + change.record() + ")";
    return switch (change.state()) {
      case UNPUBLISHED -> DoctorFinding.warn(NAME, detail, "saved here, not yet published: the next transaction on"
          + " this checkout publishes it ('tierlock pending apply' does it now; 'tierlock pending show' shows it)",
          "managed_config_unpublished");
      case IN_FLIGHT -> DoctorFinding.warn(NAME, detail, "a write's answer was lost: the next transaction on this"
          + " checkout settles it from the lineage ('tierlock pending apply' does it now)",
          LockfileOutcomeUnknownException.CODE);
      case OUTCOME_UNKNOWN -> DoctorFinding.fail(NAME, detail, "every transaction on this checkout fails until you run"
          + " 'tierlock pending show', then 'tierlock pending apply' or 'tierlock pending discard' (check the shared"
          + " lockfile first)", LockfileOutcomeUnknownException.CODE, ExitCodes.FAILURE);
      case UNREADABLE -> DoctorFinding.fail(NAME, detail, "every transaction on this checkout fails until you run"
          + " 'tierlock pending discard' (or publish it with the Tierlock version that wrote it)",
          LockfileOutcomeUnknownException.CODE, ExitCodes.FAILURE);
    };
  }
}
