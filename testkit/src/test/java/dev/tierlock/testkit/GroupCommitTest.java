package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.CommitMode;
import dev.tierlock.ExtensionName;
import dev.tierlock.LockTimeoutException;
import dev.tierlock.LockfileConflictException;
import dev.tierlock.LockfileDelta;
import dev.tierlock.LockfileTransaction;
import dev.tierlock.ManagedConfigUnpublishedException;
import dev.tierlock.Namespace;
import dev.tierlock.PublishFailurePolicy;
import dev.tierlock.TierPath;
import dev.tierlock.TransactionContext;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Group commit: runs queued on one checkout while a batch runs are merged into the next batch,
 * one publish for all, each change on its caller's thread in queue order, each caller with its own
 * outcome. Callers are queued one by one (each waits in the queue before the next starts), so the
 * order is the test's, not the scheduler's.
 */
class GroupCommitTest {

  private static final ObjectKey LOCKFILE = Namespace.NONE.key(TierPath.LOCKFILE);

  @TempDir Path dir;

  private final FakeRemote remote = FakeRemote.create();
  private final AtomicInteger lockfileWrites = new AtomicInteger();
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

  @Test
  void queuedRuns_shareOnePublish_inQueueOrder_eachOnItsOwnThread() throws Exception {
    TestCheckout checkout = checkout("c", PublishFailurePolicy.THROW, false);
    Blocked leader = blockLeader(checkout.transaction());
    List<String> ran = Collections.synchronizedList(new ArrayList<>());
    List<CompletableFuture<TransactionResult>> followers = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      int n = i;
      followers.add(queue(checkout.transaction(), tx -> {
        ran.add("f" + n + " on " + Thread.currentThread().getName()
            + " saw " + (n == 0 || tx.entry(name("@g/f" + (n - 1))).isPresent()));
        tx.put(name("@g/f" + n), checkout.entry("1.0." + n));
      }, "f" + n));
    }
    int before = lockfileWrites.get();

    leader.release();

