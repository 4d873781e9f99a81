package dev.tierlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.spi.ObjectKey;
import dev.tierlock.testkit.FakeRegistry;
import dev.tierlock.testkit.TestArchives;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The progress line of long work: on a terminal only, counting requests and bytes, naming the extension, then cleared. */
class ProgressLineTest {

  private static final String ERASE = "\r\033[K";

  @TempDir Path home;
  @TempDir Path checkout;
  @TempDir Path registryDir;

  private CliHarness.Run installAll(Map<String, String> environment) {
    FakeRegistry registry = FakeRegistry.directory(registryDir);
    CliHarness cli = new CliHarness(home, checkout);
    for (String name : new String[] {"@acme/one", "@acme/two"}) {
      registry.publish(name, "1.0.0", TestArchives.extension(name, "1.0.0").file("a.txt", name).build());
      assertThat(cli.run("install", name + "@1.0.0", "--registry", registryDir.toString()).code()).isZero();
    }
    CliHarness other = new CliHarness(home, checkout.resolve("other")).with(environment);
    return other.run("install");
  }

  @Test
  void onATerminal_installOfManyExtensions_showsOneLineUpdatedInPlace_thenClearsIt() {
    CliHarness.Run run = installAll(Map.of(ProgressLine.VARIABLE, "always"));

    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.err()).contains(ERASE + "tierlock: 1 request, ").containsPattern("\\d+ requests, [0-9.]+ (B|KiB):"
        + " @acme/one").contains(": @acme/two").endsWith(ERASE).doesNotContain("\n" + ERASE);
    assertThat(run.out()).doesNotContain("\r");
  }

  @Test
  void onAPipe_orTurnedOff_thereIsNoProgressLine() {
    CliHarness.Run auto = installAll(Map.of());
    assertThat(auto.code()).as(auto.err()).isZero();
    assertThat(auto.err()).as("the test JVM has no console: a pipe").doesNotContain("\r");
    assertThat(new CliHarness(home, checkout).with(Map.of(ProgressLine.VARIABLE, "never")).run("converge").err())
        .doesNotContain("\r");
  }

  @Test
  void onATerminal_aDoctorSelfCheck_showsItsProgress_thenClearsIt() {
    CliHarness cli = new CliHarness(home, checkout);
    assertThat(cli.run("entries", "put", "@acme/x", "1.0.0").code()).isZero();

    CliHarness.Run run = cli.with(Map.of(ProgressLine.VARIABLE, "always")).run("doctor", "--self-check");

    assertThat(run.err()).as(run.out()).containsPattern("\\d+ requests, ").endsWith(ERASE);
    assertThat(run.out()).doesNotContain("\r");
  }

  @Test
  void aBadValue_isAUsageError() {
    CliHarness.Run bad = new CliHarness(home, checkout).with(Map.of(ProgressLine.VARIABLE, "sometimes"))
        .run("entries", "put", "@acme/x", "1");
    assertThat(bad.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(bad.err()).contains(ProgressLine.VARIABLE).endsWith("[invalid_input]\n");
  }

  @Test
  void theLineNamesWhatACallIsAbout_andSizesAsPeopleReadThem() {
    assertThat(ProgressLine.about(ObjectKey.of("ns/config/pulled-archives/@acme/tool/" + "a".repeat(64) + ".tar.gz")))
        .isEqualTo("@acme/tool");
    assertThat(ProgressLine.about(ObjectKey.of("config/upstream_extensions.json"))).isEqualTo("the shared lockfile");
    assertThat(ProgressLine.size(512)).isEqualTo("512 B");
    assertThat(ProgressLine.size(1536)).isEqualTo("1.5 KiB");
    assertThat(ProgressLine.size(3L * 1024 * 1024)).isEqualTo("3.0 MiB");
  }
}
