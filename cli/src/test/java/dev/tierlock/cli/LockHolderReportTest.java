package dev.tierlock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tierlock.DistributedLock;
import dev.tierlock.Environment;
import dev.tierlock.HostProcesses;
import dev.tierlock.Tierlock;
import dev.tierlock.testkit.ChildLockHolder;
import dev.tierlock.testkit.ManualHeartbeats;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How {@code lock status} and {@code doctor} report the global lease's holder and this checkout's
 * transaction lock: a heartbeat past its ttl is "not renewing (stopped or hung?)", a stopped holder
 * is named with its pid, and break-glass is offered only when it will work.
 */
class LockHolderReportTest {

  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-29T10:00:00.000Z"), ZoneOffset.UTC);

  @TempDir Path home;
  @TempDir Path checkout;

  private record Run(int code, String out, String err) {
    String line(String check) {
      return out.lines().filter(l -> l.matches("^(ok|warn|fail|skip) +" + check + " .*")).findFirst()
          .orElseThrow(() -> new AssertionError("no line of " + check + " in:\n" + out));
    }
  }

  private Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    String[] all = Stream.concat(Stream.of(args), Stream.of("--checkout", checkout.toString())).toArray(String[]::new);
    int code = TierlockCli.run(all, Map.of(TierlockCli.HOME_VARIABLE, home.toString()), CLOCK, new PrintWriter(out, true),
        new PrintWriter(err, true));
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void aHeartbeatPastItsTtl_isNotRenewing_andBreakGlassIsOffered() {
    assertThat(run("init").code()).isZero();
    // the holder's last heartbeat was 31 s ago by the reader's clock: past its ttl of 30 s
    Clock earlier = Clock.offset(CLOCK, Duration.ofSeconds(-31));
    try (Tierlock peer = Tierlock.builder().datastore(home.resolve("datastore").toUri()).checkout(home.resolve("peer"))
        .environment(Environment.system().withClock(earlier).withHeartbeats(ManualHeartbeats.create())).build()) {
      DistributedLock.Held lease = peer.globalLock().acquire();
      try {
        Run status = run("lock", "status");
        Run doctor = run("doctor");

        assertThat(status.code()).isZero();
        assertThat(status.out()).startsWith("not renewing (stopped or hung?): lock \".datastore.lock\"")
            .contains("pid " + ProcessHandle.current().pid()).contains(", alive on this host)")
            .contains("(31000 ms ago, ttl 30000 ms)")
            .contains("  checkout lock: free, " + checkout.resolve(".swamp").resolve("transaction.lock"))
            .contains("break-glass now: tierlock lock release --nonce " + lease.info().nonce());
        assertThat(doctor.code()).as("a warning: exit 0").isZero();
        assertThat(doctor.out()).as("never 'healthy' with a lease that is not renewed").contains("warnings");
        assertThat(doctor.line("global-lock")).startsWith("warn")
            .contains("not renewing (stopped or hung?): held by " + lease.info().holder())
            .contains("break-glass now: tierlock lock release --nonce " + lease.info().nonce());
        assertThat(doctor.line("checkout-lock")).startsWith("ok").contains("free: ");
        assertThat(peer.globalLock().inspect()).as("neither took nor broke it").contains(lease.info());
      } finally {
        lease.release();
      }
    }
  }

  @Test
  void aStoppedHolderOfTheLeaseAndOfThisCheckoutsLock_isNamed_andBreakGlassIsNotOffered() throws Exception {
    assumeTrue(Files.isReadable(Path.of("/proc/self/stat")) && HostProcesses.system().processNamespace().isPresent(),
        "no /proc here: whether a process is stopped cannot be read, so lock status never says it");
    assertThat(run("init").code()).isZero();
    try (ChildLockHolder child = ChildLockHolder.holdingLeaseAndCheckoutLock(home.resolve("datastore").toUri(), checkout,
        Duration.ofMinutes(10))) {
      long pid = child.pid();
      signal("-STOP", pid);
      try {
        awaitStopped(pid);

        Run status = run("lock", "status");
        Run doctor = run("doctor");

        assertThat(status.code()).isZero();
        assertThat(status.out()).startsWith("held by a stopped process: lock \".datastore.lock\"")
            .contains("pid " + pid).contains(", stopped on this host)")
            .containsPattern("  checkout lock: held by pid " + pid + " on host [^ ]+ since [^ ]+ \\(.*\\), stopped on"
                + " this host, " + checkout.resolve(".swamp").resolve("transaction.lock"))
            .contains("resume it (kill -CONT " + pid + ") or end it (kill " + pid + ")")
            .contains("break-glass would not help: pid " + pid + " also holds this checkout's transaction lock")
            .doesNotContain("tierlock lock release");
        assertThat(doctor.line("global-lock")).startsWith("warn").contains("held by a stopped process: ")
            .contains("pid " + pid).doesNotContain("tierlock lock release");
        assertThat(doctor.line("checkout-lock")).startsWith("warn").contains("held by a stopped process: pid " + pid)
            .contains("every transaction on this checkout waits for it").contains("kill -CONT " + pid);
      } finally {
        signal("-CONT", pid);
      }
      child.release();
    }
  }

  /** Sends {@code signal} to {@code pid} with {@code kill}. */
  private static void signal(String signal, long pid) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", signal, Long.toString(pid)).redirectErrorStream(true).start();
    assertThat(kill.waitFor(60, TimeUnit.SECONDS)).as("kill %s %d returned", signal, pid).isTrue();
    assertThat(kill.exitValue()).as("kill %s %d", signal, pid).isZero();
  }

  /** Waits, within a bound only a broken test reaches, until the kernel reports {@code pid} stopped. */
  private static void awaitStopped(long pid) throws IOException {
    Path stat = Path.of("/proc", Long.toString(pid), "stat");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      String text = Files.readString(stat, StandardCharsets.US_ASCII);
      char state = text.charAt(text.lastIndexOf(')') + 2);
      if (state == 'T' || state == 't') {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("pid " + pid + " is not stopped after 60 s: state " + state);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
  }
}