    for (int i = 0; i < 4; i++) {
      TransactionResult result = followers.get(i).get(30, TimeUnit.SECONDS);
      assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
      assertThat(result.delta()).isEqualTo(LockfileDelta.upsert(name("@g/f" + i), checkout.entry("1.0." + i)));
    }
    assertThat(leader.result()).extracting(TransactionResult::status).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(ran).containsExactly("f0 on f0 saw true", "f1 on f1 saw true", "f2 on f2 saw true", "f3 on f3 saw true");
    assertThat(lockfileWrites.get() - before).as("the leader's write, then one for the four queued runs").isEqualTo(2);
    assertThat(checkout.shared().entries().keySet()).containsExactlyInAnyOrder(name("@g/leader"), name("@g/f0"),
        name("@g/f1"), name("@g/f2"), name("@g/f3"));
  }

  @Test
  void withoutGroupCommit_eachQueuedRunPublishesOnItsOwn() throws Exception {
    TestCheckout checkout = checkout("c", PublishFailurePolicy.THROW, true);
    Blocked leader = blockLeader(checkout.transaction());
    List<CompletableFuture<TransactionResult>> followers = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      int n = i;
      followers.add(queue(checkout.transaction(), tx -> tx.put(name("@g/f" + n), checkout.entry("1.0." + n)), "f" + n));
    }
    int before = lockfileWrites.get();

    leader.release();

    for (CompletableFuture<TransactionResult> f : followers) {
      assertThat(f.get(30, TimeUnit.SECONDS).status()).isEqualTo(TransactionStatus.PUBLISHED);
    }
    assertThat(lockfileWrites.get() - before).as("the leader's write, then one per queued run").isEqualTo(4);
  }

  @Test
  void aChangeThatThrows_failsOnlyItsCaller_andNothingOfItIsSeenOrPublished() throws Exception {
    TestCheckout checkout = checkout("c", PublishFailurePolicy.THROW, false);
    Blocked leader = blockLeader(checkout.transaction());
    IllegalStateException boom = new IllegalStateException("boom");
    List<Boolean> thirdSaw = new ArrayList<>();
    CompletableFuture<TransactionResult> first = queue(checkout.transaction(),
        tx -> tx.put(name("@g/one"), checkout.entry("1.0.0")), "one");
    CompletableFuture<TransactionResult> second = queue(checkout.transaction(), tx -> {
      tx.put(name("@g/two"), checkout.entry("2.0.0"));
      throw boom;
    }, "two");
    CompletableFuture<TransactionResult> third = queue(checkout.transaction(), tx -> {
      thirdSaw.add(tx.entry(name("@g/two")).isPresent());
      tx.put(name("@g/three"), checkout.entry("3.0.0"));
    }, "three");

    leader.release();

    assertThat(first.get(30, TimeUnit.SECONDS).status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(third.get(30, TimeUnit.SECONDS).status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThatThrownBy(() -> second.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
        .cause().isSameAs(boom).hasMessage("boom");
    assertThat(thirdSaw).containsExactly(false);
    assertThat(checkout.shared().entry(name("@g/two"))).isEmpty();
    assertThat(checkout.shared().entries().keySet()).contains(name("@g/one"), name("@g/three"));
    assertThat(checkout.transaction().pending()).isEmpty();
  }

  @Test
  void aConflict_failsOnlyTheCallerWhoseChangeWroteThatName() throws Exception {
    TestCheckout checkout = checkout("c", PublishFailurePolicy.THROW, false);
    TestCheckout peer = TestCheckout.builder(remote, dir.resolve("peer"), checkout.clock())
        .commitMode(CommitMode.OPTIMISTIC).build();
    Blocked leader = blockLeader(checkout.transaction());
    CompletableFuture<TransactionResult> writesX = queue(checkout.transaction(), tx -> {
      tx.put(name("@s/x"), checkout.entry("1.0.0"));
      // a peer that takes no lease publishes the same name while this batch is being built
      peer.put("@s/x", "9.0.0");
    }, "x");
    CompletableFuture<TransactionResult> writesY = queue(checkout.transaction(),
        tx -> tx.put(name("@s/y"), checkout.entry("1.0.0")), "y");

    leader.release();

    assertThat(writesY.get(30, TimeUnit.SECONDS).status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThatThrownBy(() -> writesX.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(LockfileConflictException.class).hasMessageContaining("@s/x")
        .hasMessageContaining("9.0.0");
    assertThat(checkout.shared().entry(name("@s/x"))).contains(checkout.entry("9.0.0"));
    assertThat(checkout.shared().entry(name("@s/y"))).contains(checkout.entry("1.0.0"));
  }

  @Test
  void aFailedPublish_failsEveryCaller_andKeepsAllTheirChangesPending() throws Exception {
    TestCheckout checkout = checkout("c", PublishFailurePolicy.THROW, false);
    Blocked leader = blockLeader(checkout.transaction());
    CompletableFuture<TransactionResult> one = queue(checkout.transaction(),
        tx -> tx.put(name("@g/one"), checkout.entry("1.0.0")), "one");
    CompletableFuture<TransactionResult> two = queue(checkout.transaction(),
        tx -> tx.put(name("@g/two"), checkout.entry("2.0.0")), "two");
    leader.failNextLockfileWrites();

    leader.release();

    for (CompletableFuture<TransactionResult> f : List.of(one, two)) {
      assertThatThrownBy(() -> f.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
          .cause().isInstanceOf(ManagedConfigUnpublishedException.class).hasMessageContaining("@g/one")
          .hasMessageContaining("@g/two");
    }
    assertThat(checkout.transaction().pending()).get().extracting(p -> p.delta().names())
        .isEqualTo(java.util.Set.of(name("@g/leader"), name("@g/one"), name("@g/two")));
    remote.faults().clear();

    checkout.put("@g/three", "3.0.0");

    assertThat(checkout.shared().entries().keySet()).contains(name("@g/one"), name("@g/two"), name("@g/three"));
    assertThat(checkout.transaction().pending()).isEmpty();
  }

  @Test
  void aFailedPublishUnderDefer_defersEveryCaller_withItsOwnChange() throws Exception {
    TestCheckout checkout = checkout("c", PublishFailurePolicy.DEFER, false);
    Blocked leader = blockLeader(checkout.transaction());
    CompletableFuture<TransactionResult> one = queue(checkout.transaction(),
        tx -> tx.put(name("@g/one"), checkout.entry("1.0.0")), "one");
    CompletableFuture<TransactionResult> two = queue(checkout.transaction(),
        tx -> tx.put(name("@g/two"), checkout.entry("2.0.0")), "two");
    leader.failNextLockfileWrites();

    leader.release();

    TransactionResult first = one.get(30, TimeUnit.SECONDS);
    TransactionResult second = two.get(30, TimeUnit.SECONDS);
    assertThat(first.status()).isEqualTo(TransactionStatus.DEFERRED);
    assertThat(first.delta().names()).containsExactly(name("@g/one"));
    assertThat(second.status()).isEqualTo(TransactionStatus.DEFERRED);
    assertThat(second.delta().names()).containsExactly(name("@g/two"));
    assertThat(leader.result().status()).isEqualTo(TransactionStatus.DEFERRED);
    assertThat(checkout.transaction().pending()).get().extracting(p -> p.delta().names())
        .isEqualTo(java.util.Set.of(name("@g/leader"), name("@g/one"), name("@g/two")));
  }

  @Test
  void aCallerWhoseDeadlinePassesInTheQueue_leavesIt_andThoseBehindItStillRun() throws Exception {
    TestCheckout checkout = checkout("c", PublishFailurePolicy.THROW, false);
    Blocked leader = blockLeader(checkout.transaction());
    CompletableFuture<TransactionResult> late = queue(checkout.transaction(),
        tx -> tx.put(name("@g/late"), checkout.entry("1.0.0")), "late");
    checkout.clock().advance(Duration.ofSeconds(121));
    assertThatThrownBy(() -> late.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(LockTimeoutException.class).hasMessageContaining("the batch of runs before this one");
    CompletableFuture<TransactionResult> next = queue(checkout.transaction(),
        tx -> tx.put(name("@g/next"), checkout.entry("1.0.0")), "next");

    leader.release();

    assertThat(next.get(30, TimeUnit.SECONDS).status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(checkout.shared().entry(name("@g/late"))).isEmpty();
  }

  /** A leader whose change waits inside its batch until released, so that followers queue behind it. */
  private final class Blocked {
    private final CountDownLatch gate = new CountDownLatch(1);
    private final CompletableFuture<TransactionResult> result;

    Blocked(LockfileTransaction transaction, TestCheckout checkout) throws InterruptedException {
      CountDownLatch inside = new CountDownLatch(1);
      result = start(transaction, tx -> {
        tx.put(name("@g/leader"), checkout.entry("1.0.0"));
        inside.countDown();
        try {
          gate.await();
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      }, "leader");
      assertThat(inside.await(30, TimeUnit.SECONDS)).as("the leader's change started").isTrue();
    }

    void release() {
      gate.countDown();
    }

    /** Makes the store refuse every lockfile write from now on, the leader's included. */
    void failNextLockfileWrites() {
      remote.faults().failNext(DatastoreOperation.WRITE, LOCKFILE::equals, 100, Fault.UNAVAILABLE);
    }

    TransactionResult result() throws Exception {
      return result.get(30, TimeUnit.SECONDS);
    }
  }

  private Blocked blockLeader(LockfileTransaction transaction) throws InterruptedException {
    return new Blocked(transaction, checkoutOf(transaction));
  }

  private TestCheckout checkoutOf(LockfileTransaction transaction) {
    return checkouts.stream().filter(c -> c.transaction() == transaction).findFirst().orElseThrow();
  }

  private final List<TestCheckout> checkouts = new ArrayList<>();

  private TestCheckout checkout(String name, PublishFailurePolicy policy, boolean single) {
    Datastore counted = new ForwardingDatastore() {
      /** Returns true: it only counts lockfile writes. */
      @Override
      protected boolean passesPreconditionsThrough() {
        return true;
      }

      @Override
      protected Datastore delegate() {
        return remote;
      }

      @Override
      public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
        if (key.equals(LOCKFILE)) {
          lockfileWrites.incrementAndGet();
        }
        return remote.write(key, body, condition, metadata);
      }

      @Override
      public void close() {}
    };
    TestCheckout.Builder builder = TestCheckout.builder(counted, dir.resolve(name), TestClock.create())
        .publishFailurePolicy(policy).queueing(queued);
    if (single) {
      builder.withoutGroupCommit();
    }
    TestCheckout checkout = builder.build();
    checkouts.add(checkout);
    return checkout;
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

  private static ExtensionName name(String value) {
    return ExtensionName.of(value);
  }
}
