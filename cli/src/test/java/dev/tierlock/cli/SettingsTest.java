package dev.tierlock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SettingsTest {

  @TempDir Path dir;

  private Path cwd() throws IOException {
    return Files.createDirectories(dir.resolve("work"));
  }

  private Map<String, String> env(String... pairs) {
    Map<String, String> env = new HashMap<>(Map.of("XDG_CONFIG_HOME", dir.resolve("config").toString()));
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return env;
  }

  private void userFile(String text) throws IOException {
    Files.createDirectories(dir.resolve("config/tierlock"));
    Files.writeString(dir.resolve("config/tierlock/config.toml"), text);
  }

  @Test
  void eachSetting_comesFromTheFirstPlaceThatSetsIt_flagThenVariableThenCheckoutFileThenUserFileThenDefault()
      throws IOException {
    Path cwd = cwd();
    userFile("# the user's\ndatastore = \"s3://user/tier\"\nnamespace = \"user-ns\"\ntimeout = \"5m\"\n");
    Files.writeString(cwd.resolve(".tierlock.toml"), "datastore = \"./tier\"  # beside the checkout\nnamespace = \"local\"\n");
    Map<String, String> flags = new HashMap<>();
    flags.put("timeout", "30s");

    Settings settings = Settings.resolve(flags, env("TIERLOCK_NAMESPACE", "from-env"), cwd);

    assertThat(settings.get("timeout").value()).contains("30s");
    assertThat(settings.get("timeout").source()).isEqualTo("--timeout");
    assertThat(settings.get("namespace").value()).contains("from-env");
    assertThat(settings.get("namespace").source()).isEqualTo("TIERLOCK_NAMESPACE");
    assertThat(settings.get("datastore").value()).contains("./tier");
    assertThat(settings.get("datastore").source()).isEqualTo(cwd.resolve(".tierlock.toml").toString());
    assertThat(settings.get("datastore").base()).as("relative to the file").isEqualTo(cwd);
    assertThat(settings.get("checkout").value()).isEmpty();
    assertThat(settings.get("checkout").source()).isEqualTo("default");

    Settings userOnly = Settings.resolve(Map.of(), env(), dir);
    assertThat(userOnly.get("datastore").value()).contains("s3://user/tier");
    assertThat(userOnly.get("timeout").value()).contains("5m");
    assertThat(userOnly.get("datastore").source()).endsWith("tierlock/config.toml");
  }

  @Test
  void theCheckoutsFile_isTheNamedCheckouts() throws IOException {
    Path other = Files.createDirectories(dir.resolve("other"));
    Files.writeString(other.resolve(".tierlock.toml"), "namespace = \"other\"\n");

    Settings settings = Settings.resolve(Map.of(), env("TIERLOCK_CHECKOUT", other.toString()), cwd());

    assertThat(settings.get("namespace").value()).contains("other");
  }

  @Test
  void aFileThatBreaksTheRules_isRefusedNamingTheFileAndTheLine() throws IOException {
    Path cwd = cwd();
    Path file = cwd.resolve(".tierlock.toml");
    for (String[] bad : new String[][] {
        {"timeout = 30s\n", "line 1: a value is a string in double quotes"},
        {"\n# ok\ncolour = \"blue\"\n", "line 3: unknown key \"colour\""},
        {"checkout = \"/x\"\n", "checkout only in the user's file"},
        {"namespace = \"a\"\nnamespace = \"b\"\n", "line 2: \"namespace\" is set twice"},
        {"namespace = \"open\n", "the string is not closed"},
        {"namespace\n", "give key = \"value\""}}) {
      Files.writeString(file, bad[0]);
      assertThatThrownBy(() -> Settings.resolve(Map.of(), env(), cwd)).as(bad[0])
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Cannot read configuration file " + file)
          .hasMessageContaining(bad[1]);
    }
  }

  @Test
  void anEmptyVariable_setsNothing() throws IOException {
    Settings settings = Settings.resolve(Map.of(), env("TIERLOCK_DATASTORE", ""), cwd());

    assertThat(settings.get("datastore").value()).isEqualTo(Optional.empty());
  }
}
