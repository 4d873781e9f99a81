package dev.tierlock;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One change on its way into the shared lockfile, as the checkout records it before every write
 * ({@link PendingRecord#record}), sends it ({@link LockfileStore#write}) and judges it when an
 * answer is lost ({@link #judge}): what it changes, what it was made on, the write in flight, the
 * earlier writes of it that may still land, and, once its landing cannot be proven, that verdict.
 * Immutable.
 *
 * @param delta what it changes, not known to be published
 * @param base the entries of the shared lockfile it was made on, for its names ({@code null} when
 *     an older record did not say: then nothing that differs may be re-applied)
 * @param attempt the write in flight (its commit id and the version it is conditioned on), if one
 *     was sent or is about to be
 * @param unknown why its landing cannot be proven, once that is the verdict
 * @param notices what a run dropped of an earlier run's change (a name another checkout changed
 *     since), for the next run to tell should this run die before it could tell its caller
 * @param priors earlier writes of it that may still land, all conditioned on the version it was
 *     made on, oldest first
 */
record Commit(LockfileDelta delta, @Nullable Lockfile base, @Nullable Attempt attempt,
    @Nullable String unknown, List<String> notices, List<Prior> priors) {

  /** Copies the lists. */
  Commit {
    notices = List.copyOf(notices);
    priors = List.copyOf(priors);
  }

  /** A commit with no notices and no earlier writes in doubt. */
  Commit(LockfileDelta delta, @Nullable Lockfile base, @Nullable Attempt attempt, @Nullable String unknown) {
    this(delta, base, attempt, unknown, List.of(), List.of());
  }

  /**
   * A lockfile write that was sent, or is about to be.
   *
   * @param commitId the id it carries in its metadata
   * @param parent the version it is conditioned on, with its lineage ({@code null}: a create)
   */
  record Attempt(String commitId, @Nullable LockfileHead parent) {}

  /**
   * An earlier write of a commit that went unanswered and may still land: it was conditioned on the
   * version the commit is made on, still current when last seen. At most one of the writes
   * conditioned on one version lands; if this one does, it carried {@code delta}.
   *
   * @param attempt its commit id and parent
   * @param delta what it carried, made on that parent
   */
  record Prior(Attempt attempt, LockfileDelta delta) {}

  /** Returns this commit judged unprovable for {@code reason}. */
  Commit unknown(String reason) {
    return new Commit(delta, base, attempt, reason, notices, priors);
  }

  /** Returns this commit without its notices. */
  Commit withoutNotices() {
    return new Commit(delta, base, attempt, unknown, List.of(), priors);
  }

  /** Returns the commit ids of every write of it that may have landed, the latest first. */
  List<String> commitIds() {
    List<String> ids = new ArrayList<>();
    if (attempt != null) {
      ids.add(attempt.commitId());
    }
    for (int i = priors.size() - 1; i >= 0; i--) {
      ids.add(priors.get(i).attempt().commitId());
    }
    return ids;
  }

  /**
   * What the shared lockfile now says of a commit's writes that may have landed.
   *
   * @param attempt how its write in flight stands ({@link Landing#NOT_LANDED} when there is none)
   * @param priorLanded what the earlier write that landed carried (at most one can), or null; then
   *     the write in flight cannot have landed and is not judged
   * @param open the earlier writes that have not landed yet and still may
   * @param unprovable an earlier write the lineage can prove neither way, or null
   */
  record Judgement(Landing attempt, @Nullable LockfileDelta priorLanded, List<Prior> open,
      @Nullable Attempt unprovable) {

    /**
     * Returns what of {@code delta} the earlier write that landed did not already publish: the
     * names whose target differs from what it carried.
     */
    LockfileDelta rest(LockfileDelta delta) {
      LockfileDelta done = priorLanded;
      if (done == null) {
        return delta;
      }
      return delta.without(delta.names().stream()
          .filter(n -> done.names().contains(n) && done.target(n).equals(delta.target(n))).toList());
    }
  }

  /**
   * Judges {@code attempt} and {@code priors}, the writes of a commit that may have landed, against
   * the shared lockfile {@code now} (read with its real metadata) by its lineage ({@link Landing#of}).
   */
  static Judgement judge(@Nullable Attempt attempt, List<Prior> priors, @Nullable LockfileHead now,
      boolean versionsRepeat) {
    if (attempt != null && now != null && now.includes(attempt.commitId())) {
      return new Judgement(Landing.LANDED, null, List.of(), null);
    }
    List<Prior> open = new ArrayList<>();
    Attempt unprovable = null;
    for (Prior prior : priors) {
      Attempt earlier = prior.attempt();
      Landing landing = Landing.of(earlier.commitId(), earlier.parent(), now, versionsRepeat);
      if (landing instanceof Landing.Landed) {
        return new Judgement(Landing.NOT_LANDED, prior.delta(), List.of(), null);
      } else if (landing instanceof Landing.NotYet) {
        open.add(new Prior(new Attempt(earlier.commitId(), now), prior.delta()));
      } else if (landing instanceof Landing.Unknown) {
        unprovable = earlier;
      }
    }
    Landing own = attempt == null ? Landing.NOT_LANDED
        : Landing.of(attempt.commitId(), attempt.parent(), now, versionsRepeat);
    return new Judgement(own, null, open, unprovable);
  }

  /**
   * Returns, for each name {@code priors} carried that {@code delta} does not hold, its value in
   * {@code target} as a delta entry (a removal when absent): the names a write must carry while an
   * earlier write of them may still land, so that whichever lands first, the other is refused and
   * what the caller wants for those names is what ends up published.
   */
  static LockfileDelta fence(List<Prior> priors, LockfileDelta delta, Lockfile target) {
    LockfileDelta out = LockfileDelta.EMPTY;
    Set<ExtensionName> seen = new HashSet<>(delta.names());
    for (Prior prior : priors) {
      for (ExtensionName name : prior.delta().names()) {
        if (seen.add(name)) {
          out = out.then(target.entry(name).map(e -> LockfileDelta.upsert(name, e))
              .orElseGet(() -> LockfileDelta.removal(name)));
        }
      }
    }
    return out;
  }
}
