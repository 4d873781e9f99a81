package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileEntry;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Where extensions come from when the tier does not have them: the embedding tool's registry (an
 * HTTP service, a directory: {@link #directory}). A port the embedding tool implements. It may
 * be absent (an {@link Installer} without one installs from the tier alone) or
 * offline; either way its failures are typed.
 *
 * <p>Implementations are thread-safe. Each call is bounded by the implementation's own deadline.
 */
public interface ExtensionRegistry {

  /**
   * Returns a registry over a directory, laid out as
   *
   * <pre>
   * &lt;dir&gt;/&lt;scope&gt;/&lt;name&gt;[/&lt;more&gt;]/&lt;version&gt;.tar.gz          the release's archive
   * &lt;dir&gt;/&lt;scope&gt;/&lt;name&gt;[/&lt;more&gt;]/&lt;version&gt;.tar.gz.sha256   its checksum (optional)
   * </pre>
   *
   * <p>such as {@code <dir>/@acme/tool/1.2.0.tar.gz}. The name's parts are directories as written
   * ({@code @acme}, {@code tool}); a nested name's releases sit beside the subdirectory of its
   * longer names. A checksum file holds 64 lowercase hex digits, optionally followed by white space
   * and a file name, as {@code sha256sum} writes it; a missing one means the registry states no
   * checksum (the archive installs but is never stored in the tier), a malformed one is an error.
   * The registry records no server address in the lockfile.
   *
   * <p><b>Resolving.</b> An exact version ({@code 1.2.0}, {@code =1.2.0}) is that file, literally.
   * {@link VersionConstraint#LATEST}, {@link VersionConstraint#LOCKED} and {@code *} are the
   * highest version present (the highest release; the highest pre-release only when there is no
   * release). Ranges are a small subset of the usual syntax, over versions {@code
   * MAJOR[.MINOR[.PATCH]][-PRERELEASE][+BUILD]} ordered as semantic versioning orders them:
   * comparators {@code >= > < <= =} with full or partial versions ({@code >=1.2 <2}), {@code ^V}
   * (up to the next major; for {@code 0.x} the next minor, for {@code 0.0.x} the next patch), {@code
   * ~V} (up to the next minor), white space meaning "and", {@code ||} meaning "or". A pre-release
   * matches only a set naming a pre-release of the same {@code MAJOR.MINOR.PATCH}. Files whose
   * version is not such a version, or not a plain file name, are ignored. Anything else (hyphen
   * ranges, commas, tags other than {@code latest}) is refused.
   *
   * <p><b>Failures.</b> {@link InstallException} {@code registry_not_found} when no file matches;
   * {@code registry_unavailable} when the directory is missing, a file cannot be read or a checksum
   * file is malformed; {@link IllegalArgumentException} for a range outside the subset.
   *
   * <p>The registry only reads; it is thread-safe, and has no deadline of its own (the file system's).
   *
   * @param directory the registry's root
   * @return the registry
   */
  static ExtensionRegistry directory(Path directory) {
    return new DirectoryRegistry(Objects.requireNonNull(directory, "directory"));
  }

  /**
   * Resolves {@code name} and {@code constraint} to one release.
   *
   * @param name the extension
   * @param constraint the versions acceptable
   * @return the release, with the checksum the registry states, if any
   * @throws InstallException {@link InstallException#registryNotFound} if no release matches, {@link
   *     InstallException#registryUnavailable} if the registry cannot answer now
   */
  Release resolve(ExtensionName name, VersionConstraint constraint);

  /**
   * Opens the archive ({@code .tar.gz}) of {@code release}; the caller closes the stream. The engine
   * reads it once, within the archive limits, and verifies it against the stated checksum.
   *
   * @param release a release this registry resolved
   * @return the archive's bytes, to read once and close
   * @throws InstallException {@link InstallException#registryNotFound} if the release has no archive,
   *     {@link InstallException#registryUnavailable} if the registry cannot serve it now (a stream that breaks
   *     mid-read may throw {@link java.io.UncheckedIOException}, which is treated the same)
   */
  InputStream open(Release release);

  /**
   * One release of an extension as a registry resolved it.
   *
   * @param name the extension
   * @param version the version the constraint resolved to
   * @param checksum the SHA-256 of the release's archive as the registry states it (64 lowercase hex),
   *     or empty when the registry states none; only an archive whose bytes match a stated checksum
   *     is ever stored in the tier
   * @param serverUrl the registry's address to record in the lockfile entry, if any
   */
  record Release(ExtensionName name, String version, Optional<String> checksum, Optional<String> serverUrl) {

    /**
     * Validates the release.
     *
     * @param name the extension
     * @param version the version the constraint resolved to
     * @param checksum the SHA-256 of the release's archive as the registry states it (64 lowercase
     *     hex), or empty when the registry states none; only an archive whose bytes match a stated
     *     checksum is ever stored in the tier
     * @param serverUrl the registry's address to record in the lockfile entry, if any
     * @throws IllegalArgumentException if the version is blank or the checksum is not 64 lowercase hex
     */
    public Release {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(version, "version");
      Objects.requireNonNull(checksum, "checksum");
      Objects.requireNonNull(serverUrl, "serverUrl");
      if (version.isBlank()) {
        throw new IllegalArgumentException("Cannot describe a release of " + name + ": its version is blank");
      }
      checksum.ifPresent(c -> {
        if (!LockfileEntry.DIGEST.matcher(c).matches()) {
          throw new IllegalArgumentException("Cannot describe release " + name + "@" + version + ": checksum \"" + c
              + "\" is not 64 lowercase hex digits");
        }
      });
    }
  }
}
