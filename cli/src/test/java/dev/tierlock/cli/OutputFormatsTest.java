package dev.tierlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tierlock.Environment;
import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileEntry;
import dev.tierlock.PublishFailurePolicy;
import dev.tierlock.Tierlock;
import dev.tierlock.TransactionStatus;
import dev.tierlock.datastore.fs.FileSystemDatastore;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import dev.tierlock.testkit.FakeRegistry;
import dev.tierlock.testkit.TestArchives;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The output of every command that prints data: tables with one header and column order, and one JSON style. */
class OutputFormatsTest {

  private static final String SHA = "b".repeat(64);

  @TempDir Path home;
  @TempDir Path checkout;
  @TempDir Path registryDir;

  private CliHarness cli;

  @BeforeEach
  void setUp() {
    cli = new CliHarness(home, checkout);
  }

  private void installTool() {
    FakeRegistry.directory(registryDir).publish("@acme/tool", "1.0.0",
        TestArchives.extension("@acme/tool", "1.0.0").file("lib/a.txt", "a").build());
    CliHarness.Run install = cli.run("install", "@acme/tool@1.0.0", "--registry", registryDir.toString());
    assertThat(install.code()).as(install.err()).isZero();
  }

  @Test
  void installedAndStatus_printAHeader_andTheSameColumnsInTheSameOrder_andNoHeadersLeavesItOut() {
    installTool();

    CliHarness.Run installed = cli.run("installed");
    CliHarness.Run status = cli.run("status");
    CliHarness.Run bare = cli.run("installed", "--no-headers");
    CliHarness.Run bareStatus = cli.run("status", "--no-headers");

    assertThat(installed.lines()).containsExactly("NAME\tPINNED\tINSTALLED\tSTATE", "@acme/tool\t1.0.0\t1.0.0\tmatches");
    assertThat(status.lines().get(0)).isEqualTo("NAME\tPINNED\tINSTALLED\tSTATE\tDETAIL");
    assertThat(status.lines().get(1)).startsWith("@acme/tool\t1.0.0\t1.0.0\t");
    assertThat(bare.lines()).containsExactly("@acme/tool\t1.0.0\t1.0.0\tmatches");
    assertThat(bareStatus.lines()).containsExactly(status.lines().get(1));
  }

  @Test
  void entriesList_printsAHeader_andNoHeadersPrintsNothingForAnEmptyLockfile() {
    assertThat(cli.run("init").code()).isZero();
    assertThat(cli.run("entries", "list", "--no-headers").out()).isEmpty();
    cli.run("entries", "put", "@acme/hello", "1.0.0", "--checksum", SHA);

    CliHarness.Run list = cli.run("entries", "list");
    CliHarness.Run bare = cli.run("entries", "list", "--no-headers");

    assertThat(list.lines()).containsExactly("NAME\tVERSION\tPULLED-AT\tCHECKSUM",
        "@acme/hello\t1.0.0\t2026-11-29T10:00:00.000Z\tsha256:bbbbbbbbbbbb");
    assertThat(bare.lines()).containsExactly(list.lines().get(1));
  }

