package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.DatastoreUnsafeException;
import dev.tierlock.spi.ObjectKey;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A self-check sweeps the probes of checks that never finished by the age their names carry, and
 * cannot tell them from the probes of a check still in progress: one that stalls (a laptop lid
 * closed, a SIGSTOP, a GC pause) or whose clock runs behind the sweeper's. Such a sweep deletes the
 * probe under the live check, whose next create-only write of it then lands. That never makes a
 * store that honours every precondition {@code datastore_unsafe} (exit 69, "Tierlock refuses to
 * write to it"); a store that ignores them is still refused.
 */
@ExtendWith(FakeRemoteExtension.class)
class SelfCheckStalledProbeTest {

  private static final String PROBE = ".tierlock-selfcheck/probe-";

  private static final String TOMBSTONE = ".tierlock-selfcheck/swept-";

  /** Longer than any sweep age: the peer sweeps whatever probe of a's it lists. */
  private static final Duration DAYS = Duration.ofDays(2);

  @TempDir Path temp;

  @Test
  void aPeerCheckSweepingTheProbeOfACheckInProgress_doesNotMakeASafeStoreUnsafe(FakeRemote remote, TestClock clock) {
    try (TestCheckout a = TestCheckout.builder(remote, temp.resolve("a"), clock).deferSelfCheck().build();
        TestCheckout b = TestCheckout.builder(remote, temp.resolve("b"), clock).deferSelfCheck().build()) {
      remote.faults().afterNext(DatastoreOperation.WRITE, k -> k.value().startsWith(PROBE), () -> {
        clock.advance(Duration.ofHours(2)); // a stalls here (or b's clock is two hours ahead)
        b.tierlock().checkDatastore();
      });

      Throwable thrown = catchThrowable(() -> a.tierlock().checkDatastore());

      assertThat(remote.faults().pendingHooks()).as("b's check ran while a's was in progress").isZero();
      assertThat(thrown).as("the store honours every precondition").isNull();
    }
  }

  /** a stalls for two days after its n-th probe write, during which b checks the store and sweeps a's probe. */
  @ParameterizedTest(name = "after probe write {0}")
  @ValueSource(ints = {1, 2, 3, 4, 5}) // the sequence of proofs: the races after it run eight threads
  void aCheckStalledPastTheSweepAge_whoseProbeAPeerSweeps_stillPassesASafeStore(int write, FakeRemote remote,
      TestClock clock) {
    try (TestCheckout a = TestCheckout.builder(remote, temp.resolve("a"), clock).deferSelfCheck().build();
        TestCheckout b = TestCheckout.builder(remote, temp.resolve("b"), clock).deferSelfCheck().build()) {
      remote.faults().afterNext(DatastoreOperation.WRITE, nthProbeWrite(write), () -> {
        clock.advance(DAYS);
        b.tierlock().checkDatastore();
      });

      Throwable thrown = catchThrowable(() -> a.tierlock().checkDatastore());

      assertThat(thrown).as("the store honours every precondition").isNull();
      assertThat(remote.log().writtenKeys()).as("b swept a probe of a's in progress")
          .anyMatch(k -> k.value().startsWith(TOMBSTONE));
      assertThat(remote.keys()).as("no probe is left").noneMatch(k -> k.value().startsWith(PROBE));
      assertThat(a.put("@s/x", "1").status()).isEqualTo(TransactionStatus.PUBLISHED);
    }
  }

  /**
   * b's clock runs two days ahead of a's: b's check, run while a's is in progress, sweeps a's fresh
   * probe. After each write of a's probe in the sequence of proofs (the races that follow run eight
   * threads, so which write is the n-th there, and whether a probe is in the store then, is theirs).
   */
  @ParameterizedTest(name = "after probe write {0}")
  @ValueSource(ints = {1, 2, 3, 4, 5})
  void aPeerWhoseClockRunsDaysAhead_sweepingTheProbeOfACheckInProgress_doesNotMakeASafeStoreUnsafe(int write,
      FakeRemote remote, TestClock clock) {
    TestClock ahead = TestClock.at(clock.instant().plus(DAYS));
    try (TestCheckout a = TestCheckout.builder(remote, temp.resolve("a"), clock).deferSelfCheck().build();
        TestCheckout b = TestCheckout.builder(remote, temp.resolve("b"), ahead).deferSelfCheck().build()) {
      remote.faults().afterNext(DatastoreOperation.WRITE, nthProbeWrite(write), () -> b.tierlock().checkDatastore());

      Throwable thrown = catchThrowable(() -> a.tierlock().checkDatastore());

      assertThat(thrown).as("the store honours every precondition").isNull();
      assertThat(remote.log().writtenKeys()).as("b swept a probe of a's in progress")
          .anyMatch(k -> k.value().startsWith(TOMBSTONE));
      assertThat(remote.keys()).as("no probe is left").noneMatch(k -> k.value().startsWith(PROBE));
    }
  }

  /**
   * On a remote that ignores preconditions, b sweeps a's probe between a's two create-only writes
   * of it, exactly where a sweep explains the second one landing: a is refused all the same.
   */
  @ParameterizedTest(name = "a stalled {0}")
  @ValueSource(booleans = {true, false})
  void aRemoteThatIgnoresPreconditions_isRefused_evenWhenAPeerSweptTheProbeBetweenTheCreateOnlyWrites(boolean stalled,
      FakeRemote remote, TestClock clock) {
    remote.ignorePreconditions();
    TestClock peerClock = stalled ? clock : TestClock.at(clock.instant().plus(DAYS));
    try (TestCheckout a = TestCheckout.builder(remote, temp.resolve("a"), clock).deferSelfCheck().build();
        TestCheckout b = TestCheckout.builder(remote, temp.resolve("b"), peerClock).deferSelfCheck().build()) {
      remote.faults().afterNext(DatastoreOperation.WRITE, nthProbeWrite(1), () -> {
        if (stalled) {
          clock.advance(DAYS);
        }
        assertThat(catchThrowable(() -> b.tierlock().checkDatastore())).isInstanceOf(DatastoreUnsafeException.class);
      });

      Throwable thrown = catchThrowable(() -> a.tierlock().checkDatastore());

      assertThat(remote.log().writtenKeys()).as("b swept a's first probe").anyMatch(k -> k.value().startsWith(TOMBSTONE));
      assertThat(thrown).isInstanceOf(DatastoreUnsafeException.class)
          .hasMessageStartingWith("Cannot write to datastore " + remote.identity() + ": it does not honour write"
              + " preconditions (a create-only write over an existing object succeeded, probe key " + PROBE);
      assertThat(remote.keys()).as("probes and tombstones are cleaned up").isEmpty();
    }
  }

  /** Matches the {@code n}-th write of a probe key (counting from 1), and no other. */
  private static Predicate<ObjectKey> nthProbeWrite(int n) {
    AtomicInteger seen = new AtomicInteger();
    return k -> k.value().startsWith(PROBE) && seen.incrementAndGet() == n;
  }
}
