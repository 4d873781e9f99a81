package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import java.util.Objects;

/**
 * What to install: an extension, a version constraint and a record policy.
 *
 * @param name the extension
 * @param constraint the versions acceptable ({@link VersionConstraint#LATEST} for any)
 * @param policy whether the lockfile entry and the tier archive are written
 */
public record InstallRequest(ExtensionName name, VersionConstraint constraint, RecordPolicy policy) {

  /**
   * Checks for nulls.
   *
   * @param name the extension
   * @param constraint the versions acceptable ({@link VersionConstraint#LATEST} for any)
   * @param policy whether the lockfile entry and the tier archive are written
   */
  public InstallRequest {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(constraint, "constraint");
    Objects.requireNonNull(policy, "policy");
  }

  /**
   * {@return a request for {@code name} at {@code constraint}, recorded always}
   *
   * @param name the extension
   * @param constraint the versions acceptable
   */
  public static InstallRequest of(ExtensionName name, VersionConstraint constraint) {
    return new InstallRequest(name, constraint, RecordPolicy.ALWAYS);
  }

  /**
   * Parses {@code NAME[@CONSTRAINT]}, such as {@code @acme/tool@^1.2} ({@link
   * VersionConstraint#LOCKED} when no constraint is given), recorded always.
   *
   * @param spec the request's text, {@code NAME[@CONSTRAINT]}
   * @return the request
   * @throws dev.tierlock.InvalidInputException ({@code invalid_name}) if the name is not a scoped extension name
   * @throws IllegalArgumentException if the constraint is not one
   */
  public static InstallRequest parse(String spec) {
    int at = spec.indexOf('@', 1);
    if (at < 0) {
      return of(ExtensionName.of(spec), VersionConstraint.LOCKED);
    }
    return of(ExtensionName.of(spec.substring(0, at)), VersionConstraint.of(spec.substring(at + 1)));
  }

  /**
   * {@return this request with {@code value} as its record policy}
   *
   * @param value the record policy
   */
  public InstallRequest withPolicy(RecordPolicy value) {
    return new InstallRequest(name, constraint, value);
  }

  /** Whether an install writes the extension's entry into the shared lockfile (and its archive into the tier). */
  public enum RecordPolicy {
    /** Always: the entry says what was installed, and the archive is stored (the default). */
    ALWAYS,
    /**
     * Only when the lockfile has no entry for the extension, or its entry has no checksum: a restore
     * of a pinned entry leaves the entry as it is.
     */
    IF_MISSING_CHECKSUM,
    /** Never: the files are installed and the lockfile and the tier are left alone (convergence). */
    NEVER
  }
}
