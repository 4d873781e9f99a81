package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileEntry;
import java.util.Objects;
import java.util.Optional;

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
public record RegistryRelease(ExtensionName name, String version, Optional<String> checksum, Optional<String> serverUrl) {

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
  public RegistryRelease {
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
