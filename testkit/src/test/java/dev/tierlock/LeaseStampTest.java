package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.spi.ObjectKey;
import dev.tierlock.testkit.DatastoreOperation;
import dev.tierlock.testkit.FakeRemote;
import dev.tierlock.testkit.FaultyDatastore;
import dev.tierlock.testkit.ManualHeartbeats;
import dev.tierlock.testkit.TestClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lease record is stamped once the datastore is proven: a checkout's first acquisition runs
 * the precondition self-check first (here it takes 50 s on the test clock, as it did on a loaded
 * S3), and only then stamps its record and starts its heartbeats, so the first record it publishes
 * is fresh and the holding is trusted for a whole ttl from then on.
 */
class LeaseStampTest {

  private static final Namespace NAMESPACE = Namespace.of("ns1");
  private static final ObjectKey KEY = DistributedLock.globalKey(NAMESPACE);
  private static final Duration CHECK = Duration.ofSeconds(50);

  private final FakeRemote remote = FakeRemote.create();
  private final FaultyDatastore store = FaultyDatastore.wrap(remote);
  private final TestClock clock = TestClock.create();

  @TempDir
  Path checkout;

  @AfterEach
  void close() {
    remote.close();
  }

  @Test
  void acquire_firstOfACheckout_stampsItsRecordAndStartsItsHeartbeatsAfterTheSelfCheck() {
    SelfCheckedDatastore.forgetProcessVerdicts();
    Instant start = clock.instant();
    // the self-check's first probe write takes 50 s
    store.faults().beforeNext(DatastoreOperation.WRITE, k -> k.value().startsWith("ns1/" + SelfCheck.PREFIX),
        () -> clock.advance(CHECK));
    List<Instant> scheduled = new ArrayList<>();
    ManualHeartbeats beats = ManualHeartbeats.create();
    Heartbeats recording = (name, interval, beat) -> {
      scheduled.add(clock.instant());
      return beats.schedule(name, interval, beat);
    };
    Tierlock tierlock = Tierlock.builder().datastore(store).checkout(checkout).namespace(NAMESPACE)
        .environment(Environment.system().withClock(clock).withSleeper(clock.sleeper()).withHeartbeats(recording))
        .build();

    DistributedLock.Held lease = tierlock.globalLock().acquire();

    Instant checked = start.plus(CHECK);
    assertThat(store.faults().pendingHooks()).as("the self-check ran, on this acquisition").isZero();
    assertThat(clock.instant()).isEqualTo(checked);
    assertThat(lease.info().acquiredAt()).as("stamped once the check was over").isEqualTo(checked);
    assertThat(tierlock.globalLock().inspect()).contains(lease.info());
    assertThat(scheduled).as("heartbeats start after the check").containsExactly(checked);
    clock.advance(LockOptions.DEFAULTS.ttl().minusMillis(1));
    assertThat(lease.isHeld()).as("trusted for a whole ttl from the stamp, no heartbeat run yet").isTrue();
    lease.release();
    assertThat(remote.peek(KEY)).isEmpty();
  }
}
