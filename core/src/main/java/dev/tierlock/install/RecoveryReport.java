package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import java.nio.file.Path;
import java.util.List;

/**
 * What one recovery pass did with the installs interrupted on this checkout.
 *
 * @param rolledForward extensions whose swap had finished and the lockfile pins: the new version stays, the old files were deleted
 * @param rolledBack extensions put back as they were before their interrupted install or removal
 * @param swept staging directories without a journal, older than an hour, deleted
 * @param left journals that could not be judged: left as they are, with why; their extensions are refused until an operator looks
 */
public record RecoveryReport(List<ExtensionName> rolledForward, List<ExtensionName> rolledBack, List<Path> swept,
    List<InstallException> left) {

  /** The report of a pass that found nothing. */
  public static final RecoveryReport NOTHING = new RecoveryReport(List.of(), List.of(), List.of(), List.of());

  /**
   * Copies the lists.
   *
   * @param rolledForward extensions whose swap had finished and the lockfile pins: the new version
   *     stays, the old files were deleted
   * @param rolledBack extensions put back as they were before their interrupted install or removal
   * @param swept staging directories without a journal, older than an hour, deleted
   * @param left journals that could not be judged: left as they are, with why; their extensions are
   *     refused until an operator looks
   */
  public RecoveryReport {
    rolledForward = List.copyOf(rolledForward);
    rolledBack = List.copyOf(rolledBack);
    swept = List.copyOf(swept);
    left = List.copyOf(left);
  }

  /** {@return whether the pass found nothing to do} */
  public boolean isEmpty() {
    return rolledForward.isEmpty() && rolledBack.isEmpty() && swept.isEmpty() && left.isEmpty();
  }
}
