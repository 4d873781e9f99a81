package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.CommitMode;
import dev.tierlock.ExtensionName;
import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreUnsafeException;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A user-written decorator that drops write preconditions (a "retry without the condition" wrapper)
 * over an honest store that this process has already verified does not inherit the store's
 * verdict: it is checked on its own and refused before its first write, so a peer's acknowledged
 * entry, published between its read and its write, is never lost.
 */
class SelfCheckDecoratorTest {

  private static final ObjectKey LOCKFILE = Namespace.NONE.key(TierPath.LOCKFILE);

  @TempDir Path temp;

  @Test
  void aDecoratorDroppingPreconditions_overAVerifiedStore_isRefused_andThePeersAcknowledgedEntryStays() {
    try (FakeRemote remote = FakeRemote.create()) {
      TestClock clock = TestClock.create();
      TestCheckout peer = TestCheckout.builder(remote, temp.resolve("peer"), clock)
          .commitMode(CommitMode.OPTIMISTIC).build();
      assertThat(peer.put("@s/first", "1").status()).isEqualTo(TransactionStatus.PUBLISHED);
      TestCheckout user = TestCheckout.builder(new DroppingPreconditions(remote), temp.resolve("user"), clock)
          .commitMode(CommitMode.OPTIMISTIC).deferSelfCheck().build();
      remote.faults().afterNext(DatastoreOperation.READ, LOCKFILE::equals,
          () -> assertThat(peer.put("@s/acknowledged", "1").status()).isEqualTo(TransactionStatus.PUBLISHED));

      assertThatThrownBy(() -> user.put("@s/mine", "1"))
          .isInstanceOf(DatastoreUnsafeException.class)
          .hasMessageStartingWith("Cannot write to datastore " + remote.identity() + ": it does not honour write"
              + " preconditions (")
          .extracting(e -> ((DatastoreUnsafeException) e).code()).isEqualTo("datastore_unsafe");

      assertThat(remote.faults().pendingHooks()).as("the peer published between the user's read and write").isZero();
      assertThat(TestCheckout.sharedLockfile(remote, Namespace.NONE).names()).containsExactlyInAnyOrder(
          ExtensionName.of("@s/first"), ExtensionName.of("@s/acknowledged"));
      user.close();
      peer.close();
    }
  }

  /** A user's decorator that retries by dropping preconditions; it declares nothing. */
  private static final class DroppingPreconditions extends ForwardingDatastore {
    private final Datastore delegate;

    DroppingPreconditions(Datastore delegate) {
      this.delegate = delegate;
    }

    @Override
    protected Datastore delegate() {
      return delegate;
    }

    @Override
    public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
      return delegate.write(key, body, WriteCondition.none(), metadata);
    }

    @Override
    public DeleteResult delete(ObjectKey key, WriteCondition condition) {
      return delegate.delete(key, WriteCondition.none());
    }
  }
}
