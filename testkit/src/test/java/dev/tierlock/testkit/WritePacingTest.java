package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.CommitMode;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A checkout keeps its lockfile writes to the store's per-object rate ({@code minWriteInterval}, one
 * second on GCS): a write follows the last one no sooner, so a refusal for the rate never happens.
 */
class WritePacingTest {

  @TempDir Path dir;

  private final FakeRemote remote = FakeRemote.builder().minWriteInterval(Duration.ofSeconds(1)).build();
  private final TestClock clock = TestClock.create();

  @AfterEach
  void tearDown() {
    remote.close();
  }

  @Test
  void aWriteRightAfterAnother_waitsOutTheStoresInterval_andOneAfterItDoesNot() {
    TestCheckout checkout = TestCheckout.builder(remote, dir.resolve("c"), clock).commitMode(CommitMode.OPTIMISTIC)
        .build();
    checkout.put("@s/a", "1.0.0");
    int before = clock.sleeps().size();
    clock.advance(Duration.ofMillis(300));

    checkout.put("@s/a", "1.0.1");

    assertThat(clock.sleeps().subList(before, clock.sleeps().size())).containsExactly(Duration.ofMillis(700));
    clock.advance(Duration.ofSeconds(2));
    int later = clock.sleeps().size();

    checkout.put("@s/a", "1.0.2");

    assertThat(clock.sleeps()).hasSize(later);
  }

  @Test
  void aStoreWithoutAnInterval_isNeverPaced() {
    try (FakeRemote fast = FakeRemote.create()) {
      TestCheckout checkout = TestCheckout.builder(fast, dir.resolve("f"), clock).commitMode(CommitMode.OPTIMISTIC)
          .build();
      checkout.put("@s/a", "1.0.0");
      int before = clock.sleeps().size();

      checkout.put("@s/a", "1.0.1");

      assertThat(clock.sleeps()).hasSize(before);
    }
  }
}
