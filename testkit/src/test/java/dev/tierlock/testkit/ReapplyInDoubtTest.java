package dev.tierlock.testkit;

import static dev.tierlock.testkit.TransactionFixture.name;
import static dev.tierlock.testkit.TransactionFixture.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.tierlock.LockfileConflictException;
import dev.tierlock.LockfileOutcomeUnknownException;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.Datastore;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Re-applying a change whose landing the lineage could not prove does what its message says, and
 * no more: an entry another checkout changed to another value since is left alone (a conflict); an
 * entry still at the value the change was made on is set again, which is the one case the lineage
 * could not tell apart (not landed, or landed and set back by a peer), so the message names it.
 */
class ReapplyInDoubtTest {

  @TempDir Path temp;

  private TransactionFixture f;

  @BeforeEach
  void open() {
    f = TransactionFixture.open(FakeRemote.create(), temp);
  }

  @AfterEach
  void close() {
    f.close();
  }

  @Test
  void reapplyingAChangeInDoubt_leavesAPeersOtherValueAlone_andSetsAgainWhatIsAtItsOldValue_asItsMessageSays() {
    Datastore shortLineage = TransactionFixture.withMetadataCapacity(f.store(), LostAnswerScenarios.SHORT_CAPACITY);
    TestCheckout a = f.register(f.builder("a", shortLineage).build());
    TestCheckout b = f.register(f.builder("b", shortLineage).build());
    f.loseTheNextLockfileAnswerAndEveryReadBack(Fault.LOSE_RESPONSE);
    assertThatThrownBy(() -> a.transaction().run(tx -> {
      tx.put(name("@s/y"), f.entry("1"));
      tx.put(name("@s/w"), f.entry("1"));
    })).isInstanceOf(LockfileOutcomeUnknownException.class);
    f.store().faults().clear();
    assertThat(versions(f.shared())).as("a's write landed").containsEntry("@s/y", "1").containsEntry("@s/w", "1");
    assertThat(b.remove("@s/y").status()).as("b sets @s/y back to its old value: absent").isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(b.put("@s/w", "2").status()).isEqualTo(TransactionStatus.PUBLISHED);
    for (int i = 0; i < LostAnswerScenarios.SHORT_LINEAGE + 2; i++) {
      b.put("@peer/p" + i, "1");
    }
    assertThatThrownBy(() -> a.put("@s/z", "1")).isInstanceOf(LockfileOutcomeUnknownException.class)
        .hasMessageContaining("an entry another checkout changed to another value since is left alone; one still at the"
            + " value the change was made on is set again, even where another checkout set it back to that value after"
            + " the change landed");

    Throwable outcome = catchThrowable(() -> a.transaction().reapplyPending());

    assertThat(outcome).as("the entry b changed to another value is a conflict").isInstanceOf(LockfileConflictException.class)
        .hasMessageContaining("@s/w");
    assertThat(versions(f.shared())).as("b's other value is left alone; the entry at its old value is set again")
        .containsEntry("@s/w", "2").containsEntry("@s/y", "1").doesNotContainKey("@s/z");
    assertThat(a.transaction().pending()).as("re-applied: nothing is pending").isEmpty();
  }
}
