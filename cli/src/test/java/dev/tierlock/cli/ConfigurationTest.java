package dev.tierlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Settings without flags (environment variables and configuration files), and shell completion. */
class ConfigurationTest {

  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-06T10:00:00Z"), ZoneOffset.UTC);

  @TempDir Path dir;

  private record Run(int code, String out, String err) {}

  private Run run(Map<String, String> env, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    Map<String, String> all = new HashMap<>(Map.of(TierlockCli.HOME_VARIABLE, dir.resolve("home").toString(),
        "XDG_CONFIG_HOME", dir.resolve("config").toString()));
    all.putAll(env);
    int code = TierlockCli.run(args, all, CLOCK, new PrintWriter(out, true), new PrintWriter(err, true));
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void variables_setTheDatastoreCheckoutAndTimeout_andAFlagWins() throws IOException {
    Path checkout = Files.createDirectories(dir.resolve("checkout"));
    Path tier = dir.resolve("tier");
    assertThat(run(Map.of(), "init", "--datastore", tier.toString()).code()).isZero();
    Map<String, String> env = Map.of("TIERLOCK_DATASTORE", tier.toString(), "TIERLOCK_CHECKOUT", checkout.toString(),
        "TIERLOCK_TIMEOUT", "30s");

    Run put = run(env, "entries", "put", "@acme/env", "1.0.0", "--checksum", "ab".repeat(32));

    assertThat(put.code()).as(put.err()).isZero();
    assertThat(run(Map.of(), "entries", "list", "--datastore", tier.toString(), "--no-headers").out()).startsWith("@acme/env\t1.0.0");
    assertThat(checkout.resolve(".swamp")).as("the variable's checkout").isDirectory();

    Run flag = run(env, "entries", "list", "--datastore", dir.resolve("nowhere").toString());
    assertThat(flag.code()).as("the flag wins over the variable").isEqualTo(ExitCodes.USAGE);
    assertThat(flag.err()).contains("nowhere").endsWith("[datastore_missing]\n");

    Run badTimeout = run(Map.of("TIERLOCK_DATASTORE", tier.toString(), "TIERLOCK_TIMEOUT", "soon"), "entries", "list");
    assertThat(badTimeout.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(badTimeout.err()).startsWith("tierlock: Cannot use TIERLOCK_TIMEOUT \"soon\": give a positive duration");
  }

  @Test
  void theCheckoutsFile_setsItsDatastore_relativeToTheCheckout_andDoctorSaysWhereEachSettingCameFrom()
      throws IOException {
    Path checkout = Files.createDirectories(dir.resolve("checkout"));
    assertThat(run(Map.of(), "init", "--datastore", checkout.resolve("tier").toString()).code()).isZero();
    Files.writeString(checkout.resolve(".tierlock.toml"), "datastore = \"tier\"\nnamespace = \"team\"\n");

    Run put = run(Map.of(), "--checkout", checkout.toString(), "entries", "put", "@acme/file", "2.0.0", "--checksum",
        "cd".repeat(32));
    assertThat(put.code()).as(put.err()).isZero();
    assertThat(Files.exists(checkout.resolve("tier/team/config/upstream_extensions.json"))
        || Files.exists(checkout.resolve("tier/objects/team/config/upstream_extensions.json"))
        || run(Map.of(), "entries", "list", "--datastore", checkout.resolve("tier").toString(), "--namespace", "team")
            .out().startsWith("@acme/file\t2.0.0")).as("written in the file's datastore and namespace").isTrue();

    Run doctor = run(Map.of("TIERLOCK_TIMEOUT", "45s"), "--checkout", checkout.toString(), "doctor");
    assertThat(doctor.out()).contains("configuration").contains("datastore=tier (" + checkout.resolve(".tierlock.toml")
        + ")").contains("namespace=team (").contains("timeout=45s (TIERLOCK_TIMEOUT)")
        .contains("checkout=" + checkout + " (--checkout)").contains("precedence: flag > TIERLOCK_* variable");
  }

  @Test
  void aBrokenConfigurationFile_isAUsageError_namingTheFileAndLine() throws IOException {
    Files.createDirectories(dir.resolve("config/tierlock"));
    Files.writeString(dir.resolve("config/tierlock/config.toml"), "timeout = 30s\n");

    Run list = run(Map.of(), "entries", "list");

    assertThat(list.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(list.err()).contains("Cannot read configuration file " + dir.resolve("config/tierlock/config.toml")
        + " line 1").endsWith("[invalid_input]\n");
  }

  @Test
  void completion_isGeneratedFromTheCommandLine_forBashAndZsh() {
    Run bash = run(Map.of(), "completion", "bash");
    Run zsh = run(Map.of(), "completion", "zsh");

    assertThat(bash.code()).isZero();
    assertThat(bash.out()).contains("complete -F").contains("entries").contains("converge").contains("--datastore")
        .contains("--ignore-not-found");
    assertThat(zsh.out()).startsWith("autoload -U +X compinit && compinit\nautoload -U +X bashcompinit && bashcompinit\n")
        .contains("complete -F");
    assertThat(run(Map.of(), "completion", "fish").code()).isEqualTo(ExitCodes.USAGE);
  }
}
