package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.spi.DatastoreUnsafeException;
import dev.tierlock.Datastores;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.Datastore;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the lockfile-transaction contract on the fake remote, plus what only the fake can show: a
 * store that ignores preconditions is refused, and the round trips each operation costs.
 */
class FakeRemoteLockfileTransactionTest extends LockfileTransactionContract {

  @Override
  protected Datastore createDatastore() {
    return FakeRemote.create();
  }

  @Test
  void aStoreThatIgnoresPreconditions_isRefusedBeforeAnyWrite(@TempDir Path dir) {
    try (FakeRemote broken = FakeRemote.create()) {
      broken.ignorePreconditions();
      TestClock clock = TestClock.create();
      TestCheckout a = TestCheckout.builder(Datastores.selfChecked(broken), dir.resolve("a"), clock).deferSelfCheck().build();

      assertThatThrownBy(() -> a.put("@s/x", "1"))
          .isInstanceOf(dev.tierlock.ManagedLockfileUnavailableException.class)
          .hasRootCauseInstanceOf(DatastoreUnsafeException.class)
          .hasMessageContaining("does not honour write preconditions (a create-only write over an existing object succeeded")
          .hasMessageContaining(broken.describe());
      assertThat(broken.keys()).isEmpty();
      assertThatThrownBy(() -> a.tierlock().checkDatastore())
          .isInstanceOf(DatastoreUnsafeException.class)
          .hasMessageStartingWith("Cannot write to datastore " + broken.describe())
          .extracting(e -> ((DatastoreUnsafeException) e).code()).isEqualTo("datastore_unsafe");
    }
  }

  @Test
  void roundTrips_putFour_firstPutOfAnotherInstanceFour_noOpRefreshOne(@TempDir Path dir) {
    try (FakeRemote remote = FakeRemote.create()) {
      CountingDatastore counting = CountingDatastore.wrap(remote);
      TestClock clock = TestClock.create();
      TestCheckout a = TestCheckout.builder(counting, dir.resolve("a"), clock).deferSelfCheck().build();
      a.put("@s/first", "1");
      assertThat(counting.total()).as("the first put of the process pays the self-check").isEqualTo(4 + 5);
      counting.reset();

      a.put("@s/second", "1");

      assertThat(counting.counts()).containsEntry(DatastoreOperation.WRITE, 2L).containsEntry(DatastoreOperation.READ, 1L)
          .containsEntry(DatastoreOperation.DELETE, 1L);
      assertThat(counting.total()).isEqualTo(4);
      counting.reset();

      assertThat(a.transaction().refresh().status()).isEqualTo(TransactionStatus.NO_CHANGE);

      assertThat(counting.counts()).containsEntry(DatastoreOperation.READ, 1L);
      assertThat(counting.total()).isEqualTo(1);
      TestCheckout again = TestCheckout.builder(counting, dir.resolve("a"), clock).deferSelfCheck().build();
      counting.reset();

      again.put("@s/third", "1");

      assertThat(counting.total()).as("the verdict is remembered for the process and the checkout").isEqualTo(4);
    }
  }
}
