package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.tierlock.LockfileOutcomeUnknownException;
import dev.tierlock.PendingChange;
import dev.tierlock.spi.Datastore;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A datastore whose metadata cannot hold a commit id (one that keeps no user metadata reports 0)
 * is refused before anything is sent or recorded as in flight: {@link
 * dev.tierlock.spi.DatastoreUnsafeException} naming the metadata, not an unanswered write.
 */
class MetadataCapacityTest {

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
  void aStoreWithoutRoomForACommitId_isAClearError_notAnUnansweredWrite() {
    Datastore noMetadata = TransactionFixture.withMetadataCapacity(f.store(), 0);
    TestCheckout a = f.register(f.builder("a", noMetadata).build());

    Throwable thrown = catchThrowable(() -> a.put("@s/x", "1"));

    assertThat(f.lockfileWrites()).as("nothing was sent").isZero();
    assertThat(thrown).as("the outcome is known: nothing was written")
        .isNotInstanceOf(LockfileOutcomeUnknownException.class)
        .hasMessageContaining("metadata");
    assertThat(a.transaction().pending()).as("nothing can have landed: no write in flight")
        .map(PendingChange::state).isNotEqualTo(java.util.Optional.of(PendingChange.State.IN_FLIGHT));
  }
}
