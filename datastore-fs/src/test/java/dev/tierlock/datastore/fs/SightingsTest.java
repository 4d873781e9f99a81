package dev.tierlock.datastore.fs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** How long a holder has been seen unchanged, on this process's own clock only. */
class SightingsTest {

  private static final Path SLOT = Path.of("claims", "k");

  private final MovableClock clock = new MovableClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final Sightings sightings = new Sightings(clock);

  @Test
  void see_sameHolder_addsUpAcrossLooks_untilItChangesHands() {
    assertThat(sightings.see(SLOT, "claim-a")).isEqualTo(Duration.ZERO);
    clock.now = clock.now.plusSeconds(3);
    assertThat(sightings.see(SLOT, "claim-a")).isEqualTo(Duration.ofSeconds(3));
    clock.now = clock.now.plusSeconds(2);
    assertThat(sightings.see(SLOT, "claim-a")).isEqualTo(Duration.ofSeconds(5));

    clock.now = clock.now.plusSeconds(1);
    assertThat(sightings.see(SLOT, "claim-b")).as("another claim starts from zero").isEqualTo(Duration.ZERO);
    assertThat(sightings.see(Path.of("claims", "other"), "claim-b")).as("per place").isEqualTo(Duration.ZERO);
  }

  @Test
  void see_afterTheClockWentBack_orAForget_startsAgain() {
    sightings.see(SLOT, "claim-a");
    clock.now = clock.now.minusSeconds(60);
    assertThat(sightings.see(SLOT, "claim-a")).as("a clock stepped back never counts as time seen").isEqualTo(Duration.ZERO);
    clock.now = clock.now.plusSeconds(4);
    assertThat(sightings.see(SLOT, "claim-a")).isEqualTo(Duration.ofSeconds(4));

    sightings.forget(SLOT);
    assertThat(sightings.see(SLOT, "claim-a")).isEqualTo(Duration.ZERO);
  }

  /** A clock that a test sets. */
  private static final class MovableClock extends Clock {
    Instant now;

    MovableClock(Instant start) {
      this.now = start;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }
}
