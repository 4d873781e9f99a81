package dev.tierlock.install;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns a {@link SwapPlan} into the journal its swap writes first: checks the plan's roots are the
 * layout's, looks at the live roots and the sources (which exist, which nested roots the live
 * extension root holds, the manifests' digests) without changing anything, and derives every
 * staging path. Stateless.
 */
final class StagingPlanner {

  private StagingPlanner() {}

  /**
   * Returns the journal of {@code plan}, phase staged.
   *
   * @throws IllegalArgumentException if the plan's roots are not the layout's roots of its name
   * @throws InstallException ({@code install_failed}) if the staging id is in use, a source is not a directory, an
   *     install's source has no manifest, a new extension root holds a nested extension's root, or a
   *     file cannot be read; nothing was changed
   */
  static InstallJournal journal(SwapPlan plan, ExtensionLayout layout) {
    String name = plan.name().value();
    List<Path> lives = StagingPaths.lives(layout, plan.name());
    if (lives.size() != plan.roots().size()) {
      throw new IllegalArgumentException("Cannot stage " + name + ": the plan has " + plan.roots().size()
          + " roots where the layout has " + lives.size());
    }
    String id = plan.stagingId();
    try {
      List<InstallJournal.Root> roots = new ArrayList<>();
      List<InstallJournal.Nested> nested = new ArrayList<>();
      for (int i = 0; i < lives.size(); i++) {
        SwapRoot root = plan.roots().get(i);
        Path live = lives.get(i);
        if (!root.live().equals(live)) {
          throw new IllegalArgumentException("Cannot stage " + name + ": root " + i + " is " + root.live()
              + " where the layout has " + live);
        }
        Path stagingDir = StagingPaths.stagingDir(layout, i, live, id);
        if (SwapFiles.exists(stagingDir)) {
          throw InstallException.failed(name, "its staging " + stagingDir + " exists already", null);
        }
        Path source = root.source();
        if (source != null && !Files.isDirectory(source, LinkOption.NOFOLLOW_LINKS)) {
          throw InstallException.failed(name, "its new content " + source + " is not a directory", null);
        }
        boolean liveExisted = SwapFiles.exists(live);
        boolean hasNew = source != null;
        if (i == 0 && liveExisted) {
          for (String relDir : plan.nestedRoots()) {
            if (Files.isDirectory(StagingPaths.under(live, relDir), LinkOption.NOFOLLOW_LINKS)) {
              if (source != null && SwapFiles.exists(StagingPaths.under(source, relDir))) {
                throw InstallException.failed(name, "its new content holds " + relDir + ", the root of the"
                    + " installed extension " + name + "/" + relDir, null);
              }
              nested.add(new InstallJournal.Nested(relDir));
              hasNew = true;
            }
          }
        }
        roots.add(new InstallJournal.Root(i, root.role(), live, stagingDir, StagingPaths.old(stagingDir, i),
            StagingPaths.incoming(stagingDir, i), liveExisted, hasNew));
      }
      Path extensionRoot = lives.get(0);
      Path liveManifest = StagingPaths.liveManifest(extensionRoot, plan.manifestPath());
      String oldDigest = Files.isRegularFile(liveManifest, LinkOption.NOFOLLOW_LINKS)
          ? FilesDigest.sha256(liveManifest) : null;
      String newDigest = null;
      Path staged = null;
      Path source = plan.roots().get(0).source();
      if (source != null) {
        Path manifest = StagingPaths.liveManifest(source, plan.manifestPath());
        if (!Files.isRegularFile(manifest, LinkOption.NOFOLLOW_LINKS)) {
          throw InstallException.failed(name, "its new content has no manifest " + manifest, null);
        }
        newDigest = FilesDigest.sha256(manifest);
        staged = StagingPaths.stagedManifest(layout, id);
      }
      return new InstallJournal(plan.ownerId(), id, plan.name(), InstallJournal.Phase.STAGED, plan.lockfilePath(),
          plan.newChecksum(), oldDigest, newDigest, roots, new InstallJournal.Manifest(staged, liveManifest), nested);
    } catch (IOException e) {
      throw InstallException.failed(name, "its files cannot be read: " + e.getMessage(), e);
    }
  }
}
