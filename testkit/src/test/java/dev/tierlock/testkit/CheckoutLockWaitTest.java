package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.LockOptions;
import dev.tierlock.LockTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A transaction behind a stopped process that holds the checkout's transaction lock gives up at
 * its deadline, measured on its own (test) clock: the wait is bounded by the transaction's one
 * budget, not by the holder. The holder is a real second JVM, stopped with SIGSTOP; the waiter's
 * pauses advance the test clock, so nothing sleeps for real.
 */
class CheckoutLockWaitTest {

  private static final Duration BUDGET = Duration.ofSeconds(5);

  @TempDir Path temp;

  @Test
  void aTransactionBehindAStoppedHolderOfTheCheckoutLock_givesUpAtItsDeadline_namingItsHolder() throws Exception {
    TestClock clock = TestClock.create();
    FakeRemote remote = FakeRemote.create();
    try (TestCheckout checkout = TestCheckout.builder(remote, temp.resolve("c"), clock).transactionDeadline(BUDGET)
        .lockOptions(LockOptions.DEFAULTS.withMaxWait(BUDGET)).build();
        ChildLockHolder holder = ChildLockHolder.start(
            checkout.tierlock().stateDirectory().resolve("transaction.lock"), "a stopped run")) {
      holder.stop();
      Instant start = clock.instant();
      try {
        assertThatThrownBy(() -> checkout.put("@acme/tool", "1.0.0"))
            .isInstanceOf(LockTimeoutException.class)
            .hasMessageContaining("transaction.lock")
            .hasMessageContaining("pid " + holder.pid());
      } finally {
        holder.resume();
      }
      Duration waited = Duration.between(start, clock.instant());
      assertThat(waited).as("until the deadline, and not one poll past it")
          .isBetween(BUDGET, BUDGET.plusMillis(100));
      assertThat(TestCheckout.sharedLockfile(remote, dev.tierlock.Namespace.of("")).entries()).isEmpty();
    } finally {
      remote.close();
    }
  }
}
