package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.Sleeper;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class TestClockTest {

  @Test
  void create_standsAtTheDefaultStartInUtc() {
    TestClock clock = TestClock.create();

    assertThat(clock.instant()).isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
    assertThat(clock.millis()).isEqualTo(Instant.parse("2026-01-01T00:00:00Z").toEpochMilli());
    assertThat(clock.getZone()).isEqualTo(ZoneOffset.UTC);
  }

  @Test
  void advance_movesForwardOnly() {
    TestClock clock = TestClock.at(Instant.parse("2030-05-06T07:08:09Z"));

    clock.advance(Duration.ofMillis(1500));
    clock.advance(Duration.ZERO);

    assertThat(clock.instant()).isEqualTo(Instant.parse("2030-05-06T07:08:10.500Z"));
    assertThatThrownBy(() -> clock.advance(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot advance the test clock by PT-1S: time only moves forward");
    assertThat(clock.instant()).isEqualTo(Instant.parse("2030-05-06T07:08:10.500Z"));
  }

  @Test
  void set_mayJumpBack() {
    TestClock clock = TestClock.create();

    clock.set(Instant.parse("2025-12-31T23:59:00Z"));

    assertThat(clock.instant()).isEqualTo(Instant.parse("2025-12-31T23:59:00Z"));
  }

  @Test
  void sleeper_advancesTheClockAndRecordsEachSleep() throws InterruptedException {
    TestClock clock = TestClock.create();
    Sleeper sleeper = clock.sleeper();

    sleeper.sleep(Duration.ofSeconds(1));
    sleeper.sleep(Duration.ofSeconds(2));
    sleeper.sleep(Duration.ZERO);
    sleeper.sleep(Duration.ofSeconds(-4));

    assertThat(clock.sleeps()).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2));
    assertThat(clock.slept()).isEqualTo(Duration.ofSeconds(3));
    assertThat(clock.instant()).isEqualTo(TestClock.DEFAULT_START.plusSeconds(3));
  }

  @Test
  void sleeper_interruptedThread_throwsAndLeavesTheClock() {
    TestClock clock = TestClock.create();
    Thread.currentThread().interrupt();

    assertThatThrownBy(() -> clock.sleeper().sleep(Duration.ofSeconds(5)))
        .isInstanceOf(InterruptedException.class)
        .hasMessage("Interrupted before a test-clock sleep of PT5S");

    assertThat(Thread.currentThread().isInterrupted()).isFalse();
    assertThat(clock.instant()).isEqualTo(TestClock.DEFAULT_START);
    assertThat(clock.sleeps()).isEmpty();
  }

  @Test
  void withZone_sharesInstantAndSleeps() throws InterruptedException {
    TestClock clock = TestClock.create();
    TestClock paris = clock.withZone(ZoneId.of("Europe/Paris"));

    paris.sleeper().sleep(Duration.ofMinutes(1));
    clock.advance(Duration.ofMinutes(1));

    assertThat(paris.getZone()).isEqualTo(ZoneId.of("Europe/Paris"));
    assertThat(paris.instant()).isEqualTo(clock.instant()).isEqualTo(TestClock.DEFAULT_START.plusSeconds(120));
    assertThat(clock.sleeps()).containsExactly(Duration.ofMinutes(1));
  }

  @Test
  void sleeper_concurrentSleeps_allCount() {
    TestClock clock = TestClock.create();

    ContractRace.run(8, i -> {
      for (int n = 0; n < 100; n++) {
        try {
          clock.sleeper().sleep(Duration.ofMillis(1));
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
        clock.advance(Duration.ofMillis(1));
      }
      return i;
    });

    assertThat(clock.sleeps()).hasSize(800);
    assertThat(clock.instant()).isEqualTo(TestClock.DEFAULT_START.plusMillis(1600));
  }
}
