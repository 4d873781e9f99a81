package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.internal.Backoff;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BackoffTest {

  private static final Duration FOREVER = Duration.ofHours(1);

  @Test
  void next_withMiddleJitter_doublesUpToTheMaximum() {
    Backoff backoff = new Backoff(LockOptions.DEFAULTS.retryInterval(), LockOptions.DEFAULTS.maxRetryInterval(), () -> 0.5);

    List<Long> millis = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      millis.add(backoff.next(FOREVER).toMillis());
    }

    assertThat(millis).containsExactly(1000L, 2000L, 4000L, 8000L, 8000L, 8000L);
  }

  @Test
  void next_lowestJitter_isThreeQuartersOfTheBase() {
    Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofMillis(800), () -> 0.0);

    assertThat(backoff.next(FOREVER)).isEqualTo(Duration.ofMillis(75));
    assertThat(backoff.next(FOREVER)).isEqualTo(Duration.ofMillis(150));
  }

  @Test
  void next_highestJitter_staysBelowFiveQuartersAndTheMaximum() {
    Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofMillis(300), () -> Math.nextDown(1.0));

    assertThat(backoff.next(FOREVER)).isLessThan(Duration.ofMillis(125)).isGreaterThan(Duration.ofMillis(124));
    assertThat(backoff.next(FOREVER)).isLessThan(Duration.ofMillis(250)).isGreaterThan(Duration.ofMillis(249));
    assertThat(backoff.next(FOREVER)).isEqualTo(Duration.ofMillis(300));
  }

  @Test
  void next_isClampedToTheRemainingBudget() {
    Backoff backoff = new Backoff(LockOptions.DEFAULTS.retryInterval(), LockOptions.DEFAULTS.maxRetryInterval(), () -> 0.5);

    assertThat(backoff.next(Duration.ofMillis(300))).isEqualTo(Duration.ofMillis(300));
    assertThat(backoff.next(Duration.ofMillis(-5))).isEqualTo(Duration.ZERO);
  }

  @Test
  void next_anyJitter_staysWithinBounds() {
    SplittableRandom random = new SplittableRandom(7);
    Backoff backoff = new Backoff(LockOptions.DEFAULTS.retryInterval(), LockOptions.DEFAULTS.maxRetryInterval(), random::nextDouble);
    Duration base = Duration.ofSeconds(1);
    for (int i = 0; i < 200; i++) {
      Duration wait = backoff.next(FOREVER);
      assertThat(wait).isGreaterThanOrEqualTo(base.multipliedBy(3).dividedBy(4))
          .isLessThanOrEqualTo(Duration.ofSeconds(8))
          .isLessThan(base.multipliedBy(5).dividedBy(4));
      base = base.multipliedBy(2).compareTo(Duration.ofSeconds(8)) > 0 ? Duration.ofSeconds(8) : base.multipliedBy(2);
    }
  }

  @Test
  void fullJitter_drawsEachWaitFromZeroToItsCap_theCapDoublingUpToTheMaximum() {
    double[] draws = {0.5, 0.0, 1.0, 0.25, 0.5};
    int[] next = {0};
    Backoff backoff = Backoff.fullJitter(Duration.ofMillis(20), Duration.ofMillis(100), () -> draws[next[0]++]);

    List<Duration> waits = new ArrayList<>();
    for (int i = 0; i < draws.length; i++) {
      waits.add(backoff.next(FOREVER));
    }

    assertThat(waits).containsExactly(Duration.ofMillis(10), Duration.ZERO, Duration.ofMillis(80), Duration.ofMillis(25),
        Duration.ofMillis(50));
  }

  @Test
  void fullJitter_isClampedToTheRemainingBudget_andToZeroOrOneDraws() {
    Backoff backoff = Backoff.fullJitter(Duration.ofMillis(100), Duration.ofMillis(100), () -> 7.0);

    assertThat(backoff.next(FOREVER)).as("a draw above one counts as one").isEqualTo(Duration.ofMillis(100));
    assertThat(backoff.next(Duration.ofMillis(30))).isEqualTo(Duration.ofMillis(30));
    assertThat(backoff.next(Duration.ofMillis(-1))).isEqualTo(Duration.ZERO);
  }

  @Test
  void fullJitter_firstCapAboveTheMaximum_isRejected() {
    assertThatThrownBy(() -> Backoff.fullJitter(Duration.ofSeconds(2), Duration.ofSeconds(1), () -> 0.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot back off from PT2S to PT1S: the first wait must be positive and at most the longest");
  }
}
