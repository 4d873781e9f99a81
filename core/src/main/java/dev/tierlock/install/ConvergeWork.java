package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import dev.tierlock.TransactionContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * What convergence does with the install engine of one checkout: look at an extension's files,
 * restore one entry alone from the tier, swap out the files of one the lockfile no longer has, and
 * recover. Over the install engine in converge mode.
 */
final class ConvergeWork {

  /**
   * What is on disk for one extension, as convergence judges it.
   *
   * @param version the version its live manifest names, empty when there is none (not installed)
   * @param digest the digest of its own files (skills, bundles and nested extensions' roots left
   *     out), empty when its root is not a directory
   * @param missing the files the entry lists under the extension's own root that are not on disk
   * @param skipped the digest of the files a restore replaces that {@code digest} leaves out (skills,
   *     {@code ._*} files, bundle roots: {@link LocalEdits#skippedDigest}), {@link LocalEdits#NONE}
   *     when there are none
   */
  record LocalFiles(Optional<String> version, Optional<String> digest, List<String> missing, String skipped) {

    /** {@return whether anything a restore would replace is on disk} */
    boolean present() {
      return version.isPresent() || digest.isPresent() || !skipped.equals(LocalEdits.NONE);
    }
  }

  private final InstallEngine engine;

  ConvergeWork(InstallEngine engine) {
    if (!engine.converging()) {
      throw new IllegalArgumentException("Cannot converge with " + engine + ": it is not in converge mode");
    }
    this.engine = engine;
  }

  boolean needsRecovery(java.util.Set<String> left) {
    Path staging = Roots.stagingRoot(engine.layout());
    if (!Files.isDirectory(staging, LinkOption.NOFOLLOW_LINKS)) {
      return false;
    }
    java.time.Instant sweepBefore = engine.clock().instant().minus(Recovery.SWEEP_AGE);
    try (Stream<Path> entries = Files.list(staging)) {
      for (Path entry : (Iterable<Path>) entries::iterator) {
        if (left.contains(entry.getFileName().toString())) {
          continue;  // judged already and left for an operator
        }
        Path journal = entry.resolve(StagingPaths.JOURNAL);
        if (Files.exists(journal, LinkOption.NOFOLLOW_LINKS)) {
          try {
            if (!engine.owners().isActive(InstallJournalCodec.read(journal).ownerId())) {
              return true;  // an install that died: recover it
            }
          } catch (IOException | InstallException e) {
            return true;  // recovery judges it, and reports it
          }
        } else if (Files.getLastModifiedTime(entry, LinkOption.NOFOLLOW_LINKS).toInstant().isBefore(sweepBefore)) {
          return true;  // old staging without a journal: swept
        }
      }
      return false;
    } catch (IOException e) {
      return true;  // recovery looks again, and reports what it cannot read
    }
  }

  RecoveryReport recover(TransactionContext change) {
    return engine.recover(change);
  }

  LocalFiles inspect(ExtensionName name, Optional<LockfileEntry> entry, Lockfile lockfile) {
    ExtensionLayout layout = engine.layout();
    Path root = Roots.extensionRoot(layout, name);
    Optional<String> version = Optional.empty();
    Path manifest = root.resolve(layout.manifestPath());
    if (Files.isRegularFile(manifest, LinkOption.NOFOLLOW_LINKS)) {
      try {
        ExtensionManifest read = layout.readManifest(manifest);
        if (read.name().equals(name)) {
          version = Optional.of(read.version());
        }
      } catch (InstallException e) {
        if (!e.code().equals(InstallException.MANIFEST_MISMATCH)) {
          throw e;
        }
        // unreadable: not installed, as far as convergence can tell
      }
    }
    List<String> nested = engine.nestedRoots(name, lockfile);
    Optional<String> digest;
    String skipped;
    try {
      digest = FilesDigest.of(root, nested, layout);
      skipped = LocalEdits.skippedDigest(root, nested, layout, layout.bundleRoots(name));
    } catch (IOException e) {
      digest = Optional.of("unreadable: " + e.getMessage());  // matches no filesChecksum
      skipped = digest.get();
    }
    List<String> missing = new ArrayList<>();
    if (entry.isPresent()) {
      String prefix = relative(engine.checkout(), root) + "/";
      for (String file : entry.get().files()) {
        if (!file.startsWith(prefix)) {
          continue;  // a skill, a bundle or another tool's path: not this root's
        }
        String rel = file.substring(prefix.length());
        if (rel.isEmpty() || layout.isSkill(rel) || nested.stream().anyMatch(n -> rel.startsWith(n + "/"))
            || rel.contains("..")) {
          continue;
        }
        if (!Files.exists(root.resolve(rel), LinkOption.NOFOLLOW_LINKS)) {
          missing.add(file);
        }
      }
    }
    return new LocalFiles(version, digest, List.copyOf(missing), skipped);
  }

