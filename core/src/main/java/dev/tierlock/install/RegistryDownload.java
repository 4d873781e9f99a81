package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.archive.ArchiveException;
import dev.tierlock.archive.ArchiveLimits;
import dev.tierlock.archive.ExtensionArchiveKey;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;

/**
 * An archive downloaded from a registry into a temp file, hashed while it was copied: what a
 * prepare and a backfill fetch when the tier cannot serve them.
 *
 * @param release the release the registry resolved
 * @param file the downloaded archive
 * @param sha256 the SHA-256 of its bytes
 */
record RegistryDownload(ExtensionRegistry.Release release, Path file, String sha256) {

  private static final String DOWNLOAD = "archive.tar.gz";
  private static final int BUFFER = 64 * 1024;


  /**
   * Downloads the release {@code source} resolves {@code constraint} to into {@code directory}
   * (which exists), within the compressed cap, hashing it while it is copied.
   *
   * @throws ArchiveException ({@code archive_tampered}) if the registry stated a checksum the bytes do not match
   * @throws InstallException ({@code registry_not_found}) if no release matches
   * @throws InstallException ({@code registry_unavailable}) if the registry fails or the stream breaks
   * @throws ArchiveException ({@code archive_limit}) if the archive is over the compressed cap
   * @throws InstallException ({@code install_failed}) if the temp file cannot be written
   */
  static RegistryDownload fetch(ExtensionRegistry source, ExtensionName name, VersionConstraint constraint,
      Path directory, ArchiveLimits limits) {
    ExtensionRegistry.Release release;
    try {
      release = source.resolve(name, constraint);
    } catch (UncheckedIOException e) {
      throw InstallException.registryUnavailable(name.value(), "resolving " + constraint + " failed: " + e.getMessage(), e);
    }
    String what = name + "@" + release.version();
    Path file = directory.resolve(DOWNLOAD);
    MessageDigest sha256 = newDigest();
    try (InputStream in = open(source, release, what);
        OutputStream out = Files.newOutputStream(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      byte[] buffer = new byte[BUFFER];
      long copied = 0;
      for (int n = read(in, buffer, name, what); n >= 0; n = read(in, buffer, name, what)) {
        copied += n;
        if (copied > limits.maxCompressedBytes()) {
          throw ArchiveException.limit(what + " from the registry", ArchiveException.Limit.COMPRESSED_BYTES,
              limits.maxCompressedBytes(), copied);
        }
        sha256.update(buffer, 0, n);
        out.write(buffer, 0, n);
      }
    } catch (IOException | UncheckedIOException e) {
      // the stream's close, or the temp file's write or close
      throw InstallException.failed(name.value(), "cannot download " + what + " into " + file + ": " + e, e);
    }
    String digest = HexFormat.of().formatHex(sha256.digest());
    Optional<String> stated = release.checksum();
    if (stated.isPresent() && !stated.get().equals(digest)) {
      throw ArchiveException.tampered(ExtensionArchiveKey.of(name, stated.get()), digest, "download",
          "the registry's " + what);
    }
    return new RegistryDownload(release, file, digest);
  }

  private static InputStream open(ExtensionRegistry source, ExtensionRegistry.Release release, String what) {
    try {
      return Objects.requireNonNull(source.open(release), "the registry opened no stream");
    } catch (UncheckedIOException e) {
      throw InstallException.registryUnavailable(release.name().value(), "opening " + what + " failed: " + e.getMessage(),
          e);
    }
  }

  private static int read(InputStream in, byte[] buffer, ExtensionName name, String what) {
    try {
      return in.read(buffer);
    } catch (IOException | UncheckedIOException e) {
      throw InstallException.registryUnavailable(name.value(), "the download of " + what + " broke: " + e.getMessage(), e);
    }
  }

  private static MessageDigest newDigest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot hash archives: this JVM has no SHA-256", e);
    }
  }
}
