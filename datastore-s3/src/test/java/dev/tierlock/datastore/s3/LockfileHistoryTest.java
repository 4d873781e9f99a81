package dev.tierlock.datastore.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.TransactionStatus;
import dev.tierlock.datastore.s3.AcknowledgedChange.Operation;
import dev.tierlock.datastore.s3.LockfileHistory.Publication;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The checker of {@link S3TwoProcessTest}: it passes a sound history and names every kind of loss. */
class LockfileHistoryTest {

  private static final Map<String, String> SEED = Map.of("@s/x", "seed");

  private static final AcknowledgedChange A1 = put("alpha", 1, "@a/one", "1", 0, 1);
  private static final AcknowledgedChange B1 = put("beta", 1, "@b/one", "1", 0, 2);
  private static final AcknowledgedChange A2 = remove("alpha", 2, "@s/x", TransactionStatus.PUBLISHED, 1, 2);
  private static final AcknowledgedChange B2 = remove("beta", 2, "@s/x", TransactionStatus.NO_CHANGE, 2, 2);

  /** The sound history: a1, b1 (published on its second attempt), a2; b2 found nothing to remove. */
  private static final List<Publication> SOUND = List.of(
      new Publication("seed-1", SEED),
      new Publication("alpha-1", Map.of("@s/x", "seed", "@a/one", "1")),
      new Publication("beta-2", Map.of("@s/x", "seed", "@a/one", "1", "@b/one", "1")),
      new Publication("alpha-2", Map.of("@a/one", "1", "@b/one", "1")));

  private static final Map<String, String> END = Map.of("@a/one", "1", "@b/one", "1");

  @Test
  void problems_soundHistory_none() {
    assertThat(LockfileHistory.problems(SEED, SOUND, List.of(A1, A2, B1, B2), END)).isEmpty();
    assertThat(LockfileHistory.replay(SEED, SOUND, List.of(A1, A2, B1, B2))).isEqualTo(END);
  }

  @Test
  void problems_aStaleWriterDroppingAPeersEntry_isNamed() {
    List<Publication> lost = List.of(SOUND.get(0), SOUND.get(1),
        new Publication("beta-2", Map.of("@s/x", "seed", "@b/one", "1")),
        new Publication("alpha-2", Map.of("@b/one", "1")));

    List<String> problems = LockfileHistory.problems(SEED, lost, List.of(A1, A2, B1, B2), Map.of("@b/one", "1"));

    assertThat(problems).containsExactly("stored lockfile #2 should be its predecessor with only"
        + " beta#1 PUT @b/one 1 PUBLISHED, but differs from that by @a/one: 1 -> (absent)");
    assertThat(LockfileHistory.replay(SEED, lost, List.of(A1, A2, B1, B2))).isEqualTo(END);
  }

  @Test
  void problems_anAcknowledgedChangeNeverStored_isNamed() {
    List<String> problems = LockfileHistory.problems(SEED, SOUND.subList(0, 3), List.of(A1, A2, B1, B2),
        SOUND.get(2).versions());

    assertThat(problems).containsExactly("acknowledged change alpha#2 REMOVE @s/x - PUBLISHED is in no stored lockfile");
  }

  @Test
  void problems_aLockfileOfNoAcknowledgedChange_isNamed() {
    List<Publication> phantom = List.of(SOUND.get(0), SOUND.get(1),
        new Publication("gamma-1", Map.of("@s/x", "seed", "@a/one", "1", "@c/one", "1")));

    List<String> problems = LockfileHistory.problems(SEED, phantom, List.of(A1), phantom.get(2).versions());

    assertThat(problems).containsExactly("stored lockfile #2 (commit gamma-1) is no acknowledged change: @c/one: (absent) -> 1");
  }

  @Test
  void problems_changesStoredOutOfTheOrderTheyWereMade_areNamed() {
    AcknowledgedChange first = put("alpha", 1, "@a/one", "1", 0, 1);
    AcknowledgedChange second = put("alpha", 2, "@a/two", "2", 1, 2);
    List<Publication> swapped = List.of(new Publication("seed-1", SEED),
        new Publication("alpha-2", Map.of("@s/x", "seed", "@a/two", "2")),
        new Publication("alpha-1", Map.of("@s/x", "seed", "@a/two", "2", "@a/one", "1")));

    List<String> problems = LockfileHistory.problems(SEED, swapped, List.of(first, second), swapped.get(2).versions());

    assertThat(problems).containsExactly("alpha#2 PUT @a/two 2 PUBLISHED was stored (#1) before the change alpha made"
        + " earlier (#2)");
  }

  @Test
  void problems_aWrongSeedAWrongEndAndAPutWithoutChange_areNamed() {
    AcknowledgedChange unchanged = new AcknowledgedChange("alpha", 1, Operation.PUT, "@a/one", "1",
        TransactionStatus.NO_CHANGE, 0, 0, 0, 5);
    AcknowledgedChange skipped = new AcknowledgedChange("beta", 3, Operation.PUT, "@b/one", "1",
        TransactionStatus.DEFERRED, 1, 0, 0, 5);
    List<Publication> history = List.of(new Publication("seed-1", Map.of()));

    List<String> problems = LockfileHistory.problems(SEED, history, List.of(unchanged, skipped),
        Map.of("@z/z", "9"));

    assertThat(problems).containsExactly(
        "the first stored lockfile is not the seed {@s/x=seed}",
        "alpha#1 PUT @a/one 1 NO_CHANGE reported no change, which only a removal of a missing name may",
        "beta logged change #3 where #1 was due",
        "beta#3 PUT @b/one 1 DEFERRED was deferred, not published",
        "the shared lockfile at the end differs from the last stored one by @z/z: (absent) -> 9");
  }

  @Test
  void acknowledgedChange_line_parsesBack() {
    assertThat(AcknowledgedChange.parse(A2.line())).isEqualTo(A2);
    assertThat(A2.line()).isEqualTo("ack alpha 2 REMOVE @s/x - PUBLISHED 1 1 2 5");
    assertThat(B1.commitIds()).containsExactly("beta-1", "beta-2");
  }

  @Test
  void acknowledgedChange_badLineOrValues_areRefused() {
    assertThatThrownBy(() -> AcknowledgedChange.parse("ack alpha 1 PUT @a/b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot parse change line \"ack alpha 1 PUT @a/b\": not an ack line of 11 fields");
    assertThatThrownBy(() -> AcknowledgedChange.parse("ack alpha 1 MOVE @a/b 1 PUBLISHED 1 0 1 5"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot parse change line \"ack alpha 1 MOVE");
    assertThatThrownBy(() -> remove("alpha", 1, "@a/b", TransactionStatus.PUBLISHED, 2, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot describe a change of process alpha #1: a value is out of range");
    assertThatThrownBy(() -> new AcknowledgedChange("alpha", 1, Operation.REMOVE, "@a/b", "1",
        TransactionStatus.PUBLISHED, 1, 0, 1, 5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot describe change alpha #1: a removal has version - and a put has another");
  }

  private static AcknowledgedChange put(String process, int sequence, String name, String version, long before,
      long after) {
    return new AcknowledgedChange(process, sequence, Operation.PUT, name, version, TransactionStatus.PUBLISHED,
        (int) (after - before), before, after, 5);
  }

  private static AcknowledgedChange remove(String process, int sequence, String name, TransactionStatus status,
      long before, long after) {
    return new AcknowledgedChange(process, sequence, Operation.REMOVE, name, AcknowledgedChange.NO_VERSION, status,
        (int) (after - before), before, after, 5);
  }
}
