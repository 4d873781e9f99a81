package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The wait after a race lost without a lease: full jitter up to the round trip, doubling, capped. */
class RaceWaitTest {

  private static final Duration MAX = Duration.ofSeconds(8);

  @Test
  void raceWait_isAFullJitterDrawUpToTheRoundTrip_doublingWithEachRaceLost() {
    Duration rtt = Duration.ofMillis(10);

    assertThat(CommitLoop.raceWait(rtt, 1, MAX, 0.0)).isEqualTo(Duration.ZERO);
    assertThat(CommitLoop.raceWait(rtt, 1, MAX, 0.5)).isEqualTo(Duration.ofMillis(5));
    assertThat(CommitLoop.raceWait(rtt, 2, MAX, 0.5)).isEqualTo(Duration.ofMillis(10));
    assertThat(CommitLoop.raceWait(rtt, 4, MAX, 0.5)).isEqualTo(Duration.ofMillis(40));
  }

  @Test
  void raceWait_neverExceedsTheLongestWait_andAZeroRoundTripStillSpreadsWriters() {
    assertThat(CommitLoop.raceWait(Duration.ofMillis(10), 40, MAX, 0.999)).isLessThan(MAX);
    assertThat(CommitLoop.raceWait(Duration.ofMillis(10), 40, MAX, 0.5)).isEqualTo(Duration.ofSeconds(4));
    assertThat(CommitLoop.raceWait(Duration.ZERO, 1, MAX, 0.5)).isEqualTo(Duration.ofNanos(500_000));
  }
}
