package dev.tierlock.install;

import dev.tierlock.internal.AtomicFileWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends a swap's staging, in the order that keeps a crash at any point recoverable: after a commit
 * the journal goes first (the new version is then decided, and what is left is journal-less staging
 * that the sweep deletes); after a rollback it goes last (until then, recovery finishes the
 * rollback). Stateless.
 */
final class StagingCleanup {

  private static final Logger LOG = LoggerFactory.getLogger(StagingCleanup.class);

  private StagingCleanup() {}

  /**
   * Ends a swap rolled forward: deletes the journal, then the staging with the old content in it,
   * then, after a removal, the parents it left empty.
   *
   * @throws IOException if the journal cannot be deleted (nothing else was); a failure after it is
   *     logged, and what is left is swept later
   */
  static void committed(InstallJournal journal, Path journalFile, Path pulledRoot, SwapBoundary hook)
      throws IOException {
    Files.delete(journalFile);
    AtomicFileWriter.forceDirectory(journalFile.getParent());
    try {
      hook.at(SwapBoundary.COMMIT_JOURNAL_DELETED);
      for (Path dir : stagingDirs(journal)) {
        StagingFiles.delete(dir);
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("Cannot delete the staging of {} after its commit; it is swept later", journal.extension(), e);
    }
    if (journal.isRemoval()) {
      SwapFiles.deleteEmptyParents(journal.extensionRoot().live(), pulledRoot);
    }
  }

  /**
   * Ends a swap rolled back (or never swapped): checks no root's old content is still in staging,
   * deletes the staging but the journal, then the journal and its directory, then the parents a
   * fresh install had created and left empty.
   *
   * @throws IOException if old content is still in staging or a deletion fails; the journal then stays
   */
  static void rolledBack(InstallJournal journal, Path journalFile, Path pulledRoot, SwapBoundary hook)
      throws IOException {
    for (InstallJournal.Root root : journal.roots()) {
      if (SwapFiles.exists(root.old())) {
        throw new IOException("Cannot delete the staging of " + journal.extension() + ": " + root.old()
            + " still holds the root's old content");
      }
    }
    Path extensionStaging = journalFile.getParent();
    for (Path dir : stagingDirs(journal)) {
      if (dir.equals(extensionStaging)) {
        for (String part : new String[] {"new", "old", "discard", StagingPaths.STAGED_MANIFEST}) {
          StagingFiles.delete(dir.resolve(part));
        }
      } else {
        StagingFiles.delete(dir);
      }
    }
    hook.at(SwapBoundary.ROLLBACK_STAGING_DELETED);
    Files.deleteIfExists(journalFile);
    StagingFiles.delete(extensionStaging);
    AtomicFileWriter.forceDirectory(extensionStaging.getParent());
    Path live = journal.extensionRoot().live();
    if (!SwapFiles.exists(live)) {
      SwapFiles.deleteEmptyParents(live, pulledRoot);
    }
  }

  /** Returns the staging directories of the journal's roots: each bundle root's, then the extension root's. */
  private static Set<Path> stagingDirs(InstallJournal journal) {
    Set<Path> dirs = new LinkedHashSet<>();
    for (int i = 1; i < journal.roots().size(); i++) {
      dirs.add(journal.roots().get(i).stagingDir());
    }
    dirs.add(journal.extensionRoot().stagingDir());
    return dirs;
  }
}
