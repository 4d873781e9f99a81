package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import dev.tierlock.archive.ArchiveException;
import dev.tierlock.archive.ArchiveFile;
import dev.tierlock.archive.ArchiveLimits;
import dev.tierlock.archive.ArchiveTransactions;
import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.archive.VerifiedArchive;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Prepares an install with no lock held: fetches the archive (from the tier when the lockfile pins
 * it, else from the registry), verifies it, extracts it into a fresh {@code
 * <pulledRoot>/.tierlock-staging/prepared-<id>/tree}, checks its manifest, runs the safety analysis,
 * and prepares the dependencies the lockfile and the disk do not already satisfy, each as its own
 * request. A failure leaves nothing of the prepare behind (every staged tree and download, the
 * dependencies' too) and nothing reached the tier. Stateless between calls and thread-safe.
 *
 * <p>The tier first: when the lockfile's entry has a checksum and the request restores it ({@link
 * VersionConstraint#LOCKED}) or pins exactly its version, the tier's archive is used and the
 * registry is not called. Its manifest must carry the entry's name and version. When the tier holds
 * no such object, the registry serves that exact version, and its bytes must match the entry's
 * checksum and a checksum the registry stated. Otherwise the registry resolves the constraint
 * ({@code LOCKED} without an entry meaning {@link VersionConstraint#LATEST}); an archive whose
 * stated checksum it matches is verified into the archive cache ({@link PreparedInstall#storable});
 * one without a stated checksum installs but is never stored.
 */
final class Preparer {

  /** The deepest chain of dependencies prepared below the requested extension. */
  static final int MAX_DEPTH = 32;

  /** The prefix of every staging directory a prepare creates under {@link Roots#stagingRoot}. */
  static final String PREFIX = "prepared-";

  /** The name of the extracted tree inside a prepare's staging directory. */
  static final String TREE = "tree";

  private static final Pattern ID = Pattern.compile("[0-9A-Za-z_-]{1,64}");

  private final ExtensionLayout layout;
  private final @Nullable ExtensionRegistry registry;
  private final @Nullable SafetyAnalyzer safety;
  private final ArchiveTransactions archives;
  private final ArchiveLimits limits;
  private final Supplier<String> ids;

  /**
   * Creates the preparer.
   *
   * @param layout where the extensions live (the staging root is under its pulled root)
   * @param registry where releases come from when the tier cannot serve them; null for the tier alone
   * @param safety the analysis run on each staged tree; null for none
   * @param archives the tier's archives: reads of pinned archives, and the verified cache of storable ones
   * @param limits the caps of the download and the extraction
   * @param ids the staging ids, each a plain name ({@code [0-9A-Za-z_-]{1,64}}) not used before
   */
  Preparer(ExtensionLayout layout, @Nullable ExtensionRegistry registry, @Nullable SafetyAnalyzer safety,
      ArchiveTransactions archives, ArchiveLimits limits, Supplier<String> ids) {
    this.layout = Objects.requireNonNull(layout, "layout");
    this.registry = registry;
    this.safety = safety;
    this.archives = Objects.requireNonNull(archives, "archives");
    this.limits = Objects.requireNonNull(limits, "limits");
    this.ids = Objects.requireNonNull(ids, "ids");
  }

  /**
   * Prepares {@code request} against {@code lockfile} (the shared lockfile as read now, no lock held).
   *
   * @return the staged extension and its dependencies; close it to discard them
   * @throws InstallException ({@code registry_unavailable}) if the registry is needed and is offline, fails, breaks
   *     mid-stream, or none is configured
   * @throws InstallException ({@code registry_not_found}) if the registry has no matching release
   * @throws InstallException ({@code install_manifest_mismatch}) if the archive's manifest is missing, unreadable, names another
   *     extension, or (for an exact pin or a restore) another version
   * @throws InstallException ({@code install_unsafe}) if the safety analysis refuses the staged files
   * @throws InstallException ({@code install_failed}) if the staging cannot be written, or the dependencies nest deeper
   *     than {@value #MAX_DEPTH}
   * @throws ArchiveException ({@code archive_tampered}) if the bytes do not match the checksum the tier's key, the
   *     lockfile entry or the registry states
   * @throws dev.tierlock.archive.ArchiveException if the archive is over a cap, hostile or corrupt
   * @throws dev.tierlock.spi.DatastoreException if reading the tier fails
   */
  PreparedInstall prepare(InstallRequest request, Lockfile lockfile) {
    return prepare(request, lockfile, true);
  }

  /**
   * Prepares {@code request} as {@link #prepare(InstallRequest, Lockfile)} does, and its
   * dependencies only when {@code withDependencies}: convergence restores each entry on its own,
   * since each dependency the lockfile pins is an entry of its own.
   */
  PreparedInstall prepare(InstallRequest request, Lockfile lockfile, boolean withDependencies) {
    Session session = new Session(lockfile, withDependencies);
    try {
      return session.finish(session.stage(request, List.of(request.name())));
    } catch (RuntimeException | Error e) {
      session.discard(e);
      throw e;
    }
  }

  /** What one extension's fetch produced. */
  private record Fetched(Path file, boolean download, String checksum, InstallResult.Source source,
      ExtensionRegistry.@Nullable Release release, boolean storable, Optional<String> expectedVersion) {}

  /** One extension staged, before its archive is verified for the tier. */
  private record Staged(InstallRequest request, Fetched fetched, ExtensionManifest manifest, Path tree,
      List<Staged> dependencies) {}

  /** One call of {@link #prepare}: the names prepared so far and every directory it created. */
  private final class Session {
    private final Lockfile lockfile;
    private final Set<ExtensionName> seen = new HashSet<>();
    private final List<Path> directories = new ArrayList<>();

    private final boolean withDependencies;

    Session(Lockfile lockfile, boolean withDependencies) {
      this.lockfile = Objects.requireNonNull(lockfile, "lockfile");
      this.withDependencies = withDependencies;
    }

    Staged stage(InstallRequest request, List<ExtensionName> chain) {
      ExtensionName name = request.name();
      seen.add(name);
      Path directory = newDirectory(name);
      Fetched fetched = fetch(request, directory);
      Path tree = directory.resolve(TREE);
      archives.extract(fetched.file(), tree);
      if (fetched.download() && !fetched.storable()) {
        StagingFiles.deleteQuietly(fetched.file());
      }
      ExtensionManifest manifest = manifest(name, tree.resolve(layout.manifestPath()), fetched.expectedVersion());
      if (safety != null) {
        safety.analyze(name, manifest.version(), tree);
      }
      List<Staged> dependencies = new ArrayList<>();
      Map<ExtensionName, VersionConstraint> wanted = withDependencies ? manifest.dependencies() : Map.of();
      for (Map.Entry<ExtensionName, VersionConstraint> dependency : new TreeMap<>(wanted).entrySet()) {
        ExtensionName dep = dependency.getKey();
        if (seen.contains(dep) || satisfied(dep, dependency.getValue())) {
          continue; // prepared once per call; a cycle back to one in progress is this same prepare
        }
        List<ExtensionName> path = new ArrayList<>(chain);
        path.add(dep);
        if (chain.size() > MAX_DEPTH) {
          throw InstallException.failed(name.value(), "its dependencies nest deeper than " + MAX_DEPTH + " levels: "
              + String.join(" -> ", path.stream().map(ExtensionName::value).toList()), null);
        }
        // its own request: a restore when the lockfile has it, else the manifest's constraint; only
        // the record policy is the parent's
        // the pinned version when it is one the parent accepts (a restore, from the tier), else the
        // parent's constraint, resolved afresh
        VersionConstraint constraint = lockfile.entry(dep).filter(e -> accepts(dependency.getValue(), e.version()))
            .isPresent() ? VersionConstraint.LOCKED : dependency.getValue();
        dependencies.add(stage(new InstallRequest(dep, constraint, request.policy()), List.copyOf(path)));
      }
      return new Staged(request, fetched, manifest, tree, dependencies);
    }

    PreparedInstall finish(Staged staged) {
      List<PreparedInstall> dependencies = new ArrayList<>();
      for (Staged dependency : staged.dependencies()) {
        dependencies.add(finish(dependency));
      }
      Fetched fetched = staged.fetched();
      VerifiedArchive storable = null;
      if (fetched.storable()) {
        storable = archives.verify(ExtensionArchiveKey.of(staged.request().name(), fetched.checksum()), fetched.file());
      }
      if (fetched.download()) {
        StagingFiles.deleteQuietly(fetched.file());
      }
      return new PreparedInstall(staged.request(), staged.manifest(), fetched.checksum(), fetched.source(),
          fetched.release(), storable, staged.tree(), dependencies);
    }

    void discard(Throwable failure) {
      for (Path directory : directories) {
        try {
          StagingFiles.delete(directory);
        } catch (IOException | RuntimeException e) {
          failure.addSuppressed(e);
        }
      }
    }

    private Path newDirectory(ExtensionName name) {
      String id = ids.get();
      if (id == null || !ID.matcher(id).matches()) {
        throw new IllegalStateException("Cannot stage " + name + ": the staging id \"" + id + "\" is not a plain name"
            + " ([0-9A-Za-z_-]{1,64})");
      }
      Path root = Roots.stagingRoot(layout);
      Path directory = root.resolve(PREFIX + id);
      try {
        Files.createDirectories(root);
        Files.createDirectory(directory);
      } catch (FileAlreadyExistsException e) {
        throw InstallException.failed(name.value(), "its staging directory " + directory + " already exists", e);
      } catch (IOException e) {
        throw InstallException.failed(name.value(), "cannot create its staging directory " + directory + ": " + e, e);
      }
      directories.add(directory);
      return directory;
    }

    private Fetched fetch(InstallRequest request, Path directory) {
      ExtensionName name = request.name();
      VersionConstraint constraint = request.constraint();
      Optional<LockfileEntry> entry = lockfile.entry(name);
      Optional<String> pinned = entry
          .filter(e -> constraint.isLocked() || constraint.exactVersion().equals(Optional.of(e.version())))
          .flatMap(LockfileEntry::checksum);
      if (pinned.isPresent()) {
        String version = entry.orElseThrow().version();
        ExtensionArchiveKey key = ExtensionArchiveKey.of(name, pinned.get());
        Optional<ArchiveFile> hit = archives.store().read(key);
        if (hit.isPresent()) {
          return new Fetched(hit.get().path(), false, key.sha256(), InstallResult.Source.TIER, null, false,
              exactPin(version));
        }
        ExtensionRegistry source = requireRegistry(name, "the tier holds no archive at " + key.tierPath());
        RegistryDownload download = download(source, name, exactly(name, version), directory);
        String where = "the registry's " + name + "@" + download.release().version();
        if (!download.sha256().equals(key.sha256())) {
          throw ArchiveException.tampered(key, download.sha256(), "restore", where);
        }
        if (download.release().checksum().isEmpty()) {
          throw ArchiveException.tampered(key, download.sha256(), "restore", where
              + " (the registry stated no checksum for them, and a pinned archive is restored only from stated,"
              + " matching bytes)");
        }
        return new Fetched(download.file(), true, download.sha256(), InstallResult.Source.REGISTRY, download.release(),
            true, exactPin(version));
      }
      ExtensionRegistry source = requireRegistry(name, entry.isPresent()
          ? "the lockfile's entry pins no archive for this version" : "the lockfile has no entry for it");
      VersionConstraint asked = constraint;
      if (constraint.isLocked()) {
        asked = entry.isPresent() ? exactly(name, entry.get().version()) : VersionConstraint.LATEST;
      }
      RegistryDownload download = download(source, name, asked, directory);
      return new Fetched(download.file(), true, download.sha256(), InstallResult.Source.REGISTRY, download.release(),
          download.release().checksum().isPresent(), asked.exactVersion());
    }

    /**
     * Returns the version an archive pinned by an entry of {@code version} must have: that version
     * when the entry pins an exact one, none when it pins a constraint (the checksum names the archive).
     */
    private static Optional<String> exactPin(String version) {
      try {
        return VersionConstraint.of(version).exactVersion().isPresent() ? Optional.of(version) : Optional.empty();
      } catch (IllegalArgumentException e) {
        return Optional.of(version);
      }
    }

    private ExtensionRegistry requireRegistry(ExtensionName name, String why) {
      if (registry == null) {
        throw InstallException.registryUnavailable(name.value(), "no registry is configured and " + why, null);
      }
      return registry;
    }

    private VersionConstraint exactly(ExtensionName name, String version) {
      try {
        return VersionConstraint.exactly(version);
      } catch (IllegalArgumentException e) {
        // a version the registry cannot be asked for exactly: nothing can match it
        InstallException failure = InstallException.registryNotFound(name.value(), version);
        failure.addSuppressed(e);
        throw failure;
      }
    }

    private ExtensionManifest manifest(ExtensionName name, Path file, Optional<String> expectedVersion) {
      if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
        throw InstallException.manifestMismatch(name.value(), "the archive has no manifest at " + layout.manifestPath(), null);
      }
      ExtensionManifest manifest = layout.readManifest(file);
      if (!manifest.name().equals(name)) {
        throw InstallException.manifestMismatch(name.value(), "the archive's manifest names " + manifest.name()
            + ", not " + name, null);
      }
      if (expectedVersion.isPresent() && !manifest.version().equals(expectedVersion.get())) {
        throw InstallException.manifestMismatch(name.value(), "the archive's manifest has version " + manifest.version()
            + ", not " + expectedVersion.get(), null);
      }
      return manifest;
    }

    /**
     * Returns whether the lockfile has an entry for {@code name} at a version {@code constraint}
     * accepts, and its live manifest has that entry's version.
     */
    private boolean satisfied(ExtensionName name, VersionConstraint constraint) {
      Optional<LockfileEntry> entry = lockfile.entry(name);
      if (entry.isEmpty() || !accepts(constraint, entry.get().version())) {
        return false;
      }
      Path live = Roots.extensionRoot(layout, name).resolve(layout.manifestPath());
      if (!Files.isRegularFile(live)) {
        return false;
      }
      try {
        ExtensionManifest manifest = layout.readManifest(live);
        return manifest.name().equals(name) && manifest.version().equals(entry.get().version());
      } catch (InstallException e) {
        if (!e.code().equals(InstallException.MANIFEST_MISMATCH)) {
          throw e;
        }
        return false; // an unreadable live manifest is not satisfied: prepare it again
      }
    }
  }

  /**
   * Returns whether {@code constraint} accepts {@code version}: {@code locked} and {@code latest}
   * accept any; a range this engine cannot read is left to the pin (accepted), since only the
   * registry interprets it.
   */
  static boolean accepts(VersionConstraint constraint, String version) {
    if (constraint.isLocked() || constraint.equals(VersionConstraint.LATEST)) {
      return true;
    }
    try {
      return VersionSelector.highest(constraint.text(), List.of(version)).isPresent();
    } catch (IllegalArgumentException e) {
      return true;
    }
  }

  /** Returns the registry releases come from, if one is configured. */
  Optional<ExtensionRegistry> registry() {
    return Optional.ofNullable(registry);
  }

  /**
   * Downloads the release {@code source} resolves {@code constraint} to into {@code directory}, as
   * {@link RegistryDownload#fetch} does, within this preparer's compressed cap.
   */
  RegistryDownload download(ExtensionRegistry source, ExtensionName name, VersionConstraint constraint,
      Path directory) {
    return RegistryDownload.fetch(source, name, constraint, directory, limits);
  }
}
