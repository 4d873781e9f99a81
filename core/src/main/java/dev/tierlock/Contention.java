package dev.tierlock;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.DoubleSupplier;
import org.jspecify.annotations.Nullable;

/**
 * What a checkout saw of other writers of its lockfile, and the turn it gives them: the fair rule
 * of the modes without the lease ({@link CommitMode#OPTIMISTIC}, {@link CommitMode#AUTO}).
 *
 * <p><b>Why a turn is needed.</b> A writer whose write just landed holds the newest version in its
 * cache, so its next warm write is one call conditional on it, sent as soon as the answer comes;
 * every peer whose write that landing refused must fetch before it writes again, one round trip
 * more. Without a pause, the writer that won keeps winning and, at 16 writers, the others commit
 * nothing; the lease does not help, since a warm write never looks at it.
 *
 * <p><b>The rule.</b> A checkout has <em>seen contention</em> when, within the last {@link #WINDOW}
 * on its clock, one of its writes was refused because a peer wrote (a race lost), or one of its
 * writes landed on a version that was not its own last write (a peer wrote since). While it has,
 * a batch that starts without the lease waits, after this checkout's previous acknowledged write,
 * a uniform draw of up to that write's measured round trip before it reads or writes anything: a
 * peer that fetches the version this checkout just wrote within the pause lands before this
 * checkout's next write, which is then refused: it has lost a race and takes the other side of the
 * turn. The draw keeps writers of equal round trips from locking into one order. Without contention seen
 * (a lone writer, or one whose peers have been quiet for the window) nothing waits and nothing is
 * called: an uncontended warm commit stays one call. No safety rests on it: every write stays
 * conditional on the version it was made on. Thread-safe.
 */
final class Contention {

  /** How long contention seen keeps a checkout giving turns. */
  static final Duration WINDOW = Duration.ofSeconds(10);

  private @Nullable Instant seenAt;
  private @Nullable Instant ackedAt;
  private Duration trip = Duration.ZERO;
  private Optional<String> lastOwn = Optional.empty();

  /** Notes that a write of this checkout was refused at {@code at} because a peer wrote first. */
  synchronized void raceLost(Instant at) {
    seenAt = at;
  }

  /**
   * Notes that this checkout's write {@code commitId}, sent at {@code sent} conditional on {@code
   * parent}, was acknowledged at {@code acked}: a parent written by another commit than this
   * checkout's last is contention seen.
   */
  synchronized void landed(@Nullable LockfileHead parent, String commitId, Instant sent, Instant acked) {
    if (parent != null && !parent.commitId().equals(lastOwn)) {
      seenAt = acked;
    }
    lastOwn = Optional.of(commitId);
    ackedAt = acked;
    trip = Duration.between(sent, acked);
  }

  /**
   * Returns how long a batch starting without the lease at {@code now} waits to give peers a turn:
   * zero without contention seen in the {@link #WINDOW}.
   *
   * @param unit draws uniformly in [0, 1), only when a turn is due
   */
  synchronized Duration turnAt(Instant now, DoubleSupplier unit) {
    Instant seen = seenAt;
    Instant acked = ackedAt;
    if (seen == null || acked == null || !now.isBefore(seen.plus(WINDOW))) {
      return Duration.ZERO;
    }
    Instant due = acked.plusNanos((long) (trip.toNanos() * unit.getAsDouble()));
    return now.isBefore(due) ? Duration.between(now, due) : Duration.ZERO;
  }

  @Override
  public String toString() {
    return "Contention[seen " + Objects.toString(seenAt) + ", acked " + Objects.toString(ackedAt) + "]";
  }
}
