package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.spi.ObjectKey;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(FakeRemoteExtension.class)
class FakeRemoteExtensionTest {

  private static final ObjectKey KEY = ObjectKey.of("config/upstream_extensions.json");

  private final FakeRemote constructorRemote;
  private final TestClock constructorClock;

  FakeRemoteExtensionTest(FakeRemote remote, TestClock clock) {
    this.constructorRemote = remote;
    this.constructorClock = clock;
  }

  @Test
  void resolve_givesOneFreshRemoteAndClockPerTest(FakeRemote remote, TestClock clock) {
    assertThat(remote).isSameAs(constructorRemote);
    assertThat(clock).isSameAs(constructorClock);
    assertThat(remote.keys()).isEmpty();
    assertThat(remote.log().entries()).isEmpty();
    assertThat(clock.instant()).isEqualTo(TestClock.DEFAULT_START);
  }

  @Test
  void afterEach_closesTheRemoteAndDeletesItsDirectory() {
    EngineRun run = EngineRun.of(Recording.class);

    assertThat(run.failed()).isEmpty();
    assertThat(Recording.directories).hasSize(2).doesNotHaveDuplicates().allSatisfy(d -> assertThat(d).doesNotExist());
  }

  @Test
  void afterEach_unusedHook_failsThePassingTest() {
    EngineRun run = EngineRun.of(Leaky.class);

    assertThat(run.results()).containsEntry("hookNeverTriggered",
        "AssertionError: Cannot pass the test: 1 beforeNext or afterNext hook(s) never ran (pending: [beforeNext(WRITE)];"
            + " call faults().clear() to drop a hook on purpose)");
    assertThat(run.results()).containsEntry("downloadLeftOpen",
        "AssertionError: Cannot pass the test: download(s) left open: [" + KEY + "]");
    assertThat(run.results()).containsEntry("unusedFailNext_isAllowed", EngineRun.PASSED);
    assertThat(run.results()).containsEntry("hookCleared_isAllowed", EngineRun.PASSED);
    assertThat(run.results()).containsEntry("failingTest_keepsItsOwnFailure", "IllegalStateException: the test's own failure");
  }

  /** Records the directories of the remotes it was given. */
  @ExtendWith(FakeRemoteExtension.class)
  static class Recording {
    static final List<Path> directories = new ArrayList<>();

    @Test
    void first(FakeRemote remote) {
      remote.plant(KEY, new byte[] {1});
      directories.add(remote.directory());
    }

    @Test
    void second(FakeRemote remote) {
      assertThat(remote.keys()).isEmpty();
      directories.add(remote.directory());
    }
  }

  /** Tests that leave something behind. */
  @ExtendWith(FakeRemoteExtension.class)
  static class Leaky {
    @Test
    void hookNeverTriggered(FakeRemote remote, TestClock clock) {
      remote.faults().beforeNext(DatastoreOperation.WRITE, k -> true, () -> clock.advance(Duration.ofSeconds(31)));
    }

    @Test
    void downloadLeftOpen(FakeRemote remote) {
      remote.plant(KEY, new byte[] {1});
      remote.openStream(KEY).orElseThrow();
    }

    @Test
    void unusedFailNext_isAllowed(FakeRemote remote) {
      remote.faults().failNext(DatastoreOperation.WRITE, 3, Fault.UNAVAILABLE);
    }

    @Test
    void hookCleared_isAllowed(FakeRemote remote) {
      remote.faults().beforeNext(DatastoreOperation.WRITE, k -> true, () -> { });
      remote.faults().clear();
    }

    @Test
    void failingTest_keepsItsOwnFailure(FakeRemote remote) {
      remote.faults().beforeNext(DatastoreOperation.WRITE, k -> true, () -> { });
      throw new IllegalStateException("the test's own failure");
    }
  }
}
