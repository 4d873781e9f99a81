package dev.tierlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tierlock.Environment;
import dev.tierlock.ExtensionName;
import dev.tierlock.Tierlock;
import dev.tierlock.install.ConvergeReport;
import dev.tierlock.testkit.FakeRegistry;
import dev.tierlock.testkit.TestArchives;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code tierlock converge}, {@code status} and {@code watch}: two checkouts on one embedded default datastore. */
class ConvergeCommandsTest {

  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-29T10:00:00.000Z"), ZoneOffset.UTC);
  private static final ExtensionName TOOL = ExtensionName.of("@acme/tool");

  @TempDir Path home;
  @TempDir Path work;
  @TempDir Path registryDir;

  private record Run(int code, String out, String err) {}

  /** Checkouts that do not exist yet: the first command creates them, as the README's example relies on. */
  private Path a() {
    return work.resolve("a");
  }

  private Path b() {
    return work.resolve("b");
  }

  private Run run(Path at, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = TierlockCli.run(withCheckout(at, args), environment(), CLOCK, new PrintWriter(out, true),
        new PrintWriter(err, true));
    return new Run(code, out.toString(), err.toString());
  }

  private static String[] withCheckout(Path at, String... args) {
    return Stream.concat(Stream.of("--checkout", at.toString()), Stream.of(args)).toArray(String[]::new);
  }

  private Map<String, String> environment() {
    return Map.of(TierlockCli.HOME_VARIABLE, home.toString());
  }

  private void publish() {
    FakeRegistry registry = FakeRegistry.directory(registryDir);
    registry.publish("@acme/tool", "1.0.0", TestArchives.extension("@acme/tool", "1.0.0").file("lib/a.txt", "a").build());
    registry.publish("@acme/tool", "1.1.0", TestArchives.extension("@acme/tool", "1.1.0").file("lib/a.txt", "b").build());
    registry.publish("@acme/other", "2.0.0", TestArchives.extension("@acme/other", "2.0.0").file("o.txt", "o").build());
  }

  private void installOnA(String spec) {
    Run install = run(a(), "install", spec, "--registry", registryDir.toString());
    assertThat(install.code()).as(install.err()).isZero();
  }

  @Test
  void converge_ofAnEntryThatPinsNoArchive_skipsItWithANote_andExitsZero() {
    assertThat(run(a(), "entries", "put", "@acme/hello", "1.0.0").code()).isZero();

    Run converge = run(b(), "converge");
    Run again = run(b(), "converge");

    assertThat(converge.code()).as(converge.out() + converge.err()).isZero();
    assertThat(converge.out()).contains("@acme/hello\tskipped\tnote: it pins no archive (no checksum), so the tier"
        + " cannot restore it; 'tierlock install @acme/hello --registry DIR' installs it");
    assertThat(again.code()).as("and on every later pass").isZero();
  }

  @Test
  void converge_onASecondCheckout_restoresFromTheTierAlone_thenStatusSaysVerified() throws IOException {
    publish();
    installOnA("@acme/tool@^1");

    Run converge = run(b(), "converge");

    assertThat(converge.code()).as(converge.err()).isZero();
    assertThat(converge.out()).contains("@acme/tool\trestored\n")
        .containsPattern("\\(converged: 1 restored, 0 removed, 0 verified, 0 skipped, 0 pending, 0 unrestorable;"
            + " [1-9][0-9]* requests, [1-9][0-9]* bytes\\)");
    assertThat(Files.readString(b().resolve("extensions/@acme/tool/lib/a.txt"))).isEqualTo("b");

    Run status = run(b(), "status");
    assertThat(status.code()).as(status.err()).isZero();
    assertThat(status.out()).isEqualTo("NAME\tPINNED\tINSTALLED\tSTATE\tDETAIL\n@acme/tool\t1.1.0\t1.1.0\tverified\n");

    Run again = run(b(), "converge");
    assertThat(again.code()).as(again.err()).isZero();
    assertThat(again.out()).startsWith("(unchanged: 0 restored, 0 removed");
  }

