package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreUnsafeException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lockfile-transaction contract on the fake remote, whose versions are fresh generations (as on
 * GCS), plus what only the fake can show: a remote that ignores preconditions is refused by {@code
 * run} itself, and the round trips each operation costs.
 */
class FakeRemoteLockfileTransactionTest extends LockfileTransactionContract {

  @Override
  protected Datastore createDatastore() {
    return FakeRemote.create();
  }

  @Test
  void run_onARemoteThatIgnoresPreconditions_isRefusedAsUnsafe_beforeAnyWrite(@TempDir Path dir) {
    try (FakeRemote broken = FakeRemote.create()) {
      broken.ignorePreconditions();
      TestCheckout a = TestCheckout.builder(broken, dir.resolve("a"), TestClock.create()).deferSelfCheck().build();

      assertThatThrownBy(() -> a.put("@s/x", "1"))
          .isInstanceOf(DatastoreUnsafeException.class)
          .hasMessageStartingWith("Cannot write to datastore " + broken.identity() + ": it does not honour write"
              + " preconditions (a create-only write over an existing object succeeded, probe key .tierlock-selfcheck/probe-")
          .extracting(e -> ((DatastoreUnsafeException) e).code()).isEqualTo("datastore_unsafe");
      assertThat(broken.keys()).isEmpty();
      assertThatThrownBy(() -> a.tierlock().checkDatastore())
          .isInstanceOf(DatastoreUnsafeException.class)
          .hasMessageStartingWith("Cannot write to datastore " + broken.identity());
    }
  }

  @Test
  void roundTrips_aPutCostsFour_theFirstOfTheProcessPaysTheSelfCheck_aNoOpRefreshOne(@TempDir Path dir) {
    try (FakeRemote remote = FakeRemote.create()) {
      CountingDatastore counting = CountingDatastore.wrap(remote);
      TestClock clock = TestClock.create();
      TestCheckout a = TestCheckout.builder(counting, dir.resolve("a"), clock).deferSelfCheck().build();
      a.put("@s/first", "1");
      assertThat(counting.total()).as("the first put of the process pays the self-check").isGreaterThan(4);
      counting.reset();

      a.put("@s/second", "1");

      assertThat(counting.counts()).containsEntry(DatastoreOperation.WRITE, 2L).containsEntry(DatastoreOperation.READ, 1L)
          .containsEntry(DatastoreOperation.DELETE, 1L);
      assertThat(counting.total()).isEqualTo(4);
      counting.reset();

      assertThat(a.transaction().refresh().status()).isEqualTo(TransactionStatus.NO_CHANGE);

      assertThat(counting.counts()).containsEntry(DatastoreOperation.READ, 1L);
      assertThat(counting.total()).isEqualTo(1);
      TestCheckout again = a.reopen();
      counting.reset();

      again.put("@s/third", "1");

      assertThat(counting.total()).as("the verdict is remembered for the process").isEqualTo(4);
      again.close();
    }
  }
}
