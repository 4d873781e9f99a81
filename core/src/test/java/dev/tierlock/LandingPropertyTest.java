package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.spi.ObjectVersion;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The landing rules against a model of the store: a chain of versions, each written conditional on
 * the one before (so a write lands only as the successor of the version it was conditioned on),
 * some by another tool (no lineage), lineages cut to a capacity, and on stores whose versions repeat
 * (an S3 ETag is a digest of the bytes) versions that come back. There, a warm writer conditions
 * its write on a head it cached when that version was current before: its write lands on the
 * repeated version and replaces the lineage of the commits in between with its cached one, after a
 * gap ({@link LockfileHead#GAP}). The oracle is the chain itself: whether our write is in it.
 */
class LandingPropertyTest {

  /** One version in the chain: its version text, its commit id (null for another tool) and its lineage. */
  private record Version(String version, String commit, LockfileHead head) {}

  /**
   * A history: {@code steps} writes; {@code foreign} marks writes by another tool; the parent of our
   * write is version {@code parentAt}; our write landed iff {@code landed}, as the parent's
   * successor; we judge against version {@code judgeAt} (at or after the parent).
   */
  record Story(int steps, List<Boolean> foreign, int capacity, int parentAt, boolean landed, int judgeAfter,
      int versionRepeat, boolean repeatable, List<Boolean> warm) {}

  @Provide
  Arbitrary<Story> stories() {
    Arbitrary<Integer> steps = Arbitraries.integers().between(1, 40);
    return steps.flatMap(n -> Combinators.combine(
        Arbitraries.of(true, false, false, false, false).list().ofSize(n + 1),
        Arbitraries.integers().between(1, 12),
        Arbitraries.integers().between(0, n - 1),
        Arbitraries.of(true, false),
        Arbitraries.integers().between(0, 40),
        Arbitraries.integers().between(0, 3),
        Arbitraries.of(true, false),
        Arbitraries.of(true, false).list().ofSize(n + 1))
        .as((foreign, capacity, parentAt, landed, judgeAfter, repeat, repeatable, warm) ->
            new Story(n, foreign, capacity, parentAt, landed, judgeAfter, repeat, repeatable, warm)));
  }

  @Property(tries = 3000)
  void aVerdict_isNeverWrong(@ForAll("stories") Story story) {
    List<Version> chain = new ArrayList<>();
    int ours = -1;
    for (int i = 0; i < story.steps(); i++) {
      boolean mine = story.landed() && i == story.parentAt() + 1;
      boolean foreign = !mine && story.foreign().get(i);
      String commit = mine ? "ours" : foreign ? null : "c" + i;
      // a version text repeats now and then, as equal bytes give equal S3 ETags
      String version = story.repeatable() && story.versionRepeat() == 0 && i > 1 && i % 3 == 0
          ? chain.get(i - 2).version() : "v" + i;
      LockfileHead parent = i == 0 ? null : chain.get(i - 1).head();
      List<String> lineage = new ArrayList<>();
      LockfileHead cached = !mine && story.warm().get(i) ? cachedEarlier(chain, i - 1) : null;
      if (commit != null && cached != null) {
        // a warm writer: its write lands on the repeated version, with the lineage it cached
        lineage.add(commit);
        lineage.add(LockfileHead.GAP);
        lineage.addAll(cached.lineage().subList(0, Math.min(cached.lineage().size(), story.capacity())));
      } else if (commit != null) {
        lineage.add(commit);
        if (parent != null) {
          lineage.addAll(parent.lineage().subList(0, Math.min(parent.lineage().size(), story.capacity())));
        }
      }
      chain.add(new Version(version, commit, new LockfileHead(ObjectVersion.of(version), lineage)));
      if (mine) {
        ours = i;
      }
    }
    if (story.landed() && ours < 0) {
      return; // the parent was the last version: nothing could land after it in this story
    }
    int judged = Math.min(chain.size() - 1, story.parentAt() + story.judgeAfter());
    if (story.landed()) {
      judged = Math.max(judged, ours);
    }
    LockfileHead parent = chain.get(story.parentAt()).head();
    Landing verdict = Landing.of("ours", parent, chain.get(judged).head(), story.repeatable());

    boolean inChain = ours >= 0 && ours <= judged;
    if (verdict instanceof Landing.Landed) {
      assertThat(inChain).as("judged landed, so it must be in the chain").isTrue();
    }
    if (verdict instanceof Landing.NotLanded || verdict instanceof Landing.NotYet) {
      assertThat(inChain).as("judged " + verdict + ", so it must not be in the chain").isFalse();
    }
    if (verdict instanceof Landing.NotYet) {
      assertThat(chain.get(judged).version()).as("judged not landed yet: the parent's version is current")
          .isEqualTo(chain.get(story.parentAt()).version());
    }
  }

  /** Returns the head of the latest version before {@code at} whose version {@code at} repeats, or null. */
  private static LockfileHead cachedEarlier(List<Version> chain, int at) {
    if (at < 1) {
      return null;
    }
    for (int j = at - 1; j >= 0; j--) {
      if (chain.get(j).version().equals(chain.get(at).version())) {
        return chain.get(j).head();
      }
    }
    return null;
  }
}