  @Test
  void everyCommandThatPrintsData_writesJson_withTheSchemaAndItsName_andLowercaseValues() {
    installTool();
    Map<List<String>, String> commands = Map.of(
        List.of("entries", "list", "--json"), "entries list",
        List.of("entries", "show", "@acme/tool", "--json"), "entries show",
        List.of("lock", "status", "--json"), "lock status",
        List.of("pending", "show", "--json"), "pending show",
        List.of("installed", "--json"), "installed",
        List.of("status", "--json"), "status",
        List.of("converge", "--json"), "converge",
        List.of("gc", "--json"), "gc",
        List.of("doctor", "--json"), "doctor");
    for (Map.Entry<List<String>, String> command : commands.entrySet()) {
      CliHarness.Run run = cli.run(command.getKey().toArray(String[]::new));

      assertThat(run.code()).as("%s: %s", command.getKey(), run.err()).isZero();
      JsonNode document = run.json();
      assertThat(document.get("schema").asInt()).as("%s", command.getKey()).isEqualTo(JsonReport.SCHEMA);
      assertThat(document.fieldNames().next()).as("schema comes first").isEqualTo("schema");
      assertThat(document.get("command").asText()).isEqualTo(command.getValue());
    }

    assertThat(cli.run("status", "--json").json().get("extensions").get(0).get("state").asText())
        .isIn("verified", "unverified");
    assertThat(cli.run("installed", "--json").json().get("extensions").get(0).get("state").asText()).isEqualTo("matches");
    assertThat(cli.run("converge", "--json").json().get("outcome").asText()).isIn("converged", "unchanged");
    assertThat(cli.run("lock", "status", "--json").json().get("state").asText()).isEqualTo("free");
    assertThat(cli.run("pending", "show", "--json").json().get("pending").isNull()).isTrue();
    JsonNode entry = cli.run("entries", "show", "@acme/tool", "--json").json().get("entry");
    assertThat(entry.get("version").asText()).isEqualTo("1.0.0");
    assertThat(entry.get("channel").isNull()).isTrue();
  }

  @Test
  void entriesListAndShow_raw_printTheLockfileAsStored() throws Exception {
    cli.run("entries", "put", "@acme/hello", "1.0.0");

    assertThat(cli.run("entries", "list", "--raw").out())
        .isEqualTo(java.nio.file.Files.readString(cli.datastore().resolve("config/upstream_extensions.json")));
    assertThat(cli.run("entries", "show", "@acme/hello").out()).contains("version:        1.0.0")
        .contains("checksum:       - (pins no archive)");
  }

  @Test
  void status_marksAChangeOnlyPendingLocally_asPendingPublish_notAsPinned() {
    installTool();
    ExtensionName other = ExtensionName.of("@acme/other");
    try (FileSystemDatastore store = FileSystemDatastore.open(cli.datastore());
        Tierlock tierlock = Tierlock.builder().datastore(refusingLockfileWrites(store)).checkout(checkout)
            .environment(Environment.system().withClock(CliHarness.CLOCK))
            .publishFailurePolicy(PublishFailurePolicy.DEFER).maxPublishAttempts(1).build()) {
      LockfileEntry entry = LockfileEntry.builder("2.0.0", CliHarness.CLOCK.instant()).build();
      assertThat(tierlock.transaction().run(tx -> tx.withPulledExtensionsLock(() -> {
        tx.put(ExtensionName.of("@acme/tool"), entry);
        tx.put(other, entry);
        return null;
      })).status()).isEqualTo(TransactionStatus.DEFERRED);
    }

    CliHarness.Run status = cli.run("status", "--no-headers");
    JsonNode json = cli.run("status", "--json").json();

    assertThat(status.code()).as(status.err()).isZero();
    assertThat(status.lines()).contains("@acme/tool\t1.0.0\t1.0.0\tpending publish\tsaved locally, not yet published:"
        + " 2.0.0 (tierlock pending show)");
    assertThat(status.lines()).contains("@acme/other\t-\t-\tpending publish\tsaved locally, not yet published: 2.0.0"
        + " (tierlock pending show)");
    JsonNode tool = json.get("extensions").get(1);
    assertThat(tool.get("name").asText()).isEqualTo("@acme/tool");
    assertThat(tool.get("state").asText()).isEqualTo("pending publish");
    assertThat(tool.get("pinned").asText()).isEqualTo("1.0.0");
    assertThat(tool.get("localChange").asText()).isEqualTo("2.0.0");
  }

  /** {@code store}, but every write of the shared lockfile fails as unavailable: a publish is deferred. */
  private static Datastore refusingLockfileWrites(Datastore store) {
    return new ForwardingDatastore() {
      @Override
      protected Datastore delegate() {
        return store;
      }

      @Override
      protected boolean passesPreconditionsThrough() {
        return true;
      }

      @Override
      public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
        if (key.value().endsWith("upstream_extensions.json")) {
          throw new DatastoreUnavailableException("Cannot write " + key + ": refused by the test", null);
        }
        return store.write(key, body, condition, metadata);
      }
    };
  }
}
