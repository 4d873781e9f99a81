package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class DaemonHeartbeatsTest {

  private static final long BOUND_SECONDS = 20;

  @Test
  void schedule_beatThrowingAnError_keepsBeating() throws InterruptedException {
    AtomicInteger beats = new AtomicInteger();
    CountDownLatch third = new CountDownLatch(1);

    Heartbeats.Scheduled scheduled = Heartbeats.daemonThreads().schedule("test lock", Duration.ofMillis(1), () -> {
      int beat = beats.incrementAndGet();
      if (beat == 1) {
        throw new AssertionError("a store failing with an error");
      }
      if (beat == 2) {
        throw new IllegalStateException("a store failing with a runtime exception");
      }
      third.countDown();
    });
    try {
      assertThat(third.await(BOUND_SECONDS, TimeUnit.SECONDS)).as("a third beat ran after two failures").isTrue();
    } finally {
      scheduled.close();
    }
    assertThat(beats.get()).isGreaterThanOrEqualTo(3);
  }

  @Test
  void schedule_nonPositiveInterval_isRejected() {
    assertThatThrownBy(() -> Heartbeats.daemonThreads().schedule("test lock", Duration.ZERO, () -> { }))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot schedule heartbeat of test lock: interval must be positive, got PT0S");
  }
}
