package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.DatastoreUnsafeException;
import dev.tierlock.Datastores;
import dev.tierlock.spi.Datastore;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the lockfile-transaction contract on the fake remote, plus what only the fake can show. */
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
}
