package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a swap's staging lives, derived from the layout, the extension's name and the staging id
 * alone, so recovery can check that every path a journal names is the one it must be. The extension
 * root's staging is {@code pulledRoot/.tierlock-staging/<id>/} (with the journal {@value #JOURNAL}
 * and the staged manifest {@value #STAGED_MANIFEST}); a bundle root's is its sibling {@code
 * .tierlock-staging-<id>/}; each holds {@code new/<i>}, {@code old/<i>} and {@code discard/<i>}
 * for root {@code i}. Stateless.
 */
final class StagingPaths {

  /** The journal's file name in the extension root's staging. */
  static final String JOURNAL = "journal.json";

  /** The file name the new manifest waits under, in the extension root's staging, until it goes in last. */
  static final String STAGED_MANIFEST = "manifest.staged";

  /** The name prefix of a bundle root's staging directory, followed by the staging id. */
  static final String BUNDLE_PREFIX = Roots.STAGING + "-";

  /** The name prefix of the directories the preparation leaves under {@link Roots#stagingRoot}. */
  static final String PREPARED_PREFIX = "prepared-";

  private StagingPaths() {}

  /** Returns the extension root's staging directory of swap {@code stagingId}. */
  static Path extensionStaging(ExtensionLayout layout, String stagingId) {
    return Roots.stagingRoot(layout).resolve(stagingId);
  }

  /** Returns the journal of swap {@code stagingId}. */
  static Path journal(ExtensionLayout layout, String stagingId) {
    return extensionStaging(layout, stagingId).resolve(JOURNAL);
  }

  /** Returns the file the new manifest of swap {@code stagingId} waits in. */
  static Path stagedManifest(ExtensionLayout layout, String stagingId) {
    return extensionStaging(layout, stagingId).resolve(STAGED_MANIFEST);
  }

  /** Returns the staging directory of a bundle root: its sibling {@code .tierlock-staging-<id>}. */
  static Path bundleStaging(Path live, String stagingId) {
    return live.getParent().resolve(BUNDLE_PREFIX + stagingId);
  }

  /** Returns the live directories of every root of {@code name}: the extension root, then each bundle root. */
  static List<Path> lives(ExtensionLayout layout, ExtensionName name) {
    List<Path> lives = new ArrayList<>();
    lives.add(Roots.extensionRoot(layout, name));
    for (ExtensionLayout.BundleRoot bundle : layout.bundleRoots(name)) {
      lives.add(bundle.live());
    }
    return lives;
  }

  /** Returns the staging directory of root {@code index} (live at {@code live}) of swap {@code stagingId}. */
  static Path stagingDir(ExtensionLayout layout, int index, Path live, String stagingId) {
    return index == 0 ? extensionStaging(layout, stagingId) : bundleStaging(live, stagingId);
  }

  /** Returns where root {@code index}'s live content waits once moved out. */
  static Path old(Path stagingDir, int index) {
    return stagingDir.resolve("old").resolve(Integer.toString(index));
  }

  /** Returns where root {@code index}'s new content waits until moved in. */
  static Path incoming(Path stagingDir, int index) {
    return stagingDir.resolve("new").resolve(Integer.toString(index));
  }

  /** Returns where a rollback puts root {@code index}'s new content once moved back out. */
  static Path discard(Path stagingDir, int index) {
    return stagingDir.resolve("discard").resolve(Integer.toString(index));
  }

  /** Returns the manifest's live path: {@code manifestPath} ({@code /}-separated) under the extension root. */
  static Path liveManifest(Path extensionRoot, String manifestPath) {
    Path path = extensionRoot;
    for (String part : manifestPath.split("/")) {
      path = path.resolve(part);
    }
    return path;
  }

  /** Returns directory {@code relDir} ({@code /}-separated) under {@code root}. */
  static Path under(Path root, String relDir) {
    return liveManifest(root, relDir);
  }
}
