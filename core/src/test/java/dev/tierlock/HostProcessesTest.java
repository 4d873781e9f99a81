package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * When a record names a process of this host that is gone, by {@link HostProcesses#isGone}: only a
 * record of this host's own boot and pid namespace, seen through an injected namespace view.
 */
class HostProcessesTest {

  private static final Instant STARTED = Instant.parse("2026-01-01T00:00:00Z");
  private static final LockInfo.ProcessNamespace HERE = new LockInfo.ProcessNamespace("boot-1", "pid:[4026531836]");
  private static final LockInfo RECORD = new LockInfo("a@box", "box", 42, STARTED.plusSeconds(60), Duration.ofSeconds(30),
      "n-1").withProcessNamespace(HERE);

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
      public Optional<LockInfo.ProcessNamespace> processNamespace() {
        return Optional.of(HERE);
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
  void isGone_aRecordOfAnotherPidNamespaceOrBootOfThisHost_isNever() {
    LockInfo container = RECORD.withProcessStart(STARTED)
        .withProcessNamespace(new LockInfo.ProcessNamespace("boot-1", "pid:[4026532999]"));
    LockInfo earlierBoot = RECORD.withProcessStart(STARTED)
        .withProcessNamespace(new LockInfo.ProcessNamespace("boot-0", "pid:[4026531836]"));

    assertThat(box(Map.of()).isGone(container)).as("pid 42 of another container means nothing here").isFalse();
    assertThat(box(Map.of(42L, STARTED.plusSeconds(5))).isGone(container)).isFalse();
    assertThat(box(Map.of()).isGone(earlierBoot)).isFalse();
    assertThat(box(Map.of()).sharesProcessTable(container)).isFalse();
    assertThat(box(Map.of()).sharesProcessTable(RECORD)).isTrue();
  }

  @Test
  void isGone_aRecordWithoutANamespace_isNever() {
    LockInfo older = new LockInfo("a@box", "box", 42, STARTED.plusSeconds(60), Duration.ofSeconds(30), "n-1")
        .withProcessStart(STARTED);

    assertThat(box(Map.of()).isGone(older)).as("an older Tierlock's record: which pid namespace is unknown").isFalse();
  }

  @Test
  void isGone_whenThisProcessCannotTellItsNamespace_isNever() {
    HostProcesses blind = new HostProcesses() {
      @Override
      public String hostname() {
        return "box";
      }

      @Override
      public boolean isRunning(long pid) {
        return false;
      }

      @Override
      public Optional<Instant> startOf(long pid) {
        return Optional.empty();
      }
    };

    assertThat(blind.processNamespace()).isEmpty();
    assertThat(blind.isGone(RECORD.withProcessStart(STARTED))).isFalse();
  }

  @Test
  void isGone_aRecordOfAnotherHost_isNever() {
    LockInfo elsewhere = new LockInfo("a@far", "far", 42, STARTED, Duration.ofSeconds(30), "n-1").withProcessStart(STARTED)
        .withProcessNamespace(HERE);

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
    if (java.nio.file.Files.isReadable(java.nio.file.Path.of("/proc/sys/kernel/random/boot_id"))) {
      assertThat(system.processNamespace()).as("read from /proc").hasValueSatisfying(namespace -> {
        assertThat(namespace.bootId()).matches("[0-9a-f-]{36}");
        assertThat(namespace.pidNamespace()).matches("pid:\\[[0-9]+]");
      });
    }
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
      public Optional<LockInfo.ProcessNamespace> processNamespace() {
        return Optional.of(HERE);
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
