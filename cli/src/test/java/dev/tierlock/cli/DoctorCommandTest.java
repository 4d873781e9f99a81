package dev.tierlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.Environment;
import dev.tierlock.LockIdentity;
import dev.tierlock.DistributedLock;
import dev.tierlock.Tierlock;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tierlock doctor}: one line per check, the worst finding's exit code, and nothing written. */
class DoctorCommandTest {

  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-29T10:00:00.000Z"), ZoneOffset.UTC);

  @TempDir Path home;
  @TempDir Path checkout;

  private record Run(int code, String out, String err) {
    /** Returns the line of {@code check}. */
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

  private Path datastore() {
    return home.resolve("datastore");
  }

  private Path sharedLockfile() {
    return datastore().resolve("config/upstream_extensions.json");
  }

  /** Every file under {@code dir} with its bytes, to prove that nothing changed. */
  private static Map<String, String> tree(Path dir) throws IOException {
    Map<String, String> files = new TreeMap<>();
    if (!Files.exists(dir)) {
      return files;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) walk::iterator) {
        files.put(dir.relativize(p).toString(), Files.isRegularFile(p) ? Arrays.toString(Files.readAllBytes(p)) : "dir");
      }
    }
    return files;
  }

  @Test
  void healthyFilesystemDatastore_everyCheckOk_exitZero_andNothingWritten() throws IOException {
    assertThat(run("init").code()).isZero();
    assertThat(run("entries", "put", "@acme/hello", "1.0.0").code()).isZero();
    Map<String, String> store = tree(datastore());
    Map<String, String> state = tree(checkout);

    Run doctor = run("doctor");

    assertThat(doctor.code()).as(doctor.out() + doctor.err()).isZero();
    List<String> lines = doctor.out().lines().toList();
    assertThat(lines).hasSize(DoctorCommand.CHECKS.size() + 1);
    for (int i = 0; i < DoctorCommand.CHECKS.size(); i++) {
      assertThat(lines.get(i)).as(doctor.out()).startsWith("ok  ").contains("  " + DoctorCommand.CHECKS.get(i) + "  ");
    }
    assertThat(doctor.line("datastore-reachable")).contains("present, version ").contains(", parses: 1 entry");
    assertThat(doctor.line("datastore-identity")).contains("scheme file, endpoint ")
        .contains(", container (none), prefix " + datastore().toRealPath() + ", namespace (none)");
    assertThat(doctor.line("self-check")).contains("passed at 2026-11-29T10:00:00Z").contains("proven by one read");
    assertThat(doctor.line("global-lock")).contains("free: lock \".datastore.lock\"");
    assertThat(doctor.line("pending-record")).endsWith("none");
    assertThat(doctor.line("state-directory")).contains("writable").contains("lock files transaction.lock");
    assertThat(lines.get(lines.size() - 1)).isEqualTo("doctor: healthy: every check ok");
    assertThat(doctor.err()).isEmpty();
    assertThat(tree(datastore())).as("doctor writes nothing to the datastore").isEqualTo(store);
    assertThat(tree(checkout)).as("nor to the checkout").isEqualTo(state);

    Run json = run("doctor", "--json");

    assertThat(json.code()).isZero();
    Map<?, ?> report = (Map<?, ?>) Json.parse(json.out());
    assertThat(report.get("verdict")).isEqualTo("healthy");
    assertThat(report.get("exitCode")).isEqualTo(new Json.Number("0"));
    List<?> checks = (List<?>) report.get("checks");
    assertThat(checks).hasSize(DoctorCommand.CHECKS.size());
    assertThat(checks.stream().map(c -> ((Map<?, ?>) c).get("check")).toList()).isEqualTo(DoctorCommand.CHECKS);
    assertThat(checks).allSatisfy(c -> assertThat(((Map<?, ?>) c).get("status")).isEqualTo("ok"));
  }

  @Test
  void corruptLockfile_failsWithExitOne_andLeavesItsBytesAlone() throws IOException {
    assertThat(run("init").code()).isZero();
    byte[] corrupt = "{\n  \"@acme/hello\": {\n".getBytes(StandardCharsets.UTF_8);
    Files.createDirectories(sharedLockfile().getParent());
    Files.write(sharedLockfile(), corrupt);

    Run doctor = run("doctor");
    Run json = run("doctor", "--json");

    assertThat(doctor.code()).as(doctor.out()).isEqualTo(ExitCodes.FAILURE);
    assertThat(doctor.line("datastore-reachable")).startsWith("fail").contains("present, version ")
        .contains(corrupt.length + " bytes").contains("does not parse").contains("[lockfile_format]")
        .contains("fix it by hand");
    assertThat(doctor.line("global-lock")).as("the datastore answered: the other checks run").startsWith("ok");
    assertThat(doctor.out()).contains("doctor: failures: 1 failing check(s)").contains("(exit 1, the first failure's)");
    assertThat(json.code()).isEqualTo(ExitCodes.FAILURE);
    Map<?, ?> first = ((List<?>) ((Map<?, ?>) Json.parse(json.out())).get("checks")).stream().map(c -> (Map<?, ?>) c)
        .filter(c -> c.get("check").equals("datastore-reachable")).findFirst().orElseThrow();
    assertThat(first.get("status")).isEqualTo("fail");
    assertThat(first.get("code")).isEqualTo("lockfile_format");
    assertThat(first.get("exitCode")).isEqualTo(new Json.Number("1"));
    assertThat(Files.readAllBytes(sharedLockfile())).isEqualTo(corrupt);
  }

  @Test
  void lockHeldByALiveHolder_isReportedWithItsHolder() {
    assertThat(run("init").code()).isZero();
    try (Tierlock peer = Tierlock.builder().datastore(datastore().toUri()).checkout(home.resolve("peer"))
        .environment(Environment.system().withClock(CLOCK))
        .build()) {
      DistributedLock.Held lease = peer.globalLock().acquire();
      try {
        Run doctor = run("doctor");

        assertThat(doctor.code()).as(doctor.out()).isZero();
        assertThat(doctor.line("global-lock")).startsWith("ok").contains("held by " + lease.info().holder() + " (host "
            + lease.info().hostname() + ", pid " + ProcessHandle.current().pid())
            .contains(", alive on this host)").contains("last heartbeat 2026-11-29T10:00:00Z (0 ms ago")
            .contains("nonce " + lease.info().nonce()).contains("lease fresh")
            .contains("its process is alive: wait for it").doesNotContain("break-glass");
        assertThat(peer.globalLock().inspect()).as("doctor did not take or break it").contains(lease.info());
      } finally {
        lease.release();
      }
    }
  }

  @Test
  void lockOfAHolderWhoseProcessIsGone_warnsWithTheBreakGlassHint() throws Exception {
    assertThat(run("init").code()).isZero();
    Process finished = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-version")
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    finished.waitFor();
    LockIdentity here = LockIdentity.current();
    Instant started = Instant.parse("2026-11-29T09:00:00Z");
    try (Tierlock peer = Tierlock.builder().datastore(datastore().toUri()).checkout(home.resolve("peer"))
        .environment(Environment.system().withClock(CLOCK).withHostProcesses(TierlockCliTest.startedAt(started))
            .withLockIdentity(LockIdentity.of("gone@" + here.hostname(), here.hostname(), finished.pid()))).build()) {
      DistributedLock.Held lease = peer.globalLock().acquire();
      try {
        Run doctor = run("doctor");

        assertThat(doctor.code()).as("a warning: exit 0").isZero();
        assertThat(doctor.line("global-lock")).startsWith("warn").contains("held by a process that is gone: gone@")
            .contains("pid " + finished.pid() + ", started " + started + ", no such process on this host)")
            .contains("break-glass is safe (its process is gone): tierlock lock release --nonce " + lease.info().nonce());
        assertThat(peer.globalLock().inspect()).as("doctor did not break it").contains(lease.info());
      } finally {
        lease.release();
      }
    }
  }

  @Test
  void unreadablePendingRecord_failsWithTheHint() throws IOException {
    assertThat(run("entries", "put", "@acme/hello", "1").code()).isZero();
    Path record = checkout.resolve(Tierlock.DEFAULT_STATE_DIRECTORY).resolve(PendingRecordCheck.RECORD);
    Files.writeString(record, "{not a record", StandardCharsets.UTF_8);

    Run doctor = run("doctor");

    assertThat(doctor.code()).as(doctor.out()).isEqualTo(ExitCodes.FAILURE);
    assertThat(doctor.line("pending-record")).startsWith("fail").contains("unreadable record").contains(record.toString())
        .contains("[lockfile_outcome_unknown]").contains("run 'tierlock pending discard'");
    assertThat(doctor.line("datastore-reachable")).startsWith("ok");
    assertThat(Files.readString(record)).isEqualTo("{not a record");
  }

  @Test
  void missingDatastore_exitsTwo_andCreatesNothing() throws IOException {
    Path typo = checkout.resolve("sahred");

    Run mistyped = run("doctor", "--datastore", typo.toString());
    Run embedded = run("doctor");

    assertThat(mistyped.code()).as(mistyped.out()).isEqualTo(ExitCodes.USAGE);
    assertThat(mistyped.line("datastore-reachable")).startsWith("fail").contains("Cannot open datastore " + typo
        + ": no such directory").contains("[datastore_missing]");
    assertThat(mistyped.line("global-lock")).startsWith("skip");
    assertThat(mistyped.line("state-directory")).startsWith("ok").contains("none yet");
    assertThat(mistyped.out()).contains("(exit 2, the first failure's)");
    assertThat(typo).doesNotExist();
    assertThat(embedded.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(embedded.line("datastore-reachable")).contains("Cannot read the embedded datastore at " + datastore());
    assertThat(datastore()).doesNotExist();
    assertThat(tree(checkout)).as("not even a state directory").containsOnlyKeys("");
  }

  @Test
  void aStoreNeverChecked_warnsWithoutWriting_andSelfCheckRunsIt() throws IOException {
    Files.createDirectories(datastore());

    Run doctor = run("doctor");

    assertThat(doctor.code()).as("warnings only: exit 0").isZero();
    assertThat(doctor.line("self-check")).startsWith("warn").contains("not known: the store holds no verdict object")
        .contains("writes and deletes probe objects under .tierlock-selfcheck/").contains("tierlock doctor --self-check");
    assertThat(doctor.line("datastore-reachable")).startsWith("ok").contains("absent");
    assertThat(doctor.out()).endsWith("doctor: warnings: 1 warning(s), no failure (exit 0)\n");
    assertThat(tree(datastore())).as("nothing written").containsOnlyKeys("");

    Run check = run("doctor", "--self-check");
    Run after = run("doctor");

    assertThat(check.code()).as(check.out()).isZero();
    assertThat(check.line("self-check")).startsWith("ok").contains("passed now").contains("the full check ran");
    assertThat(datastore().resolve(".tierlock-selfcheck/verdict")).exists();
    assertThat(after.line("self-check")).startsWith("ok").contains("passed at 2026-11-29T10:00:00Z");
  }

  @Test
  void anInterruptedInstallsJournal_warns() throws IOException {
    assertThat(run("init").code()).isZero();
    Path staging = Files.createDirectories(checkout.resolve("extensions/.tierlock-staging/s1"));
    Files.writeString(staging.resolve("journal.json"), "{\"extensionName\":\"@acme/tool\",\"phase\":\"swapping\"}");
    Files.createDirectories(checkout.resolve("extensions/.tierlock-staging/prepared-x"));

    Run doctor = run("doctor");

    assertThat(doctor.code()).isZero();
    assertThat(doctor.line("install-staging")).startsWith("warn").contains("1 journal(s)")
        .contains("s1 (@acme/tool, phase swapping").contains("1 staging leftover(s) without a journal (prepared-x)")
        .contains("the next 'tierlock install' or 'tierlock remove' here finishes or rolls them back");
    assertThat(doctor.out()).contains("doctor: warnings: ");
  }
}
