package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The waits of {@link LeaseSchedule}: from the hold and the queue wait measured, never from the round trip. */
class LeaseScheduleTest {

  private static final LockOptions OPTIONS = LockOptions.DEFAULTS;
  private static final Duration FALLBACK = Duration.ofMillis(1);
  private static final Duration LEFT = Duration.ofMinutes(1);

  @Test
  void next_unmeasured_startsAtTwiceTheFallbackHold_andGrowsByAQuarterOfTheTimeWaited() {
    LeaseSchedule schedule = new LeaseSchedule();
    Duration first = schedule.firstPoint(0.5);

    assertThat(first).isZero();
    assertThat(schedule.next(Duration.ZERO, first, null, FALLBACK, 0.5, OPTIONS, LEFT)).isEqualTo(Duration.ofMillis(2));
    assertThat(schedule.next(Duration.ofMillis(432), first, null, FALLBACK, 0.5, OPTIONS, LEFT)).isEqualTo(Duration.ofMillis(100));
    assertThat(schedule.next(Duration.ofMinutes(5), first, null, FALLBACK, 0.5, OPTIONS, LEFT))
        .as("at most the maximum retry interval").isEqualTo(OPTIONS.maxRetryInterval());
  }

  @Test
  void next_measuredQueue_sleepsToAPointInItsLastQuarter_thenTriesAboutOnceAHold() {
    LeaseSchedule schedule = new LeaseSchedule();
    schedule.held(Duration.ofMillis(40));
    schedule.waited(Duration.ofMillis(600));
    Duration first = schedule.firstPoint(0.5);

    assertThat(first).as("seven eighths of the queue wait, at a draw of 0.5").isEqualTo(Duration.ofMillis(525));
    assertThat(schedule.next(Duration.ofMillis(20), first, null, FALLBACK, 0.9, OPTIONS, LEFT))
        .as("no call until that point").isEqualTo(Duration.ofMillis(505));
    assertThat(schedule.next(first, first, null, FALLBACK, 0.5, OPTIONS, LEFT)).as("two holds at that point")
        .isEqualTo(Duration.ofMillis(80));
    assertThat(schedule.next(first.plusMillis(160), first, null, FALLBACK, 0.5, OPTIONS, LEFT))
        .as("halving every four holds since").isEqualTo(Duration.ofMillis(40));
    assertThat(schedule.next(Duration.ofMillis(2000), first, null, FALLBACK, 0.5, OPTIONS, LEFT))
        .as("half a hold at the least").isEqualTo(Duration.ofMillis(20));
    assertThat(schedule.next(Duration.ofMillis(3200), first, null, FALLBACK, 0.5, OPTIONS, LEFT))
        .as("a quarter of the wait beyond four queue waits, once longer").isEqualTo(Duration.ofMillis(200));
  }

  @Test
  void heldAndWaited_areMovingAverages_aNewSampleWeighingAQuarter_aQueueSampleAtMostTwiceTheAverage() {
    LeaseSchedule schedule = new LeaseSchedule();
    schedule.held(Duration.ofMillis(40));
    schedule.held(Duration.ofMillis(80));
    schedule.waited(Duration.ofMillis(100));
    schedule.waited(Duration.ofMillis(900));

    assertThat(schedule.hold(FALLBACK)).isEqualTo(Duration.ofMillis(50));
    assertThat(schedule.queue()).isEqualTo(Duration.ofMillis(125));
  }

  @Test
  void next_reserver_triesAboutTwiceAHold_growingBySixteenthsOfItsReservedTime_upToItsCap() {
    LeaseSchedule schedule = new LeaseSchedule();
    schedule.held(Duration.ofMillis(40));
    schedule.waited(Duration.ofSeconds(20));
    Duration first = schedule.firstPoint(0.5);

    assertThat(schedule.next(Duration.ofSeconds(17), first, Duration.ZERO, FALLBACK, 1.0, OPTIONS, LEFT))
        .as("a reserver does not sleep towards the queue wait").isEqualTo(Duration.ofMillis(40));
    assertThat(schedule.next(Duration.ofSeconds(30), first, Duration.ofSeconds(8), FALLBACK, 0.0, OPTIONS, LEFT))
        .isEqualTo(Duration.ofMillis(250));
    assertThat(schedule.next(Duration.ofSeconds(60), first, Duration.ofMinutes(5), FALLBACK, 1.0, OPTIONS, LEFT))
        .isEqualTo(LeaseSchedule.reserverCap(OPTIONS));
  }

  @Test
  void next_neverRunsPastWhatRemains() {
    LeaseSchedule schedule = new LeaseSchedule();
    schedule.waited(Duration.ofSeconds(10));

    assertThat(schedule.next(Duration.ZERO, schedule.firstPoint(0.0), null, FALLBACK, 0.5, OPTIONS, Duration.ofMillis(3)))
        .isEqualTo(Duration.ofMillis(3));
  }
}
