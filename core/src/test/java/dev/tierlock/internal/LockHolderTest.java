package dev.tierlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class LockHolderTest {

  private static final Instant STARTED = Instant.parse("2026-01-01T00:00:00Z");
  private static final Instant ACQUIRED = Instant.parse("2026-01-01T00:05:00.123Z");

  @Test
  void encode_thenParse_givesTheHolderBack() {
    LockHolder holder = LockHolder.of("alice@h, thread main", "h", 4242, STARTED, ACQUIRED, "transaction lock /x");

    assertThat(LockHolder.parse(holder.encode())).contains(holder);
    assertThat(holder.encode()).contains("\npid: 4242\n", "\nhost: h\n", "\nacquired: 2026-01-01T00:05:00.123Z\n");
  }

  @Test
  void describe_namesPidHostSinceAndStart() {
    LockHolder holder = LockHolder.of("alice@h, thread main", "h", 4242, STARTED, ACQUIRED, "transaction lock /x");

    assertThat(holder.describe()).isEqualTo("pid 4242 on host h since 2026-01-01T00:05:00.123Z; started 2026-01-01T00:00:00Z"
        + " (alice@h, thread main; guards transaction lock /x)");
    assertThat(LockHolder.of("n", "h", 1, null, ACQUIRED, "g").describe())
        .isEqualTo("pid 1 on host h since 2026-01-01T00:05:00.123Z; started at an unknown time (n; guards g)");
  }

  @Test
  void of_lineBreaks_becomeSpaces_soTheyCannotForgeFields() {
    LockHolder holder = LockHolder.of("x\npid: 1", "h", 7, null, ACQUIRED, "a\r\nhost: evil");

    assertThat(holder.name()).isEqualTo("x pid: 1");
    assertThat(LockHolder.parse(holder.encode())).hasValueSatisfying(parsed -> {
      assertThat(parsed.pid()).isEqualTo(7);
      assertThat(parsed.host()).isEqualTo("h");
      assertThat(parsed.processStart()).isEmpty();
    });
  }

  @Test
  void parse_incompleteOrForeignContent_isEmpty() {
    String full = LockHolder.of("n", "h", 1, STARTED, ACQUIRED, "g").encode();

    assertThat(LockHolder.parse("")).isEmpty();
    assertThat(LockHolder.parse(full.substring(0, full.indexOf("acquired:")))).as("caught half-way through writing").isEmpty();
    assertThat(LockHolder.parse("pid: x\nhost: h\nacquired: " + ACQUIRED)).isEmpty();
    assertThat(LockHolder.parse("pid: 1\nhost: h\nacquired: yesterday")).isEmpty();
    assertThat(LockHolder.parse("12345\n")).isEmpty();
  }

  @Test
  void current_isThisProcessAndThread() {
    LockHolder holder = LockHolder.current("g", ACQUIRED);

    assertThat(holder.pid()).isEqualTo(ProcessHandle.current().pid());
    assertThat(holder.name()).endsWith(", thread " + Thread.currentThread().getName());
    assertThat(holder.acquiredAt()).isEqualTo(ACQUIRED);
    assertThat(holder.processStart()).isEqualTo(ProcessHandle.current().info().startInstant());
  }
}
