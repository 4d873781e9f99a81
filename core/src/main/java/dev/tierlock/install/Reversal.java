package dev.tierlock.install;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Rolls a swap back, and tells whether it is fully swapped, from the staging layout alone: which of
 * each root's live, {@code old/<i>}, {@code new/<i>} and {@code discard/<i>} exist, with what the
 * journal says it staged ({@code liveExisted}, {@code hasNew}); never from a manifest's verdict. A
 * root never moved out (no {@code old/<i>}) stays where it is, so the only copy of a root is never
 * moved to {@code discard/} or deleted. Each rollback step is one rename, so a rollback stopped at
 * any point is finished by running it again. Stateless.
 */
final class Reversal {

  private Reversal() {}

  /**
   * Puts every root back as it was before the swap: the extension root first (its manifest goes
   * with it), then the bundle roots from the last. For each root: when {@code old/<i>} exists, the
   * live content (new, or partly new) goes to {@code discard/<i>} and {@code old/<i>} back to live;
   * when it does not, a root that did not exist before and whose new content is live goes to {@code
   * discard/<i>}; anything else stays.
   *
   * @throws IOException if a rename fails (the renames before it stay done; run it again)
   */
  static void rollBack(InstallJournal journal, SwapBoundary hook) throws IOException {
    boolean filled = filled(journal);
    int count = journal.roots().size();
    for (int k = 0; k < count; k++) {
      InstallJournal.Root root = journal.roots().get(k == 0 ? 0 : count - k);
      Path live = root.live();
      if (SwapFiles.exists(root.old())) {
        if (SwapFiles.exists(live)) {
          discard(root, hook);
        }
        SwapFiles.createDirectories(live.getParent());
        SwapFiles.move(root.old(), live);
        hook.at(SwapBoundary.restored(root.index()));
      } else if (filled && !root.liveExisted() && root.hasNew() && SwapFiles.exists(live)
          && !SwapFiles.exists(root.incoming())) {
        discard(root, hook);
      }
    }
  }

  /**
   * Returns whether this swap's staging was ever filled, so that a root missing from {@code new/}
   * was moved in by it (and what is live there is its own): some new content still waits in staging,
   * or the new manifest does, or the live manifest is the new one. A swap that died before it filled
   * its staging moved nothing in, and whatever is live then (put there by anyone else) stays.
   */
  private static boolean filled(InstallJournal journal) throws IOException {
    for (InstallJournal.Root root : journal.roots()) {
      if (SwapFiles.exists(root.incoming())) {
        return true;
      }
    }
    Path staged = journal.manifest().staged();
    if (staged != null && SwapFiles.exists(staged)) {
      return true;
    }
    Path live = journal.manifest().live();
    return journal.newManifestDigest() != null && java.nio.file.Files.isRegularFile(live,
        java.nio.file.LinkOption.NOFOLLOW_LINKS) && FilesDigest.sha256(live).equals(journal.newManifestDigest());
  }

  private static void discard(InstallJournal.Root root, SwapBoundary hook) throws IOException {
    SwapFiles.createDirectories(root.discard().getParent());
    SwapFiles.move(root.live(), root.discard());
    hook.at(SwapBoundary.discarded(root.index()));
  }

  /**
   * Returns whether the layout is exactly the one a finished swap leaves: every root that existed
   * is in {@code old/<i>}, every root with new content is live and out of {@code new/<i>}, every
   * other root is absent, nothing is in {@code discard/}, and for an install the manifest is live
   * and out of staging. A rollback's first rename breaks it, so a journal still saying swapped but
   * partly rolled back is never rolled forward.
   */
  static boolean isSwapped(InstallJournal journal) {
    for (InstallJournal.Root root : journal.roots()) {
      if (root.liveExisted() && !SwapFiles.exists(root.old())) {
        return false;
      }
      if (root.hasNew() != SwapFiles.exists(root.live()) || SwapFiles.exists(root.incoming())
          || SwapFiles.exists(root.discard())) {
        return false;
      }
    }
    Path staged = journal.manifest().staged();
    return staged == null || (!SwapFiles.exists(staged) && SwapFiles.exists(journal.manifest().live()));
  }
}
