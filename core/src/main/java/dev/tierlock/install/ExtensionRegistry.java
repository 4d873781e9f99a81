package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import java.io.InputStream;

/**
 * Where extensions come from when the tier does not have them: the embedding tool's registry (an
 * HTTP service, a directory: {@link ExtensionRegistries#directory}). A port the embedding tool
 * implements. It may be absent (an {@link Installer} without one installs from the tier alone) or
 * offline; either way its failures are typed.
 *
 * <p>Implementations are thread-safe. Each call is bounded by the implementation's own deadline.
 */
public interface ExtensionRegistry {

  /**
   * Resolves {@code name} and {@code constraint} to one release.
   *
   * @param name the extension
   * @param constraint the versions acceptable
   * @return the release, with the checksum the registry states, if any
   * @throws InstallException {@link InstallException#registryNotFound} if no release matches, {@link
   *     InstallException#registryUnavailable} if the registry cannot answer now
   */
  RegistryRelease resolve(ExtensionName name, VersionConstraint constraint);

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
  InputStream open(RegistryRelease release);
}
