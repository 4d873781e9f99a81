package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.CommitMode;
import dev.tierlock.ExtensionName;
import dev.tierlock.InterruptedOperationException;
import dev.tierlock.LockfileConflictException;
import dev.tierlock.LockfileEntry;
import dev.tierlock.LockfileTransaction;
import dev.tierlock.Namespace;
import dev.tierlock.PublishFailurePolicy;
import dev.tierlock.TierPath;
import dev.tierlock.TransactionContext;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.ObjectKey;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Adversarial review of group commit: per-caller conflict attribution, interrupts in the queue, and
 * the optimistic batch that must retake the locks under the lease (CommitRun returns Carried) with
 * a peer, or another instance of the same checkout, acting between the two passes. Callers are
 * queued one by one (each waits in the queue before the next starts), so the order is the test's.
 */
class GroupCommitAttackTest {

  private static final ObjectKey LOCKFILE = Namespace.NONE.key(TierPath.LOCKFILE);
  private static final ExtensionName X = ExtensionName.of("@s/x");
  private static final ExtensionName Y = ExtensionName.of("@s/y");
  private static final ExtensionName Z = ExtensionName.of("@s/z");

  @TempDir Path dir;

  private final FakeRemote remote = FakeRemote.create();
  private final TestClock clock = TestClock.create();
  private final List<Thread> started = new ArrayList<>();
  /** Told when a caller of a checkout of this test queues behind another. */
  private final QueueWatch queued = new QueueWatch();

  @AfterEach
  void tearDown() throws InterruptedException {
    for (Thread t : started) {
      t.join(TimeUnit.SECONDS.toMillis(30));
    }
    remote.close();
  }

  /**
   * FINDING. Two queued callers both set x to the same value v: caller one's own delta holds x, and
   * caller two's does not (its put equals what caller one left, so {@code ChangeEditor} drops it).
   * A peer (optimistic, no lease) publishes x=9.0.0 after the batch's fetch. The batch's write is
   * refused and rebased: x is a conflict. {@code Ending.conflictsOf} attributes it by {@code
   * own().touches(x)}: caller one fails with lockfile_conflict; caller two, whose change also wrote
   * x, gets PUBLISHED with a delta that lacks x and no word of the conflict. Its put of x is dropped
   * silently: README promises "a conflict fails only the callers whose change wrote that name" and
   * never "a change dropped without the caller being told". Run alone, caller two's change would
   * have been a conflict on x.
   */
  @Test
  void aFollowerWhoseWriteEqualsAnEarlierCallers_isToldOfTheConflictOnThatName() throws Exception {
    TestCheckout checkout = checkout("c", CommitMode.LOCKED, PublishFailurePolicy.THROW);
    TestCheckout peer = checkout("peer", CommitMode.OPTIMISTIC, PublishFailurePolicy.THROW);
    LockfileEntry wanted = checkout.entry("1.1.0");
    Blocked leader = new Blocked(checkout);
    CompletableFuture<TransactionResult> one = queue(checkout.transaction(), tx -> {
      tx.put(X, wanted);
      // a peer that takes no lease publishes x while this batch is being built (after its fetch)
      peer.put("@s/x", "9.0.0");
    }, "one");
    CompletableFuture<TransactionResult> two = queue(checkout.transaction(), tx -> {
      tx.put(X, wanted);
      tx.put(Z, wanted);
    }, "two");

    leader.release();

    assertThatThrownBy(() -> one.get(30, TimeUnit.SECONDS)).cause().isInstanceOf(LockfileConflictException.class);
    assertThat(checkout.shared().entry(X)).contains(checkout.entry("9.0.0"));
    Throwable second = failureOf(two);
    assertThat(second)
        .as("caller two's change wrote x, which the peer changed: it must be told (got %s)",
            second == null ? "PUBLISHED, delta " + two.get().delta() : second)
        .isInstanceOf(LockfileConflictException.class);
  }

  /** HELD. A follower interrupted while queued leaves the queue with interrupted; its change never runs. */
  @Test
  void aFollowerInterruptedWhileQueued_leavesWithInterrupted_andItsChangeNeverRuns() throws Exception {
    TestCheckout checkout = checkout("c", CommitMode.OPTIMISTIC, PublishFailurePolicy.THROW);
    Blocked leader = new Blocked(checkout);
    AtomicBoolean ran = new AtomicBoolean();
    CompletableFuture<TransactionResult> interrupted = queue(checkout.transaction(), tx -> {
      ran.set(true);
      tx.put(X, checkout.entry("1.0.0"));
    }, "interrupted");
    CompletableFuture<TransactionResult> after = queue(checkout.transaction(),
        tx -> tx.put(Y, checkout.entry("1.0.0")), "after");
    started.get(started.size() - 2).interrupt();

    assertThatThrownBy(() -> interrupted.get(30, TimeUnit.SECONDS)).cause()
        .isInstanceOf(InterruptedOperationException.class);
    leader.release();

    assertThat(after.get(30, TimeUnit.SECONDS).status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(leader.result().status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(ran).isFalse();
    assertThat(checkout.shared().entry(X)).isEmpty();
    assertThat(checkout.shared().entry(Y)).isPresent();
    assertThat(checkout.transaction().pending()).isEmpty();
  }

  /** A leader whose change waits inside its batch until released, so that followers queue behind it. */
  private final class Blocked {
    private final CountDownLatch gate = new CountDownLatch(1);
    private final CompletableFuture<TransactionResult> result;
    private volatile Runnable afterWrite = () -> { };

    Blocked(TestCheckout checkout) throws InterruptedException {
      CountDownLatch inside = new CountDownLatch(1);
      result = start(checkout.transaction(), tx -> {
        tx.put(ExtensionName.of("@g/leader"), checkout.entry("1.0.0"));
        remote.faults().afterNext(DatastoreOperation.WRITE, LOCKFILE::equals, () -> afterWrite.run());
        inside.countDown();
        try {
          gate.await();
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      }, "leader");
      assertThat(inside.await(30, TimeUnit.SECONDS)).as("the leader's change started").isTrue();
    }

    /** Runs {@code action} right after the leader's own lockfile write lands (before the next batch). */
    void afterItsWrite(Runnable action) {
      afterWrite = action;
    }

    void release() {
      gate.countDown();
    }

    TransactionResult result() throws Exception {
      return result.get(30, TimeUnit.SECONDS);
    }
  }

  private TestCheckout checkout(String name, CommitMode mode, PublishFailurePolicy policy) {
    return TestCheckout.builder(remote, dir.resolve(name), clock).commitMode(mode).publishFailurePolicy(policy)
        .queueing(queued).build();
  }

  private static Throwable failureOf(CompletableFuture<TransactionResult> future) throws Exception {
    try {
      future.get(30, TimeUnit.SECONDS);
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }

  /** Starts a run on its own thread and waits until the checkout says it queued behind the runs before it. */
  private CompletableFuture<TransactionResult> queue(LockfileTransaction transaction,
      Consumer<TransactionContext> change, String name) throws InterruptedException {
    CompletableFuture<TransactionResult> result = start(transaction, change, name);
    queued.await(started.get(started.size() - 1));
    return result;
  }

  private CompletableFuture<TransactionResult> start(LockfileTransaction transaction,
      Consumer<TransactionContext> change, String name) {
    CompletableFuture<TransactionResult> result = new CompletableFuture<>();
    Thread thread = new Thread(() -> {
      try {
        result.complete(transaction.run(change));
      } catch (Throwable t) {
        result.completeExceptionally(t);
      }
    }, name);
    started.add(thread);
    thread.start();
    return result;
  }
}
