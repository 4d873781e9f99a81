package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Decides whether recovery may act on a journal: every path it names must be exactly the one
 * derived from its extension's name, its staging id and the layout ({@link StagingPaths}), its
 * lockfile one of those given, its parts consistent with one another. A journal that fails is left
 * as it is, with every file it names: acting on it could move another extension's files, or files
 * outside any staging. Stateless.
 */
final class JournalCheck {

  private JournalCheck() {}

  /**
   * Checks {@code journal}, found in the staging directory named {@code dirId}.
   *
   * @param lockfilePaths the resolved lockfile paths accepted, matched exactly
   * @param file the journal file, named in the error
   * @throws InstallException ({@code install_journal_invalid}) if any part is not what it must be
   */
  static void require(InstallJournal journal, String dirId, ExtensionLayout layout, Set<Path> lockfilePaths,
      Path file) {
    String problem = problem(journal, dirId, layout, lockfilePaths);
    if (problem != null) {
      throw InstallException.journalInvalid(journal.extension().value(), file, problem, null);
    }
  }

  private static String problem(InstallJournal journal, String dirId, ExtensionLayout layout,
      Set<Path> lockfilePaths) {
    ExtensionName name = journal.extension();
    String id = journal.stagingId();
    if (!id.equals(dirId)) {
      return "its staging id " + id + " is not its directory's name " + dirId;
    }
    if (!lockfilePaths.contains(Path.of(journal.lockfilePath()))) {
      return "its lockfile " + journal.lockfilePath() + " is not one of this checkout's " + lockfilePaths;
    }
    boolean removal = journal.isRemoval();
    if ((journal.newManifestDigest() == null) != removal || (journal.manifest().staged() == null) != removal) {
      return "its checksum, new manifest digest and staged manifest are not all given (an install) or all null"
          + " (a removal)";
    }
    List<Path> lives = StagingPaths.lives(layout, name);
    List<InstallJournal.Root> roots = journal.roots();
    if (roots.size() != lives.size()) {
      return "it names " + roots.size() + " roots where the layout has " + lives.size();
    }
    for (int i = 0; i < roots.size(); i++) {
      InstallJournal.Root root = roots.get(i);
      Path live = lives.get(i);
      Path stagingDir = StagingPaths.stagingDir(layout, i, live, id);
      SwapRoot.Role role = i == 0 ? SwapRoot.Role.EXTENSION : SwapRoot.Role.BUNDLE;
      if (root.index() != i || root.role() != role) {
        return "root " + i + " is not the " + role.name().toLowerCase(java.util.Locale.ROOT) + " root at index " + i;
      }
      String path = mismatch("live", root.live(), live)
          + mismatch("stagingDir", root.stagingDir(), stagingDir)
          + mismatch("old", root.old(), StagingPaths.old(stagingDir, i))
          + mismatch("new", root.incoming(), StagingPaths.incoming(stagingDir, i));
      if (!path.isEmpty()) {
        return "root " + i + path;
      }
      if (removal && root.hasNew() && (i > 0 || journal.nestedRoots().isEmpty())) {
        return "root " + i + " has new content in a removal";
      }
      if (!removal && i == 0 && !root.hasNew()) {
        return "the extension root has no new content in an install";
      }
    }
    Path extensionRoot = lives.get(0);
    String manifest = mismatch("manifest live", journal.manifest().live(),
        StagingPaths.liveManifest(extensionRoot, layout.manifestPath()));
    if (!removal) {
      manifest += mismatch("manifest staged", Objects.requireNonNull(journal.manifest().staged()),
          StagingPaths.stagedManifest(layout, id));
    }
    if (!manifest.isEmpty()) {
      return manifest.substring(1);
    }
    Set<String> seen = new HashSet<>();
    for (InstallJournal.Nested nested : journal.nestedRoots()) {
      if (!SwapPlan.isNested(name, nested.relDir()) || !seen.add(nested.relDir())) {
        return "nested root \"" + nested.relDir() + "\" is not another extension's root under " + name
            + " (or is named twice)";
      }
    }
    return null;
  }

  private static String mismatch(String what, Path found, Path derived) {
    return found.equals(derived) ? "" : " " + what + " " + found + " is not " + derived;
  }
}
