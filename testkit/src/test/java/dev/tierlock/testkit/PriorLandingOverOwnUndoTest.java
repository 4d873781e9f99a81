package dev.tierlock.testkit;

import static dev.tierlock.testkit.TransactionFixture.isLockfile;
import static dev.tierlock.testkit.TransactionFixture.name;
import static dev.tierlock.testkit.TransactionFixture.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.LockfileOutcomeUnknownException;
import dev.tierlock.PendingChange;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.WriteResult;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When an earlier write of a checkout's change is found landed during a later run (its request was
 * held back and arrived first), what the later run took back is taken back: the names the earlier
 * write carried are always part of the later write, rebased from what the earlier one carried.
 */
class PriorLandingOverOwnUndoTest {

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
  void aRunThatTakesBackAChangeInDoubt_whileThePriorWriteLandsUnderIt_isAcknowledged_butTheEntryStays() {
    HeldWriteDatastore held = new HeldWriteDatastore(f.store());
    TestCheckout a = f.register(f.builder("a", held).build());
    a.put("@s/base", "1");
    held.holdNextLockfileWrite(() -> f.store().faults().failNext(DatastoreOperation.WRITE, isLockfile(), 1000,
        Fault.TIMEOUT_BEFORE_APPLY));
    assertThatThrownBy(() -> a.put("@s/x", "1")).isInstanceOf(LockfileOutcomeUnknownException.class);
    f.store().faults().clear();
    assertThat(a.transaction().pending()).map(PendingChange::state).contains(PendingChange.State.IN_FLIGHT);
    // the held request arrives just before this run's own write reaches the store
    f.store().faults().beforeNext(DatastoreOperation.WRITE, isLockfile(),
        () -> assertThat(held.deliver()).isInstanceOf(WriteResult.Written.class));

    TransactionResult result = a.transaction().run(tx -> {
      tx.remove(name("@s/x"));
      tx.put(name("@s/y"), f.entry("1"));
    });

    assertThat(f.store().faults().pendingHooks()).isZero();
    assertThat(result.status()).as("the run is acknowledged").isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(versions(f.shared())).as("a's acknowledged run removed @s/x; nobody else touched it")
        .containsEntry("@s/y", "1").doesNotContainKey("@s/x");
  }
}
