package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.archive.VerifiedArchive;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * An extension fetched, verified and extracted into staging, with no lock held ({@link
 * Installer#prepare}), ready to be applied. It holds a staged tree on disk: apply it, or close it to
 * discard the tree (a tree left by a crash is swept after an hour). Not thread-safe.
 */
public final class PreparedInstall implements AutoCloseable {

  private final InstallRequest request;
  private final ExtensionManifest manifest;
  private final String checksum;
  private final InstallResult.Source source;
  private final ExtensionRegistry.@Nullable Release release;
  private final @Nullable VerifiedArchive storable;
  private final Path tree;
  private final List<PreparedInstall> dependencies;
  private boolean consumed;
  private boolean closed;

  PreparedInstall(InstallRequest request, ExtensionManifest manifest, String checksum, InstallResult.Source source,
      ExtensionRegistry.@Nullable Release release, @Nullable VerifiedArchive storable, Path tree,
      List<PreparedInstall> dependencies) {
    this.request = request;
    this.manifest = manifest;
    this.checksum = checksum;
    this.source = source;
    this.release = release;
    this.storable = storable;
    this.tree = tree;
    this.dependencies = List.copyOf(dependencies);
  }

  /** {@return the extension} */
  public ExtensionName name() {
    return request.name();
  }

  /** {@return what was asked for} */
  public InstallRequest request() {
    return request;
  }

  /** {@return the version staged (the manifest's)} */
  public String version() {
    return manifest.version();
  }

  /** {@return the staged manifest} */
  public ExtensionManifest manifest() {
    return manifest;
  }

  /** {@return the SHA-256 of the archive staged (64 lowercase hex)} */
  public String checksum() {
    return checksum;
  }

  /** {@return where the archive came from} */
  public InstallResult.Source source() {
    return source;
  }

  /** {@return the registry's release, when the archive came from the registry} */
  public Optional<ExtensionRegistry.Release> release() {
    return Optional.ofNullable(release);
  }

  /** {@return the dependencies prepared with it (those the lockfile and the disk did not already satisfy)} */
  public List<PreparedInstall> dependencies() {
    return dependencies;
  }

  /**
   * Returns the archive to store in the tier, verified against a checksum the registry stated; empty
   * when it came from the tier or the registry stated no checksum (such an archive is never stored).
   */
  Optional<VerifiedArchive> storable() {
    return Optional.ofNullable(storable);
  }

  /** Returns the extracted archive: the whole tree, bundle prefixes included. */
  Path tree() {
    return tree;
  }

  /** Marks the tree as taken by an apply: closing no longer deletes it. */
  void consume() {
    consumed = true;
  }

  /** Returns whether an apply took the tree. */
  boolean consumed() {
    return consumed;
  }

  /**
   * Discards what is left of the staging (the tree unless an apply took it, and its directory), for
   * the dependencies too. Never throws. Idempotent.
   */
  @Override
  public void close() {
    for (PreparedInstall dependency : dependencies) {
      dependency.close();
    }
    consumed = true;
    if (closed) {
      return;
    }
    closed = true;
    Path parent = tree.getParent();
    StagingFiles.deleteQuietly(parent != null && parent.getFileName().toString().startsWith(Preparer.PREFIX)
        ? parent : tree);
  }

  @Override
  public String toString() {
    return "PreparedInstall[" + name() + "@" + version() + " from " + source + ", sha256 " + checksum + "]";
  }
}
