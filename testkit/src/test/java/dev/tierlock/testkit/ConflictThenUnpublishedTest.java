package dev.tierlock.testkit;

import static dev.tierlock.testkit.TransactionFixture.isLockfile;
import static dev.tierlock.testkit.TransactionFixture.name;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.tierlock.LockfileConflictException;
import dev.tierlock.PendingChange;
import dev.tierlock.TransactionStatus;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When a run meets a conflict on one name and then fails to publish the rest, the worse outcome is
 * the exception: {@link dev.tierlock.ManagedConfigUnpublishedException} (the rest is saved, not
 * published; run it again), naming the rest and the conflict, never a {@link
 * LockfileConflictException} whose promise is that the rest was published.
 */
class ConflictThenUnpublishedTest {

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
  void aConflictOnOneName_thenAFailedPublishOfTheRest_saysTheRestIsNotPublished() {
    TestCheckout a = f.checkout("a");
    TestCheckout b = f.checkout("b");
    f.store().faults().beforeNext(DatastoreOperation.WRITE, isLockfile(), () -> {
      f.stallPastTheLease();
      assertThat(b.put("@s/x", "2").status()).isEqualTo(TransactionStatus.PUBLISHED);
      // a's write is refused (b's version is newer); every later write fails as unavailable
      f.store().faults().afterNext(DatastoreOperation.WRITE, isLockfile(), f::failLockfileWrites);
    });

    Throwable thrown = catchThrowable(() -> a.transaction().run(tx -> {
      tx.put(name("@s/x"), f.entry("1"));
      tx.put(name("@s/y"), f.entry("1"));
    }));

    assertThat(f.shared().contains(name("@s/y"))).as("the rest was not published").isFalse();
    assertThat(a.transaction().pending()).map(PendingChange::state).contains(PendingChange.State.UNPUBLISHED);
    assertThat(f.store().faults().pendingHooks()).isZero();
    assertThat(thrown).isNotNull();
    assertThat(thrown.getMessage()).as("the exception tells that @s/y is saved but not published (it is a "
        + thrown.getClass().getSimpleName() + ")").contains("@s/y");
  }
}
