package dev.tierlock.install;

import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A version constraint as a user writes it after {@code NAME@}: an exact version ({@code 1.2.3},
 * {@code =1.2.3}, {@code 1.2.3-rc.1}) or a range the registry resolves ({@code ^1.2}, {@code ~1},
 * {@code >=1 <2}, {@code *}, {@code latest}). Only the registry interprets ranges; the engine needs to
 * know whether a constraint pins one exact version, because an exact pin's archive must carry that
 * version in its manifest.
 *
 * @param text the constraint as given, trimmed
 */
public record VersionConstraint(String text) {

  // before the constants below, which the constructor checks against them
  private static final Pattern EXACT = Pattern.compile("=?v?(\\d+(\\.\\d+){0,2}([-+][0-9A-Za-z.+-]+)?)");
  private static final Pattern ALLOWED = Pattern.compile("[0-9A-Za-z.+^~<>=*|, -]{1,128}");

  /** The constraint that asks the registry for its latest release: {@code latest}. */
  public static final VersionConstraint LATEST = new VersionConstraint("latest");

  /**
   * The constraint of a restore: the version the shared lockfile pins (from the tier when its
   * archive is there), or {@link #LATEST} when the lockfile has no entry: {@code locked}. What a
   * request without a constraint means.
   */
  public static final VersionConstraint LOCKED = new VersionConstraint("locked");

  /**
   * Validates the constraint.
   *
   * @param text the constraint as given, trimmed
   * @throws IllegalArgumentException if it is blank, longer than 128 characters or holds a character
   *     no version constraint uses
   */
  public VersionConstraint {
    Objects.requireNonNull(text, "text");
    text = text.trim();
    if (!ALLOWED.matcher(text).matches()) {
      throw new IllegalArgumentException("Cannot read version constraint \"" + text + "\": use a version such as"
          + " 1.2.3, a range such as ^1.2 or >=1 <2, or latest");
    }
  }

  /**
   * Parses a constraint.
   *
   * @param text the constraint
   * @return it
   * @throws IllegalArgumentException as the constructor does
   */
  public static VersionConstraint of(String text) {
    return new VersionConstraint(text);
  }

  /**
   * {@return the constraint that pins exactly {@code version}}
   *
   * @param version the exact version
   */
  public static VersionConstraint exactly(String version) {
    VersionConstraint constraint = new VersionConstraint(version);
    if (constraint.exactVersion().isEmpty()) {
      throw new IllegalArgumentException("Cannot pin version \"" + version + "\": it is not one exact version");
    }
    return constraint;
  }

  /** {@return the one version this constraint pins, without a leading {@code =} or {@code v}; empty for a range} */
  public Optional<String> exactVersion() {
    var m = EXACT.matcher(text);
    return m.matches() ? Optional.of(m.group(1)) : Optional.empty();
  }

  /**
   * Returns the highest of {@code versions} this constraint accepts, as the directory registry
   * resolves a constraint ({@link ExtensionRegistry#directory} describes the versions and ranges it
   * reads): an exact version is itself; {@link #LATEST}, {@link #LOCKED} and {@code *} are the
   * highest release, or the highest pre-release when there is no release. Texts that are not such
   * versions are ignored. What a registry of its own can resolve with.
   *
   * @param versions the candidates, such as the versions a registry holds
   * @return the highest accepted, or empty when none is
   * @throws IllegalArgumentException if this is a range outside the subset the directory registry reads
   */
  public Optional<String> highest(Collection<String> versions) {
    return VersionSelector.highest(isLocked() ? LATEST.text : text, versions);
  }

  /**
   * Returns whether this constraint accepts {@code version}, as {@link #highest} resolves: {@link
   * #LATEST} and {@link #LOCKED} accept every version; a text that is not a version is accepted by
   * none.
   *
   * @param version the candidate
   * @return whether it is accepted
   * @throws IllegalArgumentException if this is a range outside the subset the directory registry reads
   */
  public boolean accepts(String version) {
    return highest(List.of(version)).isPresent();
  }

  /** {@return whether this is {@link #LOCKED}} */
  public boolean isLocked() {
    return text.equals(LOCKED.text);
  }

  /** {@return whether this constraint pins one exact version} */
  public boolean isExact() {
    return exactVersion().isPresent();
  }

  @Override
  public String toString() {
    return text;
  }
}
