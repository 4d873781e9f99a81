package dev.tierlock.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StraceLogTest {

  @Test
  void countsOnlyTheCallsBetweenTheMarks_eachSplitCallOnce() {
    List<String> log = List.of(
        "100 fsync(3) = 0",
        "100 rename(\"/s/a.tmp\", \"/s/a\") = -1 ENOENT (No such file or directory)",
        "100 unlink(\"/w/tierlock-strace-begin\") = 0",
        "100 fsync(4) = 0",
        "101 rename(\"/s/b.tmp\", \"/s/b\" <unfinished ...>",
        "100 fdatasync(5 <unfinished ...>",
        "101 <... rename resumed>) = 0",
        "100 <... fdatasync resumed>) = 0",
        "102 --- SIGCHLD {si_signo=SIGCHLD} ---",
        "100 unlinkat(AT_FDCWD, \"/s/owner\", 0) = 0",
        "100 renameat2(AT_FDCWD, \"/s/x\", AT_FDCWD, \"/s/y\", RENAME_NOREPLACE) = -1 EEXIST (File exists)",
        "100 unlink(\"/w/tierlock-strace-end\") = 0",
        "100 fsync(6) = 0",
        "102 +++ exited with 0 +++");

    Map<String, Long> calls = StraceLog.between(log);

    assertThat(calls).containsExactlyInAnyOrderEntriesOf(Map.of(
        "fsync", 1L, "rename", 1L, "fdatasync", 1L, "unlinkat", 1L, "renameat2", 1L));
  }

  @Test
  void aLogWithoutItsMarks_isRefused_notCountedWhole() {
    assertThatThrownBy(() -> StraceLog.between(List.of("100 fsync(3) = 0")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no tierlock-strace-begin mark");
    assertThatThrownBy(() -> StraceLog.between(List.of(
        "100 unlink(\"/w/tierlock-strace-end\") = 0", "100 unlink(\"/w/tierlock-strace-begin\") = 0")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no tierlock-strace-end mark after");
  }
}