  @Test
  void convergeAndStatus_json_parse_andCarryTheirFields() throws IOException {
    publish();
    installOnA("@acme/tool@^1");
    ObjectMapper mapper = new ObjectMapper();

    Run converge = run(b(), "converge", "--json", "--full");
    Run status = run(b(), "status", "--json");

    assertThat(converge.code()).as(converge.err()).isZero();
    JsonNode report = mapper.readTree(converge.out());
    assertThat(report.get("outcome").asText()).isEqualTo("converged");
    assertThat(report.get("restored")).hasSize(1);
    assertThat(report.get("restored").get(0).asText()).isEqualTo("@acme/tool");
    for (String list : List.of("removed", "verified", "skipped", "pending", "unrestorable", "warnings")) {
      assertThat(report.get(list).isArray()).as(list).isTrue();
    }
    assertThat(report.get("requests").asLong()).isPositive();
    assertThat(report.get("bytes").asLong()).isPositive();
    assertThat(report.get("lockfileVersion").isTextual()).isTrue();
    assertThat(report.get("lockfileSha256").asText()).hasSize(64);
    assertThat(report.get("restoreGeneration").asLong()).isPositive();
    assertThat(report.get("exitCode").asInt()).isZero();

    assertThat(status.code()).as(status.err()).isZero();
    JsonNode entry = mapper.readTree(status.out()).get("extensions").get(0);
    assertThat(entry.get("name").asText()).isEqualTo("@acme/tool");
    assertThat(entry.get("pinned").asText()).isEqualTo("1.1.0");
    assertThat(entry.get("installed").asText()).isEqualTo("1.1.0");
    assertThat(entry.get("state").asText()).isEqualTo("verified");
    assertThat(entry.get("nextAttempt").isNull()).isTrue();
    assertThat(entry.get("detail").isNull()).isTrue();
  }

  @Test
  void converge_overAnEditWhenAPeerBumps_keepsTheEditAside_statusNamesIt_andForceReplaces() throws IOException {
    publish();
    installOnA("@acme/tool@1.0.0");
    assertThat(run(b(), "converge").code()).isZero();
    Path file = b().resolve("extensions/@acme/tool/lib/a.txt");
    Files.writeString(file, "edited on b");
    installOnA("@acme/tool@1.1.0");

    Run bump = run(b(), "converge");

    assertThat(bump.code()).as(bump.err()).isZero();
    assertThat(bump.out()).contains("@acme/tool\trestored\n").contains("@acme/tool 1.0.0 had files that differ")
        .contains("kept at ").contains(".swamp/kept-edits/@acme/tool/1.0.0-");
    assertThat(file).hasContent("b");
    Run status = run(b(), "status", "--no-headers");
    assertThat(status.out()).startsWith("@acme/tool\t1.1.0\t1.1.0\tverified\tlocal edits kept at ")
        .contains(".swamp/kept-edits/@acme/tool/1.0.0-");
    Files.writeString(file, "edited again");
    Run kept = run(b(), "converge", "--full");
    assertThat(kept.out()).contains("@acme/tool 1.1.0 differs from what the lockfile pins (edited locally): kept as"
        + " it is; install it again, or converge --force, to replace it");
    assertThat(file).hasContent("edited again");

    Run force = run(b(), "converge", "--full", "--force");

    assertThat(force.code()).as(force.err()).isZero();
    assertThat(force.out()).contains("@acme/tool\trestored\n");
    assertThat(file).hasContent("b");
  }

