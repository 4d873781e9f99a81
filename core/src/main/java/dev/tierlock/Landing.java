package dev.tierlock;

import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Whether a commit landed in the shared lockfile: the one vocabulary in which the engine states how
 * a write ended ({@link LockfileStore#write}), how a write whose answer was lost is judged from the
 * lineage ({@link #of}), and how a commit loop ended ({@link CommitLoop#run}). Only a proof counts.
 *
 * <p>The proofs rest on one fact: a write conditioned on version P lands only while P is current,
 * so it becomes P's successor in the chain of commit lineages ({@link LockfileHead}), or nothing.
 * Hence: our commit id in the current lineage means it landed (a lineage only ever holds ids of
 * commits that landed, gap or not). For the rest the lineage must list <em>every</em> commit since
 * P's: no gap between the current version and P's commit ({@link LockfileHead#completeAbove}). Then
 * P still current means it has not landed <em>yet</em>: the request can still arrive (a proxy or
 * the server may hold it past the client's timeout), so it is never forgotten; a retry sends the
 * same commit id on P, and at most one of the two lands. P's commit followed by another commit
 * means P's successor is someone else's: on a store whose versions never repeat, P can never be
 * current again, so ours never lands. On a store whose versions repeat (an S3 ETag is a digest of
 * the bytes), P's version current again after such a successor means P's bytes are back: ours did
 * not land before and can still land now, on exactly P's content, so it is not landed yet.
 * Anything else (the lineage does not reach P, or reaches it only across a gap; the lockfile was
 * deleted; a create whose key is now taken; P's bytes back without a lineage that shows how) cannot
 * be proven either way.
 *
 * <p>Why a gap blocks every proof but "landed": a warm commit on a store whose versions repeat
 * without binding the metadata is sent on its cached version with no read (one call), and lands
 * on any object with those bytes. If a peer wrote W on P and then P's bytes again (its own commits
 * in the metadata), the warm write replaces that object and its lineage: the peer's commits vanish
 * from the chain. Judged by "P's commit followed by another", a lost answer of the peer's first
 * write would read "not landed" and be re-applied over the peer's own undoing of it (an
 * acknowledged change lost), or, once P's bytes come back again, "not landed yet" and be sent a
 * second time. The warm write therefore writes a gap after its id; across it the judgement is
 * {@link Unknown}, which keeps the change recorded and tells its caller. Where versions bind the
 * metadata (the filesystem datastore) a version stands for one lineage and no gap is written.
 *
 * <p>One case stays beyond proof on a store whose versions repeat: a request held back until after
 * P's successor, arriving when peers have put P's exact bytes back. It lands P's change on P's
 * content, as a rebase would, but after the change was published again; a peer that removed it in
 * between loses that removal. No conditional write on such a store can fence it. A write sent on a
 * head read in the same run (no gap) is such a request for the round trip between that read and
 * its arrival: peers that put P's bytes back within it vanish from the lineage as above.
 */
sealed interface Landing {

  /** Landed, with nothing more known: a lineage proved it. */
  Landing LANDED = new Landed(null);

  /** Did not land, with nothing more known. */
  Landing NOT_LANDED = new NotLanded(null);

  /**
   * The commit landed: its id is the current version's or one the current version was built on.
   *
   * @param head the version the write produced, when its own answer said so (null when a later
   *     version's lineage proved it)
   */
  record Landed(@Nullable LockfileHead head) implements Landing {}

  /**
   * The commit did not land and never will: its precondition refused it, or its parent has another
   * successor (on a store whose versions repeat, short of the one case the class comment names).
   * Nothing of it changed the shared lockfile.
   *
   * @param cause the last failure of a commit loop that gave up, if any
   */
  record NotLanded(@Nullable RuntimeException cause) implements Landing {}

  /**
   * The commit has not landed, and still can: its answer was lost and the version it was
   * conditioned on is current. Send it again with the same commit id (never a new one), or keep
   * judging it.
   *
   * @param now the shared lockfile's head as read back ({@code null} when it does not exist)
   * @param cause the last failure of a commit loop that ended with it in flight, if any
   */
  record NotYet(@Nullable LockfileHead now, @Nullable RuntimeException cause) implements Landing {}

  /**
   * Neither can be proven: the shared lockfile moved on and its lineage (which reaches only so far,
   * and breaks at a write by another tool) does not show the parent's successor. Re-applying the
   * commit could revert a peer's change, so its names must not be re-applied without the caller's
   * say.
   *
   * @param now the shared lockfile's head as read back ({@code null} when it does not exist)
   */
  record Unknown(@Nullable LockfileHead now) implements Landing {}

  /**
   * Judges commit {@code commitId}, written conditional on {@code parent}, against {@code now}.
   *
   * @param parent the version the write was conditioned on, or {@code null} when it was a create
   * @param now the shared lockfile now, with the metadata it really has, or {@code null} when it
   *     does not exist
   * @param versionsRepeat whether the store's versions can repeat ({@link
   *     dev.tierlock.spi.Datastore#versionsRepeat()})
   * @return {@link #LANDED}, {@link NotYet} (with {@code now}), {@link #NOT_LANDED} or {@link
   *     Unknown} (with {@code now})
   */
  static Landing of(String commitId, @Nullable LockfileHead parent, @Nullable LockfileHead now,
      boolean versionsRepeat) {
    if (now != null && now.includes(commitId)) {
      return LANDED;
    }
    if (parent == null) {
      return now == null ? new NotYet(null, null) : new Unknown(now);
    }
    if (now == null) {
      return new Unknown(null);
    }
    Optional<String> parentCommit = parent.commitId();
    // the lineage lists every commit since the parent's: ours is not among them (else it landed)
    boolean complete = parentCommit.isPresent() && now.completeAbove(parentCommit.get());
    boolean succeeded = complete && now.lineage().indexOf(parentCommit.get()) > 0;
    if (now.version().equals(parent.version())) {
      if (!versionsRepeat || complete) {
        return new NotYet(now, null);
      }
      return new Unknown(now);
    }
    return succeeded ? NOT_LANDED : new Unknown(now);
  }
}
