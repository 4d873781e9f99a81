package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.Environment;
import dev.tierlock.ExtensionName;
import dev.tierlock.Heartbeats;
import dev.tierlock.LockIdentity;
import dev.tierlock.Namespace;
import dev.tierlock.Tierlock;
import dev.tierlock.install.Catalog;
import dev.tierlock.install.ConvergeReport;
import dev.tierlock.install.Converger;
import dev.tierlock.install.InstallRequest;
import dev.tierlock.install.Installer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The convergence state file: an invalid one means one full pass, a failed write one warning, another base a full pass. */
class ConvergeStateFileTest {

  private static final String TOOL = "@acme/tool";

  @TempDir Path temp;

  private final FakeRemote remote = FakeRemote.create();
  private final TestClock clock = TestClock.create();
  private Tierlock a;
  private Tierlock b;
  private Converger converger;

  private Tierlock open(String name, FakeRemote store) {
    Heartbeats never = (lock, interval, beat) -> () -> { };
    return Tierlock.builder().datastore(store).checkout(temp.resolve(name)).environment(Environment.system()
            .withClock(clock).withSleeper(clock.sleeper()).withRandom(new SplittableRandom(name.hashCode()))
            .withHeartbeats(never).withLockIdentity(LockIdentity.of("test@" + name, "host", 1))).build();
  }

  @BeforeEach
  void install() {
    FakeRegistry registry = FakeRegistry.create();
    registry.publish(TOOL, "1.0.0", TestArchives.extension(TOOL, "1.0.0").file("f.txt", "v1").build());
    a = open("a", remote);
    b = open("b", remote);
    Installer.builder(a, TempDirLayout.in(a.checkoutDirectory())).registry(registry).clock(clock).build()
        .install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);
    converger = Converger.builder(b, TempDirLayout.in(b.checkoutDirectory())).clock(clock).build();
    assertThat(converger.converge().restored()).extracting(ExtensionName::value).containsExactly(TOOL);
  }

  @AfterEach
  void close() {
    a.close();
    b.close();
  }

  @Test
  void anInvalidState_meansOneFullPass_withAWarning_andIsWrittenAnew() throws Exception {
    Files.writeString(converger.stateFile(), "{\"schemaVersion\":1,\"base\":", StandardCharsets.UTF_8);

    ConvergeReport full = converger.converge();

    assertThat(full.outcome()).isEqualTo(ConvergeReport.Outcome.CONVERGED);
    assertThat(full.verified()).extracting(ExtensionName::value).containsExactly(TOOL);
    assertThat(full.restored()).as("verified, not restored again").isEmpty();
    assertThat(full.warnings()).anyMatch(w -> w.contains("not valid"));
    ConvergeReport next = converger.converge();
    assertThat(next.outcome()).isEqualTo(ConvergeReport.Outcome.UNCHANGED);
    assertThat(next.warnings()).isEmpty();
  }

  @Test
  void aStateThatCannotBeWritten_isOneWarning_andThePassStillConverges() throws Exception {
    Path file = converger.stateFile();
    Files.delete(file);
    Files.createDirectories(file.resolve("blocked"));   // a directory where the file goes: every write fails

    ConvergeReport report = converger.converge();

    assertThat(report.outcome()).isEqualTo(ConvergeReport.Outcome.CONVERGED);
    assertThat(report.verified()).extracting(ExtensionName::value).containsExactly(TOOL);
    assertThat(report.warnings()).filteredOn(w -> w.contains("could not be saved")).hasSize(1);
    assertThat(report.newWarnings()).isTrue();
  }

  @Test
  void aStateOfAnotherDatastore_meansAFullPass() throws Exception {
    String text = Files.readString(converger.stateFile());
    assertThat(text).contains("\"base\"");
    // a state written for another store says so in its header line and in the state below it
    Files.writeString(converger.stateFile(),
        text.replaceAll("\"base\" ?: ?\"[^\"]*\"", "\"base\" : \"s3://elsewhere\""));

    ConvergeReport report = converger.converge();

    assertThat(report.outcome()).isEqualTo(ConvergeReport.Outcome.CONVERGED);
    assertThat(report.verified()).extracting(ExtensionName::value).containsExactly(TOOL);
    assertThat(report.warnings()).anyMatch(w -> w.contains("full pass"));
  }

  @Test
  void aCheckoutInAnotherNamespace_isAnotherBase() {
    try (Tierlock other = Tierlock.builder().datastore(remote).checkout(b.checkoutDirectory())
        .namespace(Namespace.of("team")).environment(Environment.system().withClock(clock).withSleeper(clock.sleeper()))
        .build()) {
      Converger elsewhere = Converger.builder(other, TempDirLayout.in(other.checkoutDirectory())).clock(clock).build();

      ConvergeReport report = elsewhere.converge();

      assertThat(report.outcome()).as("no lockfile in that namespace").isEqualTo(ConvergeReport.Outcome.NO_LOCKFILE);
      assertThat(report.restored()).isEmpty();
      assertThat(report.removed()).as("nothing is removed for a lockfile that is not there").isEmpty();
      assertThat(Files.exists(b.checkoutDirectory().resolve("extensions/@acme/tool/f.txt"))).isTrue();
    }
  }

  @Test
  void anUnparseableLockfile_isReported_andTouchesNothing() throws Exception {
    remote.write(Namespace.NONE.key(dev.tierlock.TierPath.LOCKFILE), dev.tierlock.spi.ObjectBody.of("{ not json"
        .getBytes(StandardCharsets.UTF_8)), dev.tierlock.spi.WriteCondition.none(), dev.tierlock.spi.ObjectMetadata.EMPTY);

    ConvergeReport report = converger.converge();

    assertThat(report.outcome()).isEqualTo(ConvergeReport.Outcome.LOCKFILE_UNREADABLE);
    assertThat(report.removed()).isEmpty();
    assertThat(Files.readString(b.checkoutDirectory().resolve("extensions/@acme/tool/f.txt"))).isEqualTo("v1");
  }
}
