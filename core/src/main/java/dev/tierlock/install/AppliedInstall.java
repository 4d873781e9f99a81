package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileEntry;
import dev.tierlock.TransactionContext;
import dev.tierlock.archive.VerifiedArchive;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * One extension of an apply: swapped in, and its entry written when the record policy allows;
 * undone by {@link #rollback}, finished by {@link #commit}. Not thread-safe: the running change's.
 */
final class AppliedInstall {

  private final ExtensionName name;
  private final ExtensionManifest manifest;
  private final Swap swap;
  private final Optional<LockfileEntry> previous;
  private final Optional<LockfileEntry> written;

  private AppliedInstall(ExtensionName name, ExtensionManifest manifest, Swap swap, Optional<LockfileEntry> previous,
      Optional<LockfileEntry> written) {
    this.name = name;
    this.manifest = manifest;
    this.swap = swap;
    this.previous = previous;
    this.written = written;
  }

  /**
   * Swaps {@code prepared} in and writes its entry into {@code tx} as its record policy says:
   * storing its archive first when it may be stored; a failure after the swap undoes it.
   */
  static AppliedInstall apply(InstallEngine engine, TransactionContext tx, PreparedInstall prepared) {
    ExtensionLayout layout = engine.layout();
    ExtensionName name = prepared.name();
    Optional<LockfileEntry> previous = tx.entry(name);
    requireCurrent(prepared, previous);
    boolean record = switch (prepared.request().policy()) {
      case ALWAYS -> true;
      case IF_MISSING_CHECKSUM -> previous.isEmpty() || previous.get().checksum().isEmpty();
      case NEVER -> false;
    };
    List<String> nested = engine.converging() ? engine.nestedRoots(name, tx.lockfile())
        : NestedRoots.of(layout, name, tx.lockfile().names());
    List<SwapRoot> roots = roots(layout, name, prepared.tree());
    SwapPlan plan = new SwapPlan(name, engine.newId(), engine.newId(), engine.lockfilePath().toString(),
        prepared.checksum(), roots, layout.manifestPath(), nested);
    Swap swap = Swap.stage(plan, layout, engine.owners(), engine.boundaries());
    prepared.consume();
    swap.swap();
    Optional<LockfileEntry> written = Optional.empty();
    try {
      if (record) {
        LockfileEntry entry = entry(engine, prepared, previous, roots, nested);
        Optional<VerifiedArchive> storable = prepared.storable();
        if (storable.isPresent()) {
          engine.archives().install(tx, storable.get(), entry);
        } else {
          tx.put(name, entry);
        }
        written = Optional.of(entry);
      }
    } catch (RuntimeException | Error e) {
      try {
        if (written.isPresent() || record) {
          restore(tx, name, previous);
        }
        swap.rollback();
      } catch (RuntimeException undo) {
        e.addSuppressed(undo);
      }
      throw e;
    }
    return new AppliedInstall(name, prepared.manifest(), swap, previous, written);
  }

  /**
   * Refuses {@code prepared} when the lockfile, as the transaction now sees it, no longer pins what
   * it was prepared from: a restore (or anything taken from the tier) whose pin a peer replaced or
   * removed since. Applying it would pin an archive the peer's publish may have deleted.
   */
  private static void requireCurrent(PreparedInstall prepared, Optional<LockfileEntry> current) {
    boolean fromPin = prepared.source() == InstallResult.Source.TIER || prepared.request().constraint().isLocked();
    if (!fromPin) {
      return;
    }
    Optional<String> pinned = current.flatMap(LockfileEntry::checksum);
    if (pinned.isPresent() && !pinned.get().equals(prepared.checksum())) {
      throw InstallBusyException.stale(prepared.name().value(), "the lockfile now pins sha256 " + pinned.get()
          + ", not the " + prepared.checksum() + " it was prepared from");
    }
    if (pinned.isEmpty() && prepared.source() == InstallResult.Source.TIER) {
      throw InstallBusyException.stale(prepared.name().value(), "the lockfile no longer pins the tier archive "
          + prepared.checksum() + " it was prepared from");
    }
  }

  ExtensionName name() {
    return name;
  }

  ExtensionManifest manifest() {
    return manifest;
  }

  Optional<LockfileEntry> previous() {
    return previous;
  }

  Optional<LockfileEntry> written() {
    return written;
  }

  /** Deletes the previous files kept in staging. */
  void commit() {
    swap.commit();
  }

  /** Puts the previous files back and, if an entry was written, the previous entry. */
  void rollback(TransactionContext tx) {
    swap.rollback();
    if (written.isPresent()) {
      restore(tx, name, previous);
    }
  }

  private static void restore(TransactionContext tx, ExtensionName name, Optional<LockfileEntry> previous) {
    if (previous.isPresent()) {
      tx.put(name, previous.get());
    } else {
      tx.remove(name);
    }
  }

  /**
   * Returns the roots of {@code name}: the extension root filled from {@code tree}, then each bundle
   * root, whose archive directory is first moved out of {@code tree} (so it does not land in the
   * extension root too).
   */
  private static List<SwapRoot> roots(ExtensionLayout layout, ExtensionName name, Path tree) {
    List<SwapRoot> roots = new ArrayList<>();
    roots.add(new SwapRoot(SwapRoot.Role.EXTENSION, Roots.extensionRoot(layout, name), tree));
    List<ExtensionLayout.BundleRoot> bundles = layout.bundleRoots(name);
    for (int i = 0; i < bundles.size(); i++) {
      ExtensionLayout.BundleRoot bundle = bundles.get(i);
      Path source = tree.resolve(bundle.archivePrefix());
      Path moved = null;
      try {
        if (Files.isDirectory(source, LinkOption.NOFOLLOW_LINKS)) {
          moved = tree.resolveSibling(tree.getFileName() + "-bundle-" + i);
          Files.move(source, moved, StandardCopyOption.ATOMIC_MOVE);
          pruneEmptyParents(tree, source.getParent());
        }
      } catch (IOException e) {
        throw InstallException.failed(name.value(), "cannot move the staged bundle " + bundle.archivePrefix()
            + " out of " + tree + " (" + e.getMessage() + ")", e);
      }
      roots.add(new SwapRoot(SwapRoot.Role.BUNDLE, bundle.live(), moved));
    }
    return roots;
  }

  private static void pruneEmptyParents(Path tree, Path dir) throws IOException {
    Path at = dir;
    while (at != null && at.startsWith(tree) && !at.equals(tree)) {
      try (Stream<Path> children = Files.list(at)) {
        if (children.findAny().isPresent()) {
          return;
        }
      }
      Files.delete(at);
      at = at.getParent();
    }
  }

  private static LockfileEntry entry(InstallEngine engine, PreparedInstall prepared, Optional<LockfileEntry> previous,
      List<SwapRoot> roots, List<String> nested) {
    ExtensionManifest manifest = prepared.manifest();
    boolean restore = previous.isPresent() && previous.get().version().equals(manifest.version())
        && previous.get().checksum().equals(Optional.of(prepared.checksum()));
    LockfileEntry.Builder builder = restore
        ? LockfileEntry.builder(manifest.version(), previous.get().pulledAt())
        : LockfileEntry.builder(manifest.version(), engine.clock().instant());
    previous.flatMap(LockfileEntry::channel).ifPresent(builder::channel);
    if (!previous.map(LockfileEntry::include).orElse(List.of()).isEmpty()) {
      builder.include(previous.get().include());
    }
    Optional<String> serverUrl = prepared.release().flatMap(ExtensionRegistry.Release::serverUrl)
        .or(() -> previous.flatMap(LockfileEntry::serverUrl));
    serverUrl.ifPresent(builder::serverUrl);
    if (prepared.source() == InstallResult.Source.TIER || prepared.storable().isPresent()) {
      builder.checksum(prepared.checksum());
    }
    Path extensionRoot = roots.get(0).live();
    try {
      FilesDigest.of(extensionRoot, nested, engine.layout()).ifPresent(builder::filesChecksum);
    } catch (IOException e) {
      throw InstallException.failed(prepared.name().value(), "cannot digest the installed files under "
          + extensionRoot + " (" + e.getMessage() + ")", e);
    }
    builder.files(InstalledFiles.list(engine.checkout(), roots, nested));
    return builder.build();
  }
}
