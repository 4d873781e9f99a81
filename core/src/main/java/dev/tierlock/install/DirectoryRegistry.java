package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A registry over a directory ({@link ExtensionRegistry#directory}): {@code
 * <dir>/<scope>/<name>[/<more>]/<version>.tar.gz}, each with an optional {@code
 * <version>.tar.gz.sha256} beside it. Reads only; stateless and thread-safe.
 */
final class DirectoryRegistry implements ExtensionRegistry {

  static final String SUFFIX = ".tar.gz";
  static final String CHECKSUM_SUFFIX = ".sha256";

  /** A version usable as a file name: no separators, no {@code .} or {@code ..}, not hidden. */
  private static final Pattern FILE_VERSION = Pattern.compile("[0-9A-Za-z][0-9A-Za-z.+_-]{0,127}");
  /** {@code sha256sum}'s line: the digest, optionally white space and a file name (binary mode marks it with {@code *}). */
  private static final Pattern CHECKSUM_LINE = Pattern.compile("([0-9a-f]{64})(?:[ \\t]+\\*?[^\\r\\n]+)?\\r?\\n?");
  private static final int MAX_CHECKSUM_BYTES = 4096;

  private final Path directory;

  DirectoryRegistry(Path directory) {
    this.directory = directory.toAbsolutePath().normalize();
  }

  @Override
  public ExtensionRegistry.Release resolve(ExtensionName name, VersionConstraint constraint) {
    Path releases = releases(name);
    Optional<String> exact = constraint.exactVersion();
    String version;
    if (exact.isPresent()) {
      version = exact.get();
      if (!isFileVersion(version) || !Files.isRegularFile(releases.resolve(version + SUFFIX))) {
        requireRoot(name);
        throw InstallException.registryNotFound(name.value(), constraint.text(), describe());
      }
    } else {
      String range = constraint.isLocked() ? VersionConstraint.LATEST.text() : constraint.text();
      version = VersionSelector.highest(range, versions(name, releases))
          .orElseThrow(() -> InstallException.registryNotFound(name.value(), constraint.text(), describe()));
    }
    return new ExtensionRegistry.Release(name, version,
        checksum(name, releases.resolve(version + SUFFIX + CHECKSUM_SUFFIX)), Optional.empty());
  }

  @Override
  public InputStream open(ExtensionRegistry.Release release) {
    ExtensionName name = release.name();
    if (!isFileVersion(release.version())) {
      throw InstallException.registryNotFound(name.value(), release.version(), describe());
    }
    Path archive = releases(name).resolve(release.version() + SUFFIX);
    try {
      return Files.newInputStream(archive);
    } catch (NoSuchFileException e) {
      requireRoot(name);
      throw InstallException.registryNotFound(name.value(), release.version(), describe());
    } catch (IOException e) {
      throw InstallException.registryUnavailable(name.value(), "cannot open " + archive + ": " + e, e);
    }
  }

  @Override
  public String toString() {
    return "DirectoryRegistry[" + directory + "]";
  }

  /** {@return the registry as a failure names it} */
  private String describe() {
    return "the directory registry " + directory;
  }

  static boolean isFileVersion(String version) {
    return FILE_VERSION.matcher(version).matches();
  }

  private Path releases(ExtensionName name) {
    Path path = directory;
    for (String part : name.value().split("/")) {
      path = path.resolve(part);
    }
    return path;
  }

  private void requireRoot(ExtensionName name) {
    if (!Files.isDirectory(directory)) {
      throw InstallException.registryUnavailable(name.value(), "the registry directory " + directory + " does not exist",
          null);
    }
  }

  private List<String> versions(ExtensionName name, Path releases) {
    requireRoot(name);
    List<String> versions = new ArrayList<>();
    if (!Files.isDirectory(releases)) {
      return versions;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(releases, "*" + SUFFIX)) {
      for (Path file : files) {
        String fileName = file.getFileName().toString();
        String version = fileName.substring(0, fileName.length() - SUFFIX.length());
        if (isFileVersion(version) && Files.isRegularFile(file)) {
          versions.add(version);
        }
      }
    } catch (IOException | RuntimeException e) {
      throw InstallException.registryUnavailable(name.value(), "cannot list " + releases + ": " + e, e);
    }
    return versions;
  }

  private static Optional<String> checksum(ExtensionName name, Path file) {
    byte[] bytes;
    try (InputStream in = Files.newInputStream(file)) {
      bytes = in.readNBytes(MAX_CHECKSUM_BYTES + 1);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw InstallException.registryUnavailable(name.value(), "cannot read checksum file " + file + ": " + e, e);
    }
    Matcher m = CHECKSUM_LINE.matcher(new String(bytes, StandardCharsets.UTF_8));
    if (bytes.length > MAX_CHECKSUM_BYTES || !m.matches()) {
      throw InstallException.registryUnavailable(name.value(), "checksum file " + file + " is malformed: it must hold 64"
          + " lowercase hex digits, optionally followed by white space and a file name", null);
    }
    return Optional.of(m.group(1));
  }
}
