package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import java.util.List;

/**
 * How {@link Installer#installPinned} ended: one outcome per entry of the shared lockfile, by name.
 *
 * @param outcomes what was done with each entry, sorted by name
 */
public record PinnedInstallResult(List<PinnedOutcome> outcomes) {

  /**
   * Copies the list.
   *
   * @param outcomes what was done with each entry, sorted by name
   */
  public PinnedInstallResult {
    outcomes = List.copyOf(outcomes);
  }

  /** {@return the extensions whose archive this run stored in the tier ({@link PinnedOutcome.Backfill#STORED})} */
  public List<ExtensionName> backfilled() {
    return outcomes.stream().filter(o -> o.backfill() == PinnedOutcome.Backfill.STORED).map(PinnedOutcome::name)
        .toList();
  }

  /** {@return the outcomes whose install or backfill failed} */
  public List<PinnedOutcome> failures() {
    return outcomes.stream().filter(PinnedOutcome::failed).toList();
  }
}
