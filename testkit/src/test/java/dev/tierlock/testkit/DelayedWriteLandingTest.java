package dev.tierlock.testkit;

import static dev.tierlock.testkit.TransactionFixture.isLockfile;
import static dev.tierlock.testkit.TransactionFixture.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import dev.tierlock.LockfileOutcomeUnknownException;
import dev.tierlock.PendingChange;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.OutcomeUnknownException;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write whose answer was lost and whose read-back still showed its parent current has not landed
 * yet, and may still: a request queued in a proxy or still being processed when the client timed
 * out lands later, its precondition holding. It is never forgotten: the run keeps it in doubt and
 * sends it again as the same commit, so when the held request lands first the next fetch finds its
 * commit in the lineage and a peer's change made on top of it is not reverted. On the default store
 * (versions never repeat), so this is not the repeated-version case.
 */
class DelayedWriteLandingTest {

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
  void aLostWriteThatLandsAfterTheReadBack_thenAPeerRemoval_keepsThePeersRemoval() {
    DelayingDatastore delaying = new DelayingDatastore(f.store());
    TestCheckout a = f.register(f.builder("a", delaying).build());
    TestCheckout b = f.checkout("b");
    a.put("@s/base", "1");
    // a's read-back (a stat) shows the parent still current: not landed yet. Then, before a's next
    // send reaches the store, the delayed request lands and b, which took the stalled lease over,
    // removes @s/x.
    delaying.delayNextLockfileWrite(() -> f.store().faults().beforeNext(DatastoreOperation.WRITE, isLockfile(), () -> {
      assertThat(delaying.deliver()).as("the delayed write lands: its precondition still holds")
          .isInstanceOf(WriteResult.Written.class);
      assertThat(versions(f.shared())).containsExactly(entry("@s/base", "1"), entry("@s/x", "1"));
      f.stallPastTheLease();
      assertThat(b.remove("@s/x").status()).as("b's removal is acknowledged").isEqualTo(TransactionStatus.PUBLISHED);
    }));

    a.put("@s/x", "1");

    assertThat(f.store().faults().pendingHooks()).as("the delayed write landed, then b removed @s/x").isZero();
    assertThat(versions(f.shared())).as("b's acknowledged removal of @s/x, made after a's write landed")
        .containsExactly(entry("@s/base", "1"));
  }

  @Test
  void aWriteStillInDoubtWhenItsRunEnds_thatLandsDuringTheNextRun_isNotReappliedOverAPeer_andTheNextChangeIsPublished() {
    DelayingDatastore delaying = new DelayingDatastore(f.store());
    TestCheckout a = f.register(f.builder("a", delaying).build());
    TestCheckout b = f.checkout("b");
    a.put("@s/base", "1");
    // the first send is held back; every later send of the same commit times out before it applies
    delaying.delayNextLockfileWrite(() -> f.store().faults().failNext(DatastoreOperation.WRITE, isLockfile(), 1000,
        Fault.TIMEOUT_BEFORE_APPLY));
    assertThatThrownBy(() -> a.put("@s/x", "1")).isInstanceOf(LockfileOutcomeUnknownException.class);
    f.store().faults().clear();
    assertThat(a.transaction().pending()).hasValueSatisfying(p -> assertThat(p.state())
        .isEqualTo(PendingChange.State.IN_FLIGHT));
    assertThat(versions(f.shared())).as("nothing landed yet").containsExactly(entry("@s/base", "1"));
    // the next run sends its own write; before it reaches the store, the held request lands and b
    // removes @s/x on top of it
    f.store().faults().beforeNext(DatastoreOperation.WRITE, isLockfile(), () -> {
      assertThat(delaying.deliver()).isInstanceOf(WriteResult.Written.class);
      f.stallPastTheLease();
      assertThat(b.remove("@s/x").status()).isEqualTo(TransactionStatus.PUBLISHED);
    });

    TransactionResult next = a.put("@s/y", "1");

    assertThat(f.store().faults().pendingHooks()).isZero();
    assertThat(next.status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(next.warnings()).as("@s/x was published, then removed by b: nothing was dropped").isEmpty();
    assertThat(versions(f.shared())).as("b's removal of @s/x, made on top of a's late write, is kept")
        .containsExactly(entry("@s/base", "1"), entry("@s/y", "1"));
    assertThat(a.transaction().pending()).isEmpty();
  }

  /** Holds the next lockfile write back, answering "outcome unknown", and sends it when told. */
  private static final class DelayingDatastore extends ForwardingDatastore {
    private final Datastore delegate;
    private final AtomicReference<@Nullable Runnable> armed = new AtomicReference<>();
    private final AtomicReference<WriteResult> delivered = new AtomicReference<>();
    private volatile @Nullable Runnable delayNext;

    DelayingDatastore(Datastore delegate) {
      this.delegate = delegate;
    }

    void delayNextLockfileWrite(Runnable whenHeld) {
      delayNext = whenHeld;
    }

    WriteResult deliver() {
      Runnable send = armed.getAndSet(null);
      if (send == null) {
        throw new IllegalStateException("no write was held back");
      }
      send.run();
      return delivered.get();
    }

    @Override
    protected Datastore delegate() {
      return delegate;
    }

    @Override
    public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
      Runnable whenHeld = delayNext;
      if (whenHeld != null && key.equals(TransactionFixture.LOCKFILE_KEY)) {
        delayNext = null;
        whenHeld.run();
        byte[] bytes;
        try (InputStream in = body.open()) {
          bytes = in.readAllBytes();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        armed.set(() -> delivered.set(delegate.write(key, ObjectBody.of(bytes), condition, metadata)));
        throw new OutcomeUnknownException("Cannot write " + key + ": the request timed out (held back by the test)",
            null);
      }
      return delegate.write(key, body, condition, metadata);
    }

    @Override
    public void close() {
      // the fixture closes the store
    }
  }
}
