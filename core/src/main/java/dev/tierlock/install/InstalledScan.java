package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/** What {@link Installer#installed} reports: the disk against the lockfile. */
final class InstalledScan {

  private InstalledScan() {}

  static List<InstalledExtension> scan(ExtensionLayout layout, Lockfile lockfile) {
    TreeSet<ExtensionName> names = new TreeSet<>(lockfile.names());
    names.addAll(onDisk(layout));
    List<InstalledExtension> result = new ArrayList<>();
    for (ExtensionName name : names) {
      result.add(one(layout, lockfile, name));
    }
    return result;
  }

  /** Returns how {@code name} on disk compares with its entry in {@code lockfile}, if any. */
  static InstalledExtension one(ExtensionLayout layout, Lockfile lockfile, ExtensionName name) {
    Optional<LockfileEntry> entry = lockfile.entry(name);
    Path root = Roots.extensionRoot(layout, name);
    Optional<String> version = liveVersion(layout, root);
    InstalledExtension.State state;
    if (version.isEmpty()) {
      state = entry.isPresent() ? InstalledExtension.State.MISSING : InstalledExtension.State.UNRECORDED;
    } else if (entry.isEmpty()) {
      state = InstalledExtension.State.UNRECORDED;
    } else if (!pins(entry.get().version(), version.get())) {
      state = InstalledExtension.State.OTHER_VERSION;
    } else {
      List<String> nested = NestedRoots.of(layout, name, lockfile.names());
      boolean same;
      try {
        Optional<String> digest = FilesDigest.of(root, nested, layout);
        same = entry.get().filesChecksum().map(c -> digest.map(c::equals).orElse(false)).orElse(true);
      } catch (IOException e) {
        same = false;
      }
      state = same ? InstalledExtension.State.MATCHES : InstalledExtension.State.EDITED;
    }
    return new InstalledExtension(name, version, entry, state);
  }

  /**
   * Returns whether an entry of version {@code pinned} is at {@code installed}: the same version for
   * an exact pin; any version it accepts for a constraint pin (such as {@code ^1.2}: the checksum,
   * not the version, names its archive).
   */
  private static boolean pins(String pinned, String installed) {
    if (pinned.equals(installed)) {
      return true;
    }
    VersionConstraint constraint;
    try {
      constraint = VersionConstraint.of(pinned);
    } catch (IllegalArgumentException e) {
      return false;
    }
    return !constraint.isExact() && Preparer.accepts(constraint, installed);
  }

  /** Returns the version the live manifest under {@code root} names, or empty when it is absent or unreadable. */
  static Optional<String> liveVersion(ExtensionLayout layout, Path root) {
    Path manifest = root.resolve(layout.manifestPath());
    if (!Files.isRegularFile(manifest, LinkOption.NOFOLLOW_LINKS)) {
      return Optional.empty();
    }
    try {
      return Optional.of(layout.readManifest(manifest).version());
    } catch (InstallException e) {
      if (!e.code().equals(InstallException.MANIFEST_MISMATCH)) {
        throw e;
      }
      return Optional.empty();
    }
  }

  /** Returns the names of the directories under the pulled root that hold a manifest (staging excluded). */
  private static List<ExtensionName> onDisk(ExtensionLayout layout) {
    Path pulled = layout.pulledRoot().toAbsolutePath().normalize();
    List<ExtensionName> found = new ArrayList<>();
    if (!Files.isDirectory(pulled)) {
      return found;
    }
    String manifest = layout.manifestPath();
    try {
      Files.walkFileTree(pulled, java.util.Set.of(), 32, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
          if (dir.getFileName() != null && dir.getFileName().toString().startsWith(Roots.STAGING)) {
            return FileVisitResult.SKIP_SUBTREE;
          }
          if (!dir.equals(pulled) && Files.isRegularFile(dir.resolve(manifest), LinkOption.NOFOLLOW_LINKS)) {
            String candidate = pulled.relativize(dir).toString().replace('\\', '/');
            if (ExtensionName.isValid(candidate)) {
              found.add(ExtensionName.of(candidate));
            }
          }
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) {
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list the extensions under " + pulled, e);
    }
    return found;
  }
}
