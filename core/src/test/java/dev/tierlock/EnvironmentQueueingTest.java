package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Environment#queueing()}: a caller that has to queue in this JVM behind another caller of a
 * checkout tells the hook, on its own thread and once, what it queues for (the batch of runs, the
 * transaction lock, the global lock, the pulled-extensions lock); a caller that need not queue
 * tells nothing. The test waits on what the hook is told, never on a thread's state.
 */
class EnvironmentQueueingTest {

  private static final Namespace TEAM = Namespace.of("team");

  @TempDir Path dir;

  private final ManualClock clock = ManualClock.create();
  private final MemoryDatastore store = new MemoryDatastore();
  /** What the hook was told, with the name of the thread it was told on. */
  private final LinkedBlockingQueue<String> told = new LinkedBlockingQueue<>();
  private final List<Thread> threads = new ArrayList<>();

  @AfterEach
  void tearDown() throws InterruptedException {
    for (Thread thread : threads) {
      thread.join(TimeUnit.SECONDS.toMillis(30));
    }
    SelfCheckedDatastore.forgetProcessVerdicts();
  }

  @Test
  void aRunQueuedBehindABatch_tellsTheRunsBeforeIt_andAnUncontendedRunTellsNothing() throws Exception {
    try (Tierlock tierlock = builder().build()) {
      tierlock.transaction().run(tx -> tx.put(ExtensionName.of("@s/alone"), entry()));
      assertThat(told).as("nobody was ahead of the run").isEmpty();

      CompletableFuture<TransactionResult> follower = queueBehindABlockedRun(tierlock);

      assertThat(follower.get(30, TimeUnit.SECONDS).status()).isEqualTo(TransactionStatus.PUBLISHED);
      assertThat(told).as("told once, on the follower's thread")
          .containsExactly("follower: the runs before this one on " + tierlock.transaction().describe());
    }
  }

  @Test
  void aRunQueuedWithoutGroupCommit_optimistic_tellsTheTransactionLock() throws Exception {
    try (Tierlock tierlock = builder().withoutGroupCommit().commitMode(CommitMode.OPTIMISTIC).build()) {
      CompletableFuture<TransactionResult> follower = queueBehindABlockedRun(tierlock);

      assertThat(follower.get(30, TimeUnit.SECONDS).status()).isEqualTo(TransactionStatus.PUBLISHED);
      assertThat(told).containsExactly("follower: transaction lock "
          + tierlock.stateDirectory().toRealPath().resolve("transaction.lock"));
    }
  }

  @Test
  void aRunQueuedWithoutGroupCommit_locked_tellsTheGlobalLock() throws Exception {
    try (Tierlock tierlock = builder().withoutGroupCommit().commitMode(CommitMode.LOCKED).build()) {
      CompletableFuture<TransactionResult> follower = queueBehindABlockedRun(tierlock);

      assertThat(follower.get(30, TimeUnit.SECONDS).status()).isEqualTo(TransactionStatus.PUBLISHED);
      assertThat(told).as("the global lock first: a locked run takes it before the transaction lock")
          .first().isEqualTo("follower: " + tierlock.globalLock().describe());
      assertThat(told).allSatisfy(waitedFor -> assertThat(waitedFor).startsWith("follower: "));
    }
  }

  @Test
  void aCallerQueuedForThePulledExtensionsLock_tellsThatLock() throws Exception {
    PulledExtensionsLock lock = PulledExtensionsLock.builder(dir).environment(environment()).build();
    PulledExtensionsLock.Held held = lock.acquire();
    CompletableFuture<Void> second = start("follower", () -> lock.acquire().close());

    assertThat(told.poll(30, TimeUnit.SECONDS)).as("the second caller queued")
        .isEqualTo("follower: " + lock.describe());
    assertThat(second).isNotDone();
    held.close();
    second.get(30, TimeUnit.SECONDS);
    assertThat(told).isEmpty();
  }

  /**
   * Starts a run on {@code tierlock} that blocks inside its change, then a follower's run, and
   * returns the follower once the hook said it queued and the blocked run was let go.
   */
  private CompletableFuture<TransactionResult> queueBehindABlockedRun(Tierlock tierlock) throws Exception {
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch gate = new CountDownLatch(1);
    CompletableFuture<TransactionResult> blocked = new CompletableFuture<>();
    start("blocked", () -> blocked.complete(tierlock.transaction().run(tx -> {
      tx.put(ExtensionName.of("@s/blocked"), entry());
      inside.countDown();
      awaitUninterruptibly(gate);
    })));
    assertThat(inside.await(30, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<TransactionResult> follower = new CompletableFuture<>();
    start("follower", () -> follower.complete(tierlock.transaction().run(
        tx -> tx.put(ExtensionName.of("@s/follower"), entry()))));
    @Nullable String first = told.poll(30, TimeUnit.SECONDS);
    assertThat(first).as("the follower queued within 30 s").isNotNull();
    told.add(first);  // kept for the test's own assertion
    assertThat(follower).as("queued, not run").isNotDone();
    gate.countDown();
    assertThat(blocked.get(30, TimeUnit.SECONDS).status()).isEqualTo(TransactionStatus.PUBLISHED);
    return follower;
  }

  private CompletableFuture<Void> start(String name, Runnable body) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    Thread thread = new Thread(() -> {
      try {
        body.run();
        done.complete(null);
      } catch (Throwable t) {
        done.completeExceptionally(t);
      }
    }, name);
    threads.add(thread);
    thread.start();
    return done;
  }

  private Tierlock.Builder builder() {
    return Tierlock.builder().datastore(store).checkout(dir).namespace(TEAM).environment(environment());
  }

  private Environment environment() {
    Consumer<String> hook = waitedFor -> told.add(Thread.currentThread().getName() + ": " + waitedFor);
    return Environment.system().withClock(clock).withSleeper(clock.sleeper()).withRandom(new SplittableRandom(1))
        .withHeartbeats((name, interval, beat) -> () -> { }).withQueueing(hook);
  }

  private LockfileEntry entry() {
    return LockfileEntry.builder("1.0.0", clock.instant()).build();
  }

  private static void awaitUninterruptibly(CountDownLatch latch) {
    try {
      assertThat(latch.await(30, TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
