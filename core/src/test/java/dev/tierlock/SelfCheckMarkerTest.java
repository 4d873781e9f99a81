package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SelfCheckMarkerTest {

  @TempDir Path state;

  private final ManualClock clock = ManualClock.create();

  @Test
  void record_isFreshForItsDatastore_untilTheTtlPasses() {
    SelfCheckMarker marker = new SelfCheckMarker(state, clock);
    assertThat(marker.isFresh("s3://bucket/team")).isFalse();

    marker.record("s3://bucket/team");

    assertThat(marker.isFresh("s3://bucket/team")).isTrue();
    assertThat(marker.isFresh("s3://other/team")).isFalse();
    clock.advance(SelfCheckMarker.TTL.minusSeconds(1));
    assertThat(marker.isFresh("s3://bucket/team")).isTrue();
    clock.advance(Duration.ofSeconds(1));
    assertThat(marker.isFresh("s3://bucket/team")).isFalse();
  }

  @Test
  void aMarkerFromTheFuture_orUnreadable_isIgnored() throws IOException {
    SelfCheckMarker marker = new SelfCheckMarker(state, clock);
    Path file = state.resolve(SelfCheckMarker.FILE_NAME);
    Files.writeString(file, "{\"datastore\":\"d\",\"checkedAt\":\"" + clock.instant().plusSeconds(60) + "\"}");
    assertThat(marker.isFresh("d")).isFalse();
    Files.writeString(file, "{\"datastore\":\"d\",\"checkedAt\":\"yesterday\"}");
    assertThat(marker.isFresh("d")).isFalse();
    Files.writeString(file, "not json");
    assertThat(marker.isFresh("d")).isFalse();
  }
}
