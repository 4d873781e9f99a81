package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** When a record names a process of this host that is gone, by {@link HostProcesses#isGone}. */
class HostProcessesTest {

  private static final Instant STARTED = Instant.parse("2026-01-01T00:00:00Z");
  private static final LockInfo RECORD = new LockInfo("a@box", "box", 42, STARTED.plusSeconds(60), Duration.ofSeconds(30),
      "n-1");

  @Test
  void isGone_noProcessWithItsPid_isGone() {
    assertThat(box(Map.of()).isGone(RECORD.withProcessStart(STARTED))).isTrue();
  }

  @Test
  void isGone_itsPidNowNamesALaterProcess_isGone() {
    assertThat(box(Map.of(42L, STARTED.plusSeconds(2))).isGone(RECORD.withProcessStart(STARTED))).isTrue();
    assertThat(box(Map.of(42L, STARTED.minusSeconds(2))).isGone(RECORD.withProcessStart(STARTED))).isTrue();
  }

  @Test
  void isGone_itsProcessRuns_evenReadASecondApart_isNot() {
    assertThat(box(Map.of(42L, STARTED)).isGone(RECORD.withProcessStart(STARTED))).isFalse();
    assertThat(box(Map.of(42L, STARTED.plus(HostProcesses.START_TOLERANCE))).isGone(RECORD.withProcessStart(STARTED)))
        .isFalse();
  }

  @Test
  void isGone_itsProcessRunsWithAStartNotKnown_isNot() {
    HostProcesses unknownStarts = new HostProcesses() {
      @Override
      public String hostname() {
        return "box";
      }

      @Override
      public boolean isRunning(long pid) {
        return true;
      }

      @Override
      public Optional<Instant> startOf(long pid) {
        return Optional.empty();
      }
    };

    assertThat(unknownStarts.isGone(RECORD.withProcessStart(STARTED))).isFalse();
  }

  @Test
  void isGone_aRecordWithoutAStartTime_isNever() {
    assertThat(box(Map.of()).isGone(RECORD)).as("the pid alone cannot tell a made-up or reused id").isFalse();
  }

  @Test
  void isGone_aRecordOfAnotherHost_isNever() {
    LockInfo elsewhere = new LockInfo("a@far", "far", 42, STARTED, Duration.ofSeconds(30), "n-1").withProcessStart(STARTED);

    assertThat(box(Map.of()).isGone(elsewhere)).isFalse();
  }

  @Test
  void system_knowsThisProcess_asRunning_andNotGone() {
    HostProcesses system = HostProcesses.system();
    long self = ProcessHandle.current().pid();
    LockInfo mine = new LockInfo("me@" + system.hostname(), system.hostname(), self, Instant.now(), Duration.ofSeconds(30),
        "n-self");

    assertThat(system.hostname()).isEqualTo(LockIdentity.current().hostname());
    assertThat(system.isRunning(self)).isTrue();
    assertThat(system.startOf(self)).isEqualTo(ProcessHandle.current().info().startInstant());
    assertThat(system.isGone(system.startOf(self).map(mine::withProcessStart).orElse(mine))).isFalse();
    assertThat(system.isRunning(-1)).isFalse();
    assertThat(system.startOf(-1)).isEmpty();
  }

  private static HostProcesses box(Map<Long, Instant> running) {
    return new HostProcesses() {
      @Override
      public String hostname() {
        return "box";
      }

      @Override
      public boolean isRunning(long pid) {
        return running.containsKey(pid);
      }

      @Override
      public Optional<Instant> startOf(long pid) {
        return Optional.ofNullable(running.get(pid));
      }
    };
  }
}
