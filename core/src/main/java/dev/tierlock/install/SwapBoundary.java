package dev.tierlock.install;

/**
 * A hook a {@link Swap} and a {@link Recovery} call at every boundary between two durable steps, so
 * tests can stop, fail or kill an install at any of them. Production uses {@link #NONE}. Each
 * boundary has a stable name; those with an index name the root ({@code 0} is the extension root).
 * A hook that throws fails the step after it, as an I/O failure would.
 *
 * <p>The boundaries, in the order a swap passes them: {@value #JOURNAL_WRITTEN}, {@value
 * #STAGING_FILLED}, {@code moved-out/<i>} for each live root moved to {@code old/}, {@code
 * moved-in/<i>} for each root with new content (bundles first, then the extension root without its
 * manifest), {@value #MANIFEST_IN}, {@value #JOURNAL_SWAPPED}; then {@value #COMMIT_JOURNAL_DELETED}
 * in a commit, or {@code rollback/discarded/<i>}, {@code rollback/restored/<i>} per root and {@value
 * #ROLLBACK_STAGING_DELETED} in a rollback (and in a recovery that rolls back).
 */
@FunctionalInterface
interface SwapBoundary {

  /** The hook that does nothing. */
  SwapBoundary NONE = boundary -> {};

  /** The journal is written (phase staged) and no other staging directory exists yet. */
  String JOURNAL_WRITTEN = "journal-written";

  /** Every new root is in {@code new/<i>}, the manifest in its own file, the nested roots copied. */
  String STAGING_FILLED = "staging-filled";

  /** The new manifest is live: every file of the new version is in place. */
  String MANIFEST_IN = "manifest-in";

  /** The journal says swapped. */
  String JOURNAL_SWAPPED = "journal-swapped";

  /** A commit deleted the journal: the new version stays whatever happens next. */
  String COMMIT_JOURNAL_DELETED = "commit/journal-deleted";

  /** A rollback moved every root back and deleted the staging but the journal. */
  String ROLLBACK_STAGING_DELETED = "rollback/staging-deleted";

  /** Returns the boundary after live root {@code index} moved to {@code old/}. */
  static String movedOut(int index) {
    return "moved-out/" + index;
  }

  /** Returns the boundary after root {@code index}'s new content moved in. */
  static String movedIn(int index) {
    return "moved-in/" + index;
  }

  /** Returns the boundary after a rollback moved root {@code index}'s new content to {@code discard/}. */
  static String discarded(int index) {
    return "rollback/discarded/" + index;
  }

  /** Returns the boundary after a rollback moved root {@code index}'s old content back. */
  static String restored(int index) {
    return "rollback/restored/" + index;
  }

  /**
   * Called at {@code boundary}.
   *
   * @param boundary the boundary's stable name
   */
  void at(String boundary);
}
