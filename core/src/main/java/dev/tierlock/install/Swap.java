package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One journaled stage-and-swap of an extension's roots ({@link SwapPlan}). {@link #stage} writes the
 * journal, then fills the staging; {@link #swap} moves every live root to {@code old/<i>} (phase 1),
 * then every new root in, bundles first, the extension root without its manifest, the manifest last
 * (phase 2), then records the journal as swapped; {@link #commit} or {@link #rollback} ends it. The
 * journal is re-read before each phase, and a swap whose journal another owner took is refused. No
 * rename targets an existing path. Whatever step a crash stops it at, {@link Recovery} finishes it
 * from the journal and the staging layout.
 *
 * <p>Not thread-safe: one caller drives it, holding the pulled-extensions lock from stage to end.
 */
final class Swap {

  private enum State { STAGED, SWAPPED, COMMITTED, UNDONE, LEFT }

  private final InstallJournal staged;
  private final Path journalFile;
  private final Path pulledRoot;
  private final OwnerIds owners;
  private final SwapBoundary hook;
  private final List<Path[]> done = new ArrayList<>();
  private State state = State.STAGED;
  private boolean holding;

  private Swap(InstallJournal staged, ExtensionLayout layout, OwnerIds owners, SwapBoundary hook) {
    this.staged = staged;
    this.journalFile = StagingPaths.journal(layout, staged.stagingId());
    this.pulledRoot = layout.pulledRoot().toAbsolutePath().normalize();
    this.owners = owners;
    this.hook = hook;
  }

  /**
   * Stages {@code plan}: registers its owner, writes the journal (phase staged) before any other
   * staging directory exists, creates the staging directories it needs ({@code new/} when a root
   * has new content, {@code old/} when one has live content to move out), moves each root's source
   * into {@code new/<i>}, moves the new manifest out to a file of its own, and copies each nested
   * root the live extension root holds into the new one. The live roots are not touched.
   *
   * @param plan the swap; its roots must be those the layout gives its name, in order
   * @param layout where the roots live
   * @param owners the owners in flight in this process
   * @param hook called at each boundary ({@link SwapBoundary#NONE} in production)
   * @return the staged swap
   * @throws InstallException ({@code install_failed}) if staging fails; the staging is then deleted (the sources moved
   *     into it with it) and the live roots are as they were
   */
  static Swap stage(SwapPlan plan, ExtensionLayout layout, OwnerIds owners, SwapBoundary hook) {
    InstallJournal journal = StagingPlanner.journal(plan, layout);
    Swap swap = new Swap(journal, layout, owners, hook);
    swap.hold();
    try {
      Set<Path> changed = new LinkedHashSet<>();
      InstallJournalCodec.write(swap.journalFile, journal, changed);
      if (journal.roots().size() > 1) {
        // a bundle root's staging lies outside the journal's directory, where only a journal that
        // survived names it for the sweep: the journal is made durable before it exists
        SwapFiles.force(changed);
        changed.clear();
      }
      hook.at(SwapBoundary.JOURNAL_WRITTEN);
      swap.fill(plan, changed);
      hook.at(SwapBoundary.STAGING_FILLED);
      return swap;
    } catch (IOException | RuntimeException e) {
      try {
        StagingCleanup.rolledBack(journal, swap.journalFile, swap.pulledRoot, SwapBoundary.NONE);
      } catch (IOException | RuntimeException cleanup) {
        e.addSuppressed(cleanup);
      }
      swap.end(State.UNDONE);
      throw InstallException.failed(plan.name().value(), "staging failed (" + e.getMessage() + "); the live files"
          + " were not touched", e);
    }
  }

  /**
   * Fills the staging, then forces to disk, each directory once, what the fill and the journal's
   * write before it changed ({@code changed} holds the journal's). A crash before that force leaves
   * no journal (a journal-less staging, which the sweep deletes whole: the fill never touches a live
   * root) or a journal that says staged, which recovery undoes whole whatever subset of the steps
   * survived; so only the state at the force needs to be durable, and it is, before the swap. The
   * journal's own bytes were forced before its rename. The source side of each root's move is not
   * forced: the source is the preparer's disposable staging.
   */
  private void fill(SwapPlan plan, Set<Path> changed) throws IOException {
    for (InstallJournal.Root root : staged.roots()) {
      // new/ for content to move in, old/ for live content to move out; a rollback makes discard/ when it needs it
      SwapFiles.createDirectories(root.stagingDir(), changed);
      if (root.hasNew()) {
        SwapFiles.createDirectories(root.incoming().getParent(), changed);
      }
      if (root.liveExisted()) {
        SwapFiles.createDirectories(root.old().getParent(), changed);
      }
    }
    for (int i = 0; i < plan.roots().size(); i++) {
      Path source = plan.roots().get(i).source();
      if (source != null) {
        SwapFiles.moveIn(source, staged.roots().get(i).incoming(), changed);
      }
    }
    InstallJournal.Root extension = staged.extensionRoot();
    Path stagedManifest = staged.manifest().staged();
    if (stagedManifest != null) {
      SwapFiles.move(StagingPaths.liveManifest(extension.incoming(), plan.manifestPath()), stagedManifest, changed);
    }
    for (InstallJournal.Nested nested : staged.nestedRoots()) {
      Path target = StagingPaths.under(extension.incoming(), nested.relDir());
      SwapFiles.createDirectories(target.getParent(), changed);
      SwapFiles.copyTree(StagingPaths.under(extension.live(), nested.relDir()), target);
      changed.add(target.getParent());  // the copy's own entry: the copy forces only what is inside it
    }
    SwapFiles.force(changed);
  }

  /** Returns the journal as staged. */
  InstallJournal journal() {
    return staged;
  }

  /** Returns the extension. */
  ExtensionName name() {
    return staged.extension();
  }

  /**
   * Swaps: phase 1 moves each existing live root to {@code old/<i>}; phase 2 moves each new root in
   * (bundles first, then the extension root without its manifest, then the manifest); then the
   * journal says swapped. Ownership is checked before each phase and before the journal is rewritten.
   *
   * @throws InstallException ({@code install_failed}) if a step fails or the journal is no longer this swap's: every
   *     rename done was undone in reverse and, unless another owner took the journal, the staging
   *     deleted (the extension is as it was); if undoing failed too, the journal is left for recovery
   * @throws IllegalStateException if not staged
   */
  void swap() {
    requireState(State.STAGED, "swap");
    try {
      requireOwned();
      for (InstallJournal.Root root : staged.roots()) {
        if (root.liveExisted()) {
          rename(root.live(), root.old());
          hook.at(SwapBoundary.movedOut(root.index()));
        }
      }
      requireOwned();
      for (int i = 1; i <= staged.roots().size(); i++) {
        InstallJournal.Root root = staged.roots().get(i % staged.roots().size());
        if (root.hasNew()) {
          SwapFiles.createDirectories(root.live().getParent());
          rename(root.incoming(), root.live());
          hook.at(SwapBoundary.movedIn(root.index()));
        }
      }
      Path stagedManifest = staged.manifest().staged();
      if (stagedManifest != null) {
        SwapFiles.createDirectories(staged.manifest().live().getParent());
        Set<Path> manifestIn = new LinkedHashSet<>();
        SwapFiles.moveIn(stagedManifest, staged.manifest().live(), manifestIn);
        done.add(new Path[] {stagedManifest, staged.manifest().live()});
        // its staging side is forced with the journal that says swapped, in the same directory
        SwapFiles.force(manifestIn);
        hook.at(SwapBoundary.MANIFEST_IN);
      }
      requireOwned();
      InstallJournalCodec.write(journalFile, staged.withPhase(InstallJournal.Phase.SWAPPED));
      state = State.SWAPPED;
      hook.at(SwapBoundary.JOURNAL_SWAPPED);
    } catch (IOException | RuntimeException e) {
      if (state == State.SWAPPED) {
        failAfterSwapped(e);
      }
      undo(e);
    }
  }

  /** A failure after the journal said swapped (only the hook can fail there): roll back, as a caller would. */
  private void failAfterSwapped(Exception e) {
    try {
      rollback();
    } catch (InstallException rollback) {
      if (!rollback.code().equals(InstallException.FAILED)) {
        throw rollback;
      }
      e.addSuppressed(rollback);
      throw InstallException.failed(name().value(), "the swap failed after it finished (" + e.getMessage()
          + ") and rolling it back failed; the journal " + journalFile + " is left for recovery", e);
    }
    throw InstallException.failed(name().value(), "the swap failed after it finished (" + e.getMessage()
        + "); it was rolled back", e);
  }

  private void undo(Exception failure) {
    boolean taken = failure instanceof OwnershipLostException;
    try {
      for (int i = done.size() - 1; i >= 0; i--) {
        SwapFiles.move(done.get(i)[1], done.get(i)[0]);
      }
      done.clear();
      if (!taken) {
        StagingCleanup.rolledBack(staged, journalFile, pulledRoot, SwapBoundary.NONE);
      }
    } catch (IOException | RuntimeException e) {
      failure.addSuppressed(e);
      end(State.LEFT);
      throw InstallException.failed(name().value(), "the swap failed (" + failure.getMessage() + ") and undoing"
          + " it failed too (" + e.getMessage() + "); the journal " + journalFile + " is left for recovery", failure);
    }
    end(State.UNDONE);
    throw InstallException.failed(name().value(), "the swap failed (" + failure.getMessage() + "); every rename"
        + " was undone" + (taken ? " and the staging left to its new owner" : ""), failure);
  }

  /**
   * Commits: deletes the journal (from then on the new version stays), then the staging with the
   * old content, and after a removal the scope directory it left empty.
   *
   * @throws InstallException ({@code install_failed}) if the journal is no longer this swap's or cannot be deleted
   *     (nothing was deleted; the swap can still be committed or rolled back), or was deleted but its
   *     directory could not be forced (the swap is committed; its staging is left to the sweep)
   * @throws IllegalStateException if not swapped
   */
  void commit() {
    requireState(State.SWAPPED, "commit");
    boolean owned = false;
    try {
      requireOwned();
      owned = true;
      StagingCleanup.committed(staged, journalFile, pulledRoot, hook);
    } catch (IOException | RuntimeException e) {
      if (owned && !SwapFiles.exists(journalFile)) {
        // deleted but not forced: decided all the same (should a crash bring it back, recovery finishes it)
        end(State.COMMITTED);
        throw InstallException.failed(name().value(), "the commit deleted the journal " + journalFile + " but could not"
            + " force its directory (" + e.getMessage() + "); the old files are left in staging, which is swept", e);
      }
      throw InstallException.failed(name().value(), "the commit cannot delete the journal " + journalFile + " ("
          + e.getMessage() + "); nothing was deleted", e);
    }
    end(State.COMMITTED);
  }

  /**
   * Rolls back: after a swap, each root's new content goes to {@code discard/<i>} and its old content
   * back to live (the manifest with its root), from the staging layout as recovery does; then the
   * staging is deleted, the journal last. Staged but not swapped, it only deletes the staging. After a
   * swap that failed and was undone, it does nothing; after one whose undoing failed, or a rollback
   * that failed, it tries again.
   *
   * @throws InstallException ({@code install_failed}) if a step fails: the journal is left for recovery (or a retry)
   * @throws IllegalStateException if committed
   */
  void rollback() {
    if (state == State.UNDONE) {
      return;
    }
    if (state == State.COMMITTED) {
      throw new IllegalStateException("Cannot roll back the swap of " + name() + ": it was committed");
    }
    hold();
    try {
      requireOwned();
      Reversal.rollBack(staged, hook);
      StagingCleanup.rolledBack(staged, journalFile, pulledRoot, hook);
    } catch (IOException | RuntimeException e) {
      end(State.LEFT);
      throw InstallException.failed(name().value(), "the rollback failed (" + e.getMessage() + "); the journal "
          + journalFile + " is left for recovery", e);
    }
    end(State.UNDONE);
  }

  private void rename(Path source, Path target) throws IOException {
    SwapFiles.move(source, target);
    done.add(new Path[] {source, target});
  }

  private void requireOwned() throws IOException {
    @Nullable InstallJournal current;
    try {
      current = Files.exists(journalFile, LinkOption.NOFOLLOW_LINKS) ? InstallJournalCodec.read(journalFile) : null;
    } catch (InstallException e) {
      current = null;
    }
    if (current == null || !current.ownerId().equals(staged.ownerId())
        || !current.stagingId().equals(staged.stagingId())) {
      throw new OwnershipLostException("Cannot swap " + name() + ": the journal " + journalFile + " is no longer"
          + " this install's (owner " + staged.ownerId() + ")");
    }
  }

  private void requireState(State expected, String verb) {
    if (state != expected) {
      throw new IllegalStateException("Cannot " + verb + " the swap of " + name() + ": it is " + state.name()
          .toLowerCase(java.util.Locale.ROOT));
    }
  }

  /** Registers this swap's owner, unless it holds it already. */
  private void hold() {
    if (!holding) {
      owners.register(staged.ownerId());
      holding = true;
    }
  }

  /** Ends in {@code value}, releasing the owner: a journal left is then an orphan recovery finishes. */
  private void end(State value) {
    if (holding) {
      owners.release(staged.ownerId());
      holding = false;
    }
    state = value;
  }

  /** The journal on disk names another owner, or is gone: the swap is not this install's any more. */
  private static final class OwnershipLostException extends IOException {
    private static final long serialVersionUID = 1L;

    OwnershipLostException(String message) {
      super(message);
    }
  }
}
