package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileEntry;
import dev.tierlock.TransactionContext;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** The removal of one extension inside a transaction holding the pulled-extensions lock: catalog, lockfile, files. */
final class Removal {

  private Removal() {}

  /**
   * Removes {@code name}: saves {@code catalog} first (a save that throws changes nothing), then
   * removes the entry (its archive stays in the tier, for a collection), then swaps the files
   * out under a journal. Nothing to remove (no entry, no files) changes nothing.
   *
   * @return the swap, to commit (delete the files) once the transaction has published or kept the
   *     removal pending; null when no file was on disk
   */
  static @Nullable Swap run(InstallEngine engine, TransactionContext tx, ExtensionName name, Catalog catalog) {
    ExtensionLayout layout = engine.layout();
    List<SwapRoot> roots = new ArrayList<>();
    roots.add(new SwapRoot(SwapRoot.Role.EXTENSION, Roots.extensionRoot(layout, name), null));
    for (ExtensionLayout.BundleRoot bundle : layout.bundleRoots(name)) {
      roots.add(new SwapRoot(SwapRoot.Role.BUNDLE, bundle.live(), null));
    }
    boolean onDisk = roots.stream().anyMatch(r -> Files.exists(r.live(), LinkOption.NOFOLLOW_LINKS));
    Optional<LockfileEntry> entry = tx.entry(name);
    if (entry.isEmpty() && !onDisk) {
      return null;
    }
    catalog.save(new Catalog.Update(List.of(), List.of(name)));
    engine.archives().remove(tx, name);
    if (!onDisk) {
      return null;
    }
    List<String> nested = NestedRoots.of(layout, name, tx.lockfile().names());
    SwapPlan plan = new SwapPlan(name, engine.newId(), engine.newId(), engine.lockfilePath().toString(),
        null, roots, layout.manifestPath(), nested);
    Swap swap = Swap.stage(plan, layout, engine.owners(), engine.boundaries());
    swap.swap();
    return swap;
  }
}