  /**
   * Keeps a copy of what a restore of {@code name} would replace, as {@code files} found it, under
   * the state directory ({@link LocalEdits#keep}), and returns where.
   *
   * @throws IOException if the copy cannot be made whole
   */
  Path keep(ExtensionName name, LocalFiles files, Lockfile lockfile) throws IOException {
    ExtensionLayout layout = engine.layout();
    return LocalEdits.keep(engine.tierlock().stateDirectory(), name, files.version().orElse("unversioned"),
        files.digest().orElse("") + " " + files.skipped(), Roots.extensionRoot(layout, name),
        engine.nestedRoots(name, lockfile), layout.bundleRoots(name));
  }

  PreparedInstall prepare(ExtensionName name, Lockfile lockfile) {
    return engine.prepareRestore(name, lockfile);
  }

  /**
   * Applies {@code prepared} in {@code change}, after the pass's recovery ({@code recovered}),
   * refusing a name in {@code inFlight} (an install of it still in flight: {@code
   * install_busy}).
   */
  PendingInstall apply(TransactionContext change, PreparedInstall prepared, RecoveryReport recovered,
      Map<ExtensionName, Path> inFlight) {
    return engine.applyRecovered(change, prepared, recovered, name -> {
      Path journal = inFlight.get(name);
      if (journal != null) {
        throw InstallBusyException.inFlight(name.value(), journal);
      }
    });
  }

  /**
   * Returns the extensions another install of this checkout has in flight, each with its journal
   * (one listing of the staging): while the pass holds the pulled-extensions lock no install
   * starts a swap, so what this returns once holds for every apply of the pass.
   */
  Map<ExtensionName, Path> inFlight() {
    return engine.inFlight("the convergence pass");
  }

  Optional<Runnable> removeFiles(TransactionContext change, ExtensionName name) {
    if (change.entry(name).isPresent()) {
      throw new IllegalStateException("Cannot remove the files of " + name + " during convergence: the lockfile pins it");
    }
    ExtensionLayout layout = engine.layout();
    List<SwapRoot> roots = new ArrayList<>();
    roots.add(new SwapRoot(SwapRoot.Role.EXTENSION, Roots.extensionRoot(layout, name), null));
    for (ExtensionLayout.BundleRoot bundle : layout.bundleRoots(name)) {
      roots.add(new SwapRoot(SwapRoot.Role.BUNDLE, bundle.live(), null));
    }
    if (roots.stream().noneMatch(r -> Files.exists(r.live(), LinkOption.NOFOLLOW_LINKS))) {
      return Optional.empty();
    }
    List<String> nested = engine.nestedRoots(name, change.lockfile());
    SwapPlan plan = new SwapPlan(name, engine.newId(), engine.newId(), engine.lockfilePath().toString(),
        null, roots, layout.manifestPath(), nested);
    Swap swap = Swap.stage(plan, layout, engine.owners(), engine.boundaries());
    swap.swap();
    return Optional.of(swap::commit);
  }

  private static String relative(Path checkout, Path path) {
    StringBuilder rel = new StringBuilder();
    for (Path part : checkout.toAbsolutePath().normalize().relativize(path.toAbsolutePath().normalize())) {
      if (rel.length() > 0) {
        rel.append('/');
      }
      rel.append(part);
    }
    return rel.toString();
  }
}
