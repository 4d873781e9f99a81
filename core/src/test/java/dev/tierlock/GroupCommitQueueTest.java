package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The group-commit queue on its own: who leads, what a batch takes, and what a failed batch leaves. */
class GroupCommitQueueTest {

  /** One permit each time a caller joins a queue of this test. */
  private final Semaphore queuedCallers = new Semaphore(0);

  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
  private static final Consumer<TransactionContext> NOTHING = tx -> { };

  @TempDir Path dir;

  private final Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
  private final List<List<String>> batches = Collections.synchronizedList(new ArrayList<>());

  @Test
  void aBatchThatFailsBeforeAFollowersChangeRan_putsItBackForALeaderOfItsOwn() throws Exception {
    GroupCommit group = new GroupCommit(clock, "test checkout", PulledExtensionsLock.builder(dir).build())
        .onQueued(queuedCallers::release);
    CountDownLatch firstInside = new CountDownLatch(1);
    CountDownLatch releaseFirst = new CountDownLatch(1);
    IllegalStateException leaderFailure = new IllegalStateException("the leader's lock wait timed out");
    GroupCommit.Batches batchesOf = (batch, turns) -> {
      List<String> names = batch.stream().map(r -> r.thread.getName()).toList();
      batches.add(names);
      if (names.get(0).equals("first")) {
        firstInside.countDown();
        await(releaseFirst);
        batch.forEach(r -> turns.apply(r, Lockfile.EMPTY));
        batch.forEach(r -> r.succeed(result()));
        return;
      }
      if (names.get(0).equals("second")) {
        throw leaderFailure;  // before any change of the batch ran
      }
      batch.forEach(r -> turns.apply(r, Lockfile.EMPTY));
      batch.forEach(r -> r.succeed(result()));
    };
    CompletableFuture<TransactionResult> first = start(group, batchesOf, "first");
    assertThat(firstInside.await(30, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<TransactionResult> second = queued(start(group, batchesOf, "second"));
    CompletableFuture<TransactionResult> third = queued(start(group, batchesOf, "third"));
    CompletableFuture<TransactionResult> fourth = queued(start(group, batchesOf, "fourth"));

    releaseFirst.countDown();

    assertThat(first.get(30, TimeUnit.SECONDS).status()).isEqualTo(TransactionStatus.NO_CHANGE);
    assertThatThrownBy(() -> second.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
        .cause().isSameAs(leaderFailure);
    assertThat(third.get(30, TimeUnit.SECONDS).status()).isEqualTo(TransactionStatus.NO_CHANGE);
    assertThat(fourth.get(30, TimeUnit.SECONDS).status()).isEqualTo(TransactionStatus.NO_CHANGE);
    assertThat(batches).containsExactly(List.of("first"), List.of("second", "third", "fourth"),
        List.of("third", "fourth"));
  }

  @Test
  void aFollowerInterruptedInABatchThatFailsBeforeItsChangeRan_stopsWithItsInterrupt_andTheRestGoOn() throws Exception {
    WatchedClock clock = new WatchedClock(this.clock);
    GroupCommit group = new GroupCommit(clock, "test checkout", PulledExtensionsLock.builder(dir).build())
        .onQueued(queuedCallers::release);
    CountDownLatch firstInside = new CountDownLatch(1);
    CountDownLatch releaseFirst = new CountDownLatch(1);
    List<Boolean> interruptedAfter = Collections.synchronizedList(new ArrayList<>());
    GroupCommit.Batches batchesOf = (batch, turns) -> {
      String leader = batch.get(0).thread.getName();
      if (leader.equals("first")) {
        firstInside.countDown();
        await(releaseFirst);
        batch.forEach(r -> r.succeed(result()));
        return;
      }
      if (leader.equals("second")) {
        Thread third = batch.get(1).thread;
        third.interrupt();  // taken into this batch already: the interrupt must not strand it
        clock.watch(third);
        // the third read the clock after its interrupt: it took the interrupt in the batch, and it keeps
        // the queue's lock from that read until it waits again, so the batch fails only after that
        await(clock.read);
        throw new IllegalStateException("the leader's lock wait timed out");
      }
      batch.forEach(r -> turns.apply(r, Lockfile.EMPTY));
      batch.forEach(r -> r.succeed(result()));
    };
    CompletableFuture<TransactionResult> first = start(group, batchesOf, "first");
    assertThat(firstInside.await(30, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<TransactionResult> second = queued(start(group, batchesOf, "second"));
    CompletableFuture<TransactionResult> third = new CompletableFuture<>();
    Thread thirdThread = new Thread(() -> {
      try {
        third.complete(group.submit(new GroupCommit.Request(NOTHING, NOW.plusSeconds(120)), batchesOf));
      } catch (Throwable t) {
        interruptedAfter.add(Thread.currentThread().isInterrupted());
        third.completeExceptionally(t);
      }
    }, "third");
    threads.add(thirdThread);
    thirdThread.start();
    queued(third);

    releaseFirst.countDown();

    first.get(30, TimeUnit.SECONDS);
    assertThatThrownBy(() -> second.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
    assertThatThrownBy(() -> third.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(InterruptedOperationException.class).hasMessageContaining("interrupted");
    thirdThread.join(TimeUnit.SECONDS.toMillis(30));
    assertThat(interruptedAfter).containsExactly(true);
  }

  @Test
  void aBatchThatFailsAfterAFollowersChangeRan_failsThatFollowerToo() throws Exception {
    GroupCommit group = new GroupCommit(clock, "test checkout", PulledExtensionsLock.builder(dir).build())
        .onQueued(queuedCallers::release);
    CountDownLatch firstInside = new CountDownLatch(1);
    CountDownLatch releaseFirst = new CountDownLatch(1);
    IllegalStateException publishFailure = new IllegalStateException("the publish broke");
    GroupCommit.Batches batchesOf = (batch, turns) -> {
      if (batch.get(0).thread.getName().equals("first")) {
        firstInside.countDown();
        await(releaseFirst);
        batch.forEach(r -> r.succeed(result()));
        return;
      }
      batch.forEach(r -> turns.apply(r, Lockfile.EMPTY));
      throw publishFailure;
    };
    CompletableFuture<TransactionResult> first = start(group, batchesOf, "first");
    assertThat(firstInside.await(30, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<TransactionResult> second = queued(start(group, batchesOf, "second"));
    CompletableFuture<TransactionResult> third = queued(start(group, batchesOf, "third"));

    releaseFirst.countDown();

    first.get(30, TimeUnit.SECONDS);
    for (CompletableFuture<TransactionResult> f : List.of(second, third)) {
      assertThatThrownBy(() -> f.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
          .cause().isSameAs(publishFailure);
    }
  }

  @Test
  void callersQueuedWhileTheLeaderTakesItsLocks_joinItsBatch() throws Exception {
    GroupCommit group = new GroupCommit(clock, "test checkout", PulledExtensionsLock.builder(dir).build())
        .onQueued(queuedCallers::release);
    List<CompletableFuture<TransactionResult>> late = new ArrayList<>();
    GroupCommit.Batches batchesOf = (batch, turns) -> {
      // the leader holds its locks now; two callers arrive before it runs the changes
      late.add(queued(start(group, (b, t) -> { throw new AssertionError("never leads"); }, "late-1")));
      late.add(queued(start(group, (b, t) -> { throw new AssertionError("never leads"); }, "late-2")));
      List<GroupCommit.Request> all = new ArrayList<>(batch);
      all.addAll(turns.more());
      batches.add(all.stream().map(r -> r.thread.getName()).toList());
      all.forEach(r -> turns.apply(r, Lockfile.EMPTY));
      all.forEach(r -> r.succeed(result()));
    };

    TransactionResult leader = group.submit(new GroupCommit.Request(NOTHING, NOW.plusSeconds(120)), batchesOf);

    assertThat(leader.status()).isEqualTo(TransactionStatus.NO_CHANGE);
    for (CompletableFuture<TransactionResult> f : late) {
      assertThat(f.get(30, TimeUnit.SECONDS).status()).isEqualTo(TransactionStatus.NO_CHANGE);
    }
    assertThat(batches).containsExactly(List.of(Thread.currentThread().getName(), "late-1", "late-2"));
  }

  /**
   * The test's clock, telling when one watched thread reads it. A caller waiting in the queue reads
   * its clock under the queue's lock on every pass of its wait loop, after it took any interrupt
   * and before it waits again (an interrupt it has not taken yet is then taken at once, before the
   * lock is let go): a read after the interrupt proves the caller took it in the batch.
   */
  private static final class WatchedClock extends Clock {
    final CountDownLatch read = new CountDownLatch(1);
    private final Clock clock;
    private volatile @Nullable Thread watched;

    WatchedClock(Clock clock) {
      this.clock = clock;
    }

    /** Counts down {@link #read} at {@code thread}'s next read, from now on. */
    void watch(Thread thread) {
      watched = thread;
    }

    @Override
    public Instant instant() {
      if (Thread.currentThread() == watched) {
        read.countDown();
      }
      return clock.instant();
    }

    @Override
    public ZoneId getZone() {
      return clock.getZone();
    }

    @Override
    public Clock withZone(ZoneId zone) {
      throw new UnsupportedOperationException("Cannot change the zone of the test's clock");
    }
  }

  private static TransactionResult result() {
    return new TransactionResult(TransactionStatus.NO_CHANGE, LockfileDelta.EMPTY, 0, List.of(), Lockfile.EMPTY);
  }

  private static void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(30, TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  private final List<Thread> threads = new ArrayList<>();

  private CompletableFuture<TransactionResult> start(GroupCommit group, GroupCommit.Batches batchesOf, String name) {
    CompletableFuture<TransactionResult> result = new CompletableFuture<>();
    Thread thread = new Thread(() -> {
      try {
        result.complete(group.submit(new GroupCommit.Request(NOTHING, NOW.plusSeconds(120)), batchesOf));
      } catch (Throwable t) {
        result.completeExceptionally(t);
      }
    }, name);
    threads.add(thread);
    thread.start();
    return result;
  }

  /**
   * Waits until the last started caller waits in the queue: the queue tells when a caller joins it
   * ({@link GroupCommit#onQueued}), under its lock, before the caller waits.
   */
  private CompletableFuture<TransactionResult> queued(CompletableFuture<TransactionResult> result) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    try {
      while (!result.isDone() && !queuedCallers.tryAcquire(10, TimeUnit.MILLISECONDS)) {
        assertThat(System.nanoTime() - deadline).as("the caller joined the queue within 30 s").isNegative();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for a caller to queue", e);
    }
    return result;
  }
}