  @Test
  void converge_whileThePulledExtensionsLockIsHeld_isBusy_andSwapsNothing() throws Exception {
    publish();
    installOnA("@acme/tool@^1");
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<Void> holder;
    // the lock Tierlock itself takes for installs on checkout b, held by another thread (one thread cannot hold it twice)
    try (Tierlock onB = Tierlock.builder().datastore(home.resolve("datastore").toUri()).checkout(b())
        .environment(Environment.system().withClock(CLOCK))
        .build()) {
      holder = CompletableFuture.runAsync(() -> onB.transaction().run(tx -> tx.withPulledExtensionsLock(() -> {
        held.countDown();
        try {
          return release.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      })));
      assertThat(held.await(60, TimeUnit.SECONDS)).as("the holder has the lock").isTrue();
      assertThat(onB.stateDirectory().resolve("pulled-extensions.lock")).exists();

      Run busy;
      try {
        busy = run(b(), "converge");
      } finally {
        release.countDown();
      }
      holder.get(60, TimeUnit.SECONDS);

      assertThat(busy.code()).as(busy.out() + busy.err()).isEqualTo(ExitCodes.TEMPORARY);
      assertThat(busy.out()).contains("(busy: 0 restored").contains("warning: another install");
      assertThat(b().resolve("extensions/@acme/tool")).doesNotExist();
    }

    Run after = run(b(), "converge");
    assertThat(after.code()).as(after.err()).isZero();
    assertThat(b().resolve("extensions/@acme/tool/lib/a.txt")).hasContent("b");
  }

  @Test
  void converge_ofAnEntryWhoseArchiveTheTierLacks_isUnrestorable_exit1_andStatusSaysWhy() {
    Run put = run(a(), "entries", "put", "@acme/ghost", "1.0.0", "--checksum", "c".repeat(64));
    assertThat(put.code()).as(put.err()).isZero();

    Run converge = run(b(), "converge");
    Run status = run(b(), "status", "--no-headers");

    assertThat(converge.code()).isEqualTo(ExitCodes.FAILURE);
    assertThat(converge.out()).contains("@acme/ghost\tunrestorable\tarchive missing: ").contains("1 unrestorable;");
    assertThat(status.out()).startsWith("@acme/ghost\t1.0.0\t-\tunrestorable\tARCHIVE_MISSING");
  }

  @Test
  void converge_withoutASharedLockfile_isZero_andSaysSo() {
    assertThat(run(a(), "init").code()).isZero();

    Run converge = run(b(), "converge");

    assertThat(converge.code()).as(converge.err()).isZero();
    assertThat(converge.out()).contains("warning: the datastore holds no shared lockfile").contains("(no lockfile: ");
  }

  @Test
  void converge_ofAMissingDatastore_isUsage_andCreatesNone() {
    Run converge = run(b(), "converge");

    assertThat(converge.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(converge.err()).contains("[datastore_missing]");
    assertThat(home.resolve("datastore")).doesNotExist();
  }

  @Test
  void exitCode_followsTheOutcome_andWhatIsLeft() {
    ConvergeReport.Pending pending = new ConvergeReport.Pending(TOOL, 1, CLOCK.instant(), "reset");
    ConvergeReport.Unrestorable blocked =
        new ConvergeReport.Unrestorable(TOOL, ConvergeReport.Unrestorable.Reason.TAMPERED, "bad");

    assertThat(ConvergeCommands.exitCode(report(ConvergeReport.Outcome.CONVERGED, List.of(), List.of()))).isEqualTo(0);
    assertThat(ConvergeCommands.exitCode(report(ConvergeReport.Outcome.UNCHANGED, List.of(), List.of()))).isEqualTo(0);
    assertThat(ConvergeCommands.exitCode(report(ConvergeReport.Outcome.NO_LOCKFILE, List.of(), List.of()))).isEqualTo(0);
    assertThat(ConvergeCommands.exitCode(report(ConvergeReport.Outcome.BUSY, List.of(), List.of()))).isEqualTo(75);
    assertThat(ConvergeCommands.exitCode(report(ConvergeReport.Outcome.UNAVAILABLE, List.of(), List.of()))).isEqualTo(69);
    assertThat(ConvergeCommands.exitCode(report(ConvergeReport.Outcome.LOCKFILE_UNREADABLE, List.of(), List.of())))
        .isEqualTo(1);
    assertThat(ConvergeCommands.exitCode(report(ConvergeReport.Outcome.CONVERGED, List.of(pending), List.of()))).isEqualTo(75);
    assertThat(ConvergeCommands.exitCode(report(ConvergeReport.Outcome.UNCHANGED, List.of(pending), List.of()))).isEqualTo(75);
    assertThat(ConvergeCommands.exitCode(report(ConvergeReport.Outcome.CONVERGED, List.of(), List.of(blocked)))).isEqualTo(1);
    assertThat(ConvergeCommands.exitCode(report(ConvergeReport.Outcome.CONVERGED, List.of(pending), List.of(blocked))))
        .as("a person must look, whatever else is pending").isEqualTo(1);
  }

  private static ConvergeReport report(ConvergeReport.Outcome outcome, List<ConvergeReport.Pending> pending,
      List<ConvergeReport.Unrestorable> blocked) {
    return new ConvergeReport(outcome, List.of(), List.of(), List.of(), List.of(), pending, blocked, List.of(), false, 0,
        0, Optional.empty(), Optional.empty(), 0);
  }

  @Test
  void watch_printsOneLinePerChange_madeBetweenPolls() {
    publish();
    installOnA("@acme/tool@^1");
    assertThat(run(b(), "converge").code()).isZero();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine line = new CommandLine(new TierlockCli(environment(), CLOCK, new PrintWriter(err, true)));
    TierlockCli.COMMANDS.forEach(line::addSubcommand);
    line.setOut(new PrintWriter(out, true));
    line.setErr(new PrintWriter(err, true));
    ConvergeCommands.Watch watch = line.getSubcommands().get("watch").getCommand();
    List<String> before = new ArrayList<>();
    List<Runnable> changes = new ArrayList<>(List.of(() -> installOnA("@acme/other"),
        () -> assertThat(run(a(), "remove", "@acme/tool").code()).isZero()));
    watch.betweenPolls = () -> {
      before.add(out.toString());
      changes.remove(0).run();
    };

    int code = line.execute(withCheckout(b(), "watch", "--polls", "3"));

    assertThat(code).as(err.toString()).isZero();
    assertThat(before).as("nothing is printed while nothing changed").containsExactly("",
        "2026-11-29T10:00:00Z\trestored @acme/other\tremoved -\n");
    assertThat(out.toString()).isEqualTo("2026-11-29T10:00:00Z\trestored @acme/other\tremoved -\n"
        + "2026-11-29T10:00:00Z\trestored -\tremoved @acme/tool\n");
    assertThat(b().resolve("extensions/@acme/other/o.txt")).hasContent("o");
    assertThat(b().resolve("extensions/@acme/tool")).doesNotExist();
  }

  @Test
  void watch_onACheckoutThatNeverConverged_saysWhatItsFirstPassRestored() {
    publish();
    installOnA("@acme/tool@^1");

    Run watch = run(b(), "watch", "--polls", "1");

    assertThat(watch.code()).as(watch.err()).isZero();
    assertThat(watch.out()).isEqualTo("2026-11-29T10:00:00Z\trestored @acme/tool\tremoved -\n");
  }

  @Test
  void watch_belowTheShortestInterval_isUsage() {
    Run watch = run(b(), "watch", "--interval", "500ms");

    assertThat(watch.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(watch.err()).contains("Cannot poll every PT0.5S: the interval is at least PT1S");
  }

  @Test
  void help_ofConverge_listsItsExitCodes() {
    Run help = run(b(), "help", "converge");

    assertThat(help.code()).isZero();
    assertThat(help.out()).contains("Exit codes:").contains("75").contains("unrestorable").contains("--full");
  }
}
