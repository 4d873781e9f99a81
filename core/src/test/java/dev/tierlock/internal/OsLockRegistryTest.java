package dev.tierlock.internal;

import static dev.tierlock.internal.OsLockRegistryProcessTest.acquired;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The registry among the threads of this JVM; other processes and class loaders are in {@link OsLockRegistryProcessTest}. */
class OsLockRegistryTest {

  private static final long BOUND_SECONDS = 20;
  private static final Duration POLL = Duration.ofMillis(5);

  @TempDir Path dir;

  private final OsLockRegistry registry = OsLockRegistry.shared();
  private final ManualTime clock = new ManualTime();
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void tearDown() throws InterruptedException {
    threads.shutdownNow();
    assertThat(threads.awaitTermination(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
  }

  private <T> T await(Future<T> future) throws Exception {
    return future.get(BOUND_SECONDS, TimeUnit.SECONDS);
  }

  /** Whether another thread could take the lock right now. */
  private boolean freeForOthers(OsLockRegistry on, Path lockFile) throws Exception {
    return await(threads.submit(() -> {
      OsLockRegistry.Attempt attempt = on.tryAcquire(lockFile, "a prober", clock);
      if (attempt instanceof OsLockRegistry.Attempt.Acquired acquired) {
        acquired.lock().release();
        return true;
      }
      return false;
    }));
  }

  @Test
  void acquire_writesItsHolderIntoTheLockFile_andReleaseEmptiesIt() throws Exception {
    Path lockFile = dir.resolve("missing/dirs/a.lock");

    OsLockRegistry.Held held = acquired(registry.acquire(lockFile, "the work", clock.waitFor(Duration.ofSeconds(1), POLL)));

    assertThat(held.lockFile()).isEqualTo(dir.toRealPath().resolve("missing/dirs/a.lock"));
    assertThat(held.excludesProcesses()).isTrue();
    assertThat(held.holder().pid()).isEqualTo(ProcessHandle.current().pid());
    assertThat(held.holder().acquiredAt()).isEqualTo(ManualTime.START);
    assertThat(held.holder().guards()).isEqualTo("the work");
    assertThat(held.holder().name()).endsWith(", thread " + Thread.currentThread().getName());
    assertThat(held.holder().processStart()).isEqualTo(ProcessHandle.current().info().startInstant());
    assertThat(Files.size(held.lockFile())).isEqualTo(held.holder().encode().getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
    assertThat(await(threads.submit(() -> registry.holder(lockFile)))).contains(held.holder().describe());
    assertThat(freeForOthers(registry, lockFile)).isFalse();
    assertThat(registry.inUse(lockFile)).isTrue();

    held.release();
    held.release();

    assertThat(held.isReleased()).isTrue();
    assertThat(Files.size(held.lockFile())).isZero();
    assertThat(registry.inUse(lockFile)).isFalse();
    assertThat(registry.holder(lockFile)).isEmpty();
    assertThat(freeForOthers(registry, lockFile)).isTrue();
    assertThat(clock.sleeps()).isEmpty();
  }

  @Test
  void acquire_waiters_getTheLockInArrivalOrder() throws Exception {
    Path lockFile = dir.resolve("fifo.lock");
    OsLockRegistry.Held held = acquired(registry.tryAcquire(lockFile, "first", clock));
    List<Integer> order = new CopyOnWriteArrayList<>();
    List<Future<?>> waiters = new ArrayList<>();
    for (int i = 1; i <= 4; i++) {
      int id = i;
      CountDownLatch queued = new CountDownLatch(1);
      waiters.add(threads.submit(() -> {
        OsLockRegistry.Held mine = acquired(registry.acquire(lockFile, "waiter " + id,
            clock.waitFor(Duration.ofMinutes(1), POLL).withOnQueued(queued::countDown)));
        order.add(id);
        mine.release();
        return null;
      }));
      assertThat(queued.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(registry.queued(lockFile)).isEqualTo(4);
    assertThat(freeForOthers(registry, lockFile)).as("tryAcquire does not jump the queue").isFalse();

    held.release();
    for (Future<?> waiter : waiters) {
      await(waiter);
    }

    assertThat(order).containsExactly(1, 2, 3, 4);
    assertThat(registry.inUse(lockFile)).isFalse();
  }

  @Test
  void acquire_waiterThatTimesOut_leavesTheQueue_andThoseBehindKeepTheirPlaces() throws Exception {
    Path lockFile = dir.resolve("timeout.lock");
    OsLockRegistry.Held held = acquired(registry.tryAcquire(lockFile, "the holder's work", clock));
    CountDownLatch shortQueued = new CountDownLatch(1);
    CountDownLatch longQueued = new CountDownLatch(1);
    Future<OsLockRegistry.Attempt> impatient = threads.submit(() -> registry.acquire(lockFile, "impatient",
        clock.waitFor(Duration.ofSeconds(10), POLL).withOnQueued(shortQueued::countDown)));
    assertThat(shortQueued.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
    Future<OsLockRegistry.Attempt> patient = threads.submit(() -> registry.acquire(lockFile, "patient",
        clock.waitFor(Duration.ofMinutes(5), POLL).withOnQueued(longQueued::countDown)));
    assertThat(longQueued.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();

    clock.advance(Duration.ofSeconds(11));
    OsLockRegistry.Attempt gaveUp = await(impatient);

    assertThat(gaveUp).isInstanceOf(OsLockRegistry.Attempt.Busy.class);
    assertThat(((OsLockRegistry.Attempt.Busy) gaveUp).waited()).isEqualTo(Duration.ofSeconds(11));
    assertThat(((OsLockRegistry.Attempt.Busy) gaveUp).holder()).contains(held.holder().describe());
    assertThat(registry.queued(lockFile)).isEqualTo(1);
    assertThat(patient).isNotDone();
    held.release();
    OsLockRegistry.Held next = acquired(await(patient));
    assertThat(next.holder().guards()).isEqualTo("patient");
    next.release();
    assertThat(registry.inUse(lockFile)).isFalse();
  }

  @Test
  void acquire_zeroBudgetBehindAHolder_triesOnceAndIsBusy() throws Exception {
    Path lockFile = dir.resolve("zero.lock");
    OsLockRegistry.Held held = acquired(registry.tryAcquire(lockFile, "the holder", clock));

    OsLockRegistry.Attempt attempt = await(threads.submit(() -> registry.acquire(lockFile, "impatient", clock.waitFor(Duration.ZERO, POLL))));

    assertThat(attempt).isInstanceOf(OsLockRegistry.Attempt.Busy.class);
    assertThat(((OsLockRegistry.Attempt.Busy) attempt).waited()).isZero();
    held.release();
    assertThat(clock.sleeps()).isEmpty();
  }

  @Test
  void acquire_byTheThreadThatHoldsIt_isReentered_andChangesNothing() throws Exception {
    Path lockFile = dir.resolve("reentry.lock");
    OsLockRegistry.Held held = acquired(registry.tryAcquire(lockFile, "outer", clock));

    assertThat(registry.acquire(lockFile, "inner", clock.waitFor(Duration.ofMinutes(1), POLL)))
        .isInstanceOf(OsLockRegistry.Attempt.Reentered.class);
    assertThat(registry.tryAcquire(lockFile, "inner", clock)).isInstanceOf(OsLockRegistry.Attempt.Reentered.class);

    assertThat(registry.holder(lockFile)).contains(held.holder().describe());
    assertThat(freeForOthers(registry, lockFile)).isFalse();
    held.release();
    assertThat(freeForOthers(registry, lockFile)).isTrue();
    assertThat(clock.sleeps()).isEmpty();
  }

  @Test
  void acquire_interruptedWhileQueued_leavesTheQueue() throws Exception {
    Path lockFile = dir.resolve("interrupt.lock");
    OsLockRegistry.Held held = acquired(registry.tryAcquire(lockFile, "the holder", clock));
    CountDownLatch queued = new CountDownLatch(1);
    Thread[] waiting = new Thread[1];
    Future<Throwable> waiter = threads.submit(() -> {
      waiting[0] = Thread.currentThread();
      try {
        registry.acquire(lockFile, "waiter", clock.waitFor(Duration.ofMinutes(1), POLL).withOnQueued(queued::countDown));
        return new AssertionError("acquired despite the interrupt");
      } catch (InterruptedException e) {
        return e;
      }
    });
    assertThat(queued.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();

    waiting[0].interrupt();

    assertThat(await(waiter)).isInstanceOf(InterruptedException.class);
    assertThat(registry.queued(lockFile)).isZero();
    held.release();
    assertThat(registry.inUse(lockFile)).isFalse();
    assertThat(freeForOthers(registry, lockFile)).isTrue();
  }

  @Test
  void acquire_interruptedWhilePollingTheOsLock_holdsNothing() throws Exception {
    Path lockFile = dir.resolve("polling.lock");
    OsLockRegistry other = OsLockRegistry.using(OsLockRegistry.Opener.STANDARD);
    OsLockRegistry.Held foreign = acquired(other.tryAcquire(lockFile, "another class loader", clock));

    Thread.currentThread().interrupt();
    assertThatThrownBy(() -> registry.acquire(lockFile, "waiter", clock.waitFor(Duration.ofMinutes(1), POLL)))
        .isExactlyInstanceOf(InterruptedException.class)
        .hasMessage("interrupted before a manual sleep of PT0.005S");

    assertThat(registry.inUse(lockFile)).isFalse();
    foreign.release();
    assertThat(freeForOthers(registry, lockFile)).isTrue();
  }

  @Test
  void acquire_channelThatCannotBeOpened_throwsAndHoldsNothing() throws Exception {
    Path lockFile = dir.resolve("broken.lock");
    OsLockRegistry broken = OsLockRegistry.using(file -> {
      throw new IOException("disk on fire");
    });

    assertThatThrownBy(() -> broken.acquire(lockFile, "work", clock.waitFor(Duration.ofSeconds(1), POLL)))
        .isExactlyInstanceOf(IOException.class)
        .hasMessage("disk on fire");
    assertThatThrownBy(() -> broken.tryAcquire(lockFile, "work", clock))
        .isExactlyInstanceOf(IOException.class)
        .hasMessage("disk on fire");

    assertThat(broken.inUse(lockFile)).isFalse();
    assertThat(broken.queued(lockFile)).isZero();
    assertThat(freeForOthers(registry, lockFile)).isTrue();
  }

  @Test
  void acquire_holderThatCannotBeWritten_releasesTheOsLockAndHoldsNothing() throws Exception {
    Path lockFile = dir.resolve("unwritable.lock");
    Set<FaultyChannel.Fault> faults = FaultyChannel.faults();
    faults.add(FaultyChannel.Fault.WRITE);
    OsLockRegistry faulty = OsLockRegistry.using(FaultyChannel.opener(faults));

    assertThatThrownBy(() -> faulty.acquire(lockFile, "work", clock.waitFor(Duration.ofSeconds(1), POLL)))
        .isExactlyInstanceOf(IOException.class)
        .hasMessage("write refused");

    assertThat(faulty.inUse(lockFile)).isFalse();
    assertThat(freeForOthers(registry, lockFile)).as("the OS lock is free for everyone else").isTrue();
    faults.clear();
    acquired(faulty.tryAcquire(lockFile, "work", clock)).release();
  }

  @Test
  void release_thatCannotEmptyTheLockFile_stillFreesTheLockAndTheTurn() throws Exception {
    Path lockFile = dir.resolve("sticky.lock");
    Set<FaultyChannel.Fault> faults = FaultyChannel.faults();
    OsLockRegistry faulty = OsLockRegistry.using(FaultyChannel.opener(faults));
    OsLockRegistry.Held held = acquired(faulty.tryAcquire(lockFile, "work", clock));
    faults.add(FaultyChannel.Fault.TRUNCATE);

    assertThatThrownBy(held::release).isExactlyInstanceOf(IOException.class).hasMessage("truncate refused");

    assertThat(held.isReleased()).isTrue();
    assertThat(faulty.inUse(lockFile)).isFalse();
    assertThat(freeForOthers(registry, lockFile)).isTrue();
    faults.clear();
    assertThat(freeForOthers(faulty, lockFile)).isTrue();
  }

  @Test
  void release_thatCannotEmptyTheLockFile_whileOthersWait_handsTheLockOn() throws Exception {
    Path lockFile = dir.resolve("sticky-queue.lock");
    Set<FaultyChannel.Fault> faults = FaultyChannel.faults();
    OsLockRegistry faulty = OsLockRegistry.using(FaultyChannel.opener(faults));
    OsLockRegistry.Held held = acquired(faulty.tryAcquire(lockFile, "work", clock));
    CountDownLatch queued = new CountDownLatch(1);
    Future<OsLockRegistry.Attempt> next = threads.submit(() -> faulty.acquire(lockFile, "next",
        clock.waitFor(Duration.ofMinutes(1), POLL).withOnQueued(queued::countDown)));
    assertThat(queued.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
    faults.add(FaultyChannel.Fault.TRUNCATE);

    assertThatThrownBy(held::release).isExactlyInstanceOf(IOException.class).hasMessage("truncate refused");
    faults.clear();

    OsLockRegistry.Held nextHeld = acquired(await(next));
    assertThat(freeForOthers(registry, lockFile)).as("the next holder holds the OS lock").isFalse();
    nextHeld.release();
    assertThat(freeForOthers(registry, lockFile)).isTrue();
  }

  @Test
  void tryAcquire_heldByAnotherThread_isBusyNamingTheHolder() throws Exception {
    Path lockFile = dir.resolve("busy.lock");
    OsLockRegistry.Held held = acquired(registry.tryAcquire(lockFile, "the holder's work", clock));

    OsLockRegistry.Attempt attempt = await(threads.submit(() -> registry.tryAcquire(lockFile, "prober", clock)));

    assertThat(attempt).isInstanceOf(OsLockRegistry.Attempt.Busy.class);
    assertThat(((OsLockRegistry.Attempt.Busy) attempt).holder()).contains(held.holder().describe());
    assertThat(attempt.toString()).contains("pid " + ProcessHandle.current().pid(), "guards the holder's work");
    held.release();
  }

  @Test
  void acquire_twoSpellingsOfOneFile_shareOneQueue() throws Exception {
    Path real = Files.createDirectories(dir.resolve("real"));
    Path link = Files.createSymbolicLink(dir.resolve("link"), real);
    OsLockRegistry.Held held = acquired(registry.tryAcquire(real.resolve("x.lock"), "work", clock));

    assertThat(freeForOthers(registry, link.resolve("x.lock"))).isFalse();
    assertThat(freeForOthers(registry, dir.resolve("real/../real/./x.lock"))).isFalse();
    assertThat(registry.inUse(link.resolve("x.lock"))).isTrue();

    held.release();
    assertThat(freeForOthers(registry, link.resolve("x.lock"))).isTrue();
  }

  @Test
  void holder_ofAMissingOrFreeLockFile_isEmpty_andCreatesNothing() throws Exception {
    assertThat(registry.holder(dir.resolve("none/x.lock"))).isEmpty();
    assertThat(registry.holder(dir.resolve("x.lock"))).isEmpty();
    assertThat(dir.resolve("none")).doesNotExist();
    assertThat(dir.resolve("x.lock")).doesNotExist();
    Files.writeString(dir.resolve("other.lock"), "written by another tool\n");
    assertThat(registry.holder(dir.resolve("other.lock"))).isEmpty();
    assertThat(registry.inUse(dir.resolve("other.lock"))).isFalse();
  }

  @Test
  void acquire_onAProviderThatCannotLock_takesOnlyTheInJvmTurn() throws Exception {
    // the JDK's runtime image file system is read-only: it cannot open a channel to lock
    Path lockFile = FileSystems.getFileSystem(URI.create("jrt:/")).getPath("/modules/java.base/tierlock.lock");

    OsLockRegistry.Held held = acquired(registry.acquire(lockFile, "work", clock.waitFor(Duration.ofSeconds(1), POLL)));

    assertThat(held.excludesProcesses()).isFalse();
    assertThat(freeForOthers(registry, lockFile)).isFalse();
    assertThat(await(threads.submit(() -> registry.holder(lockFile)))).contains(held.holder().describe());
    held.release();
    assertThat(freeForOthers(registry, lockFile)).isTrue();
    assertThat(registry.inUse(lockFile)).isFalse();
  }

  @Test
  void standardChannel_writesOnTheCallingThread_andAnInterruptClosesNothing() throws Exception {
    Path lockFile = dir.resolve("holder.lock");
    List<Thread> ranOn = new CopyOnWriteArrayList<>();
    try (java.nio.channels.AsynchronousFileChannel channel = OsLockRegistry.Opener.STANDARD.open(lockFile)) {
      channel.write(java.nio.ByteBuffer.wrap("holder\n".getBytes(java.nio.charset.StandardCharsets.UTF_8)), 0, null,
          new java.nio.channels.CompletionHandler<Integer, Void>() {
            @Override
            public void completed(Integer written, Void attachment) {
              ranOn.add(Thread.currentThread());
            }

            @Override
            public void failed(Throwable failure, Void attachment) {
              ranOn.add(Thread.currentThread());
            }
          });
      // done before write returned, on this thread: no pool thread took the write
      assertThat(ranOn).containsExactly(Thread.currentThread());

      Thread.currentThread().interrupt();
      Future<Integer> again = channel.write(java.nio.ByteBuffer.wrap("h".getBytes(java.nio.charset.StandardCharsets.UTF_8)), 0);
      assertThat(again.isDone()).isTrue();
      assertThat(again.get()).isEqualTo(1);
      assertThat(Thread.interrupted()).isTrue();
      assertThat(channel.isOpen()).isTrue();
    }
    assertThat(Files.readString(lockFile)).isEqualTo("holder\n");
  }

  @Test
  void lockWait_badPauses_areRejected() {
    assertThatThrownBy(() -> OsLockRegistry.Wait.until(clock.instant(), clock, clock.sleeper()::sleep, Duration.ZERO))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot wait for a lock with pauses from PT0S to PT0S: the first must be positive and at most the longest");
    assertThatThrownBy(() -> clock.waitFor(Duration.ofSeconds(1), POLL).withPauses(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot wait for a lock with pauses from PT2S to PT1S");
  }
}
