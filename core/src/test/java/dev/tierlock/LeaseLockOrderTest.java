package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.spi.ObjectKey;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * A lease handed over in this JVM carries the lock-order ticket of the thread that acquired it, not
 * of the thread whose lease it continues: each thread's level is entered when it acquires and freed
 * when it releases, whichever remote holding its lease rides on.
 */
class LeaseLockOrderTest {

  private static final ObjectKey KEY = DistributedLock.globalKey(Namespace.of("team"));
  private static final Heartbeats NONE = (name, interval, beat) -> () -> { };

  @Test
  void handover_entersTheReceivingThreadsLevel_andFreesTheGivingThreads() throws Exception {
    MemoryDatastore store = new MemoryDatastore();
    ManualClock clock = ManualClock.create();
    LockIdentity app = LockIdentity.of("app@box", "box", 4242);
    CountDownLatch queued = new CountDownLatch(1);
    Environment environment = Environment.system().withClock(clock).withSleeper(clock.sleeper()).withLockIdentity(app)
        .withHeartbeats(NONE).withHostProcesses(new NoProcesses()).withQueueing(waitedFor -> queued.countDown());
    DistributedLock.Held first = new Lease(store, KEY, LockOptions.DEFAULTS, environment, Lease.HandoverBudget.DEFAULT)
        .acquire();
    assertThat(LockOrder.innermost()).isEqualTo(LockLevel.GLOBAL);
    AtomicReference<@Nullable LockLevel> whileHolding = new AtomicReference<>();
    AtomicReference<@Nullable LockLevel> afterRelease = new AtomicReference<>(LockLevel.PULLED_EXTENSIONS);
    AtomicReference<@Nullable String> nonce = new AtomicReference<>();
    CountDownLatch done = new CountDownLatch(1);
    DistributedLock second = new Lease(store, KEY, LockOptions.DEFAULTS, environment, Lease.HandoverBudget.DEFAULT);
    Thread receiver = new Thread(() -> {
      try (DistributedLock.Held lease = second.acquire()) {
        nonce.set(lease.info().nonce());
        whileHolding.set(LockOrder.innermost());
      }
      afterRelease.set(LockOrder.innermost());
      done.countDown();
    }, "receiver");
    receiver.setDaemon(true);
    receiver.start();
    assertThat(queued.await(30, TimeUnit.SECONDS)).as("the receiver queues behind the first lease").isTrue();

    first.release();

    assertThat(LockOrder.innermost()).as("the giving thread's level is freed").isNull();
    assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(nonce.get()).as("the receiver continued the first lease's holding").isEqualTo(first.info().nonce());
    assertThat(whileHolding.get()).isEqualTo(LockLevel.GLOBAL);
    assertThat(afterRelease.get()).isNull();
    assertThat(store.stat(KEY)).isEmpty();
  }

  /** A host on which no record's host name is: every holder is judged by its ttl. */
  private static final class NoProcesses implements HostProcesses {
    @Override
    public String hostname() {
      return "no-such-host";
    }

    @Override
    public boolean isRunning(long pid) {
      return false;
    }

    @Override
    public Optional<Instant> startOf(long pid) {
      return Optional.empty();
    }
  }
}
