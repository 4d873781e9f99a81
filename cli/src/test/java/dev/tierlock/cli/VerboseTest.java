package dev.tierlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.Namespace;
import dev.tierlock.datastore.fs.FileSystemDatastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.WriteCondition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code -v}: one line per step of the library's work; {@code -vv}: every datastore call with its duration. */
class VerboseTest {

  @TempDir Path home;
  @TempDir Path checkout;

  private CliHarness cli;

  @BeforeEach
  void setUp() {
    cli = new CliHarness(home, checkout);
  }

  private static List<String> said(CliHarness.Run run) {
    return run.err().lines().filter(l -> l.startsWith("tierlock: ")).map(l -> l.substring(10)).toList();
  }

  @Test
  void put_withV_saysEachStep_inOrder_andWithoutIt_saysNone() {
    assertThat(cli.run("init").code()).isZero();

    CliHarness.Run first = cli.run("-v", "entries", "put", "@acme/hello", "1.0.0", "--checksum", "c".repeat(64));
    CliHarness.Run second = cli.run("--verbose", "entries", "put", "@acme/hello", "1.1.0", "--checksum", "d".repeat(64));
    CliHarness.Run quiet = cli.run("entries", "put", "@acme/hello", "1.2.0", "--checksum", "e".repeat(64));

    assertThat(first.code()).as(first.err()).isZero();
    List<String> steps = said(first);
    assertThat(steps).filteredOn(l -> l.matches("lease acquired in \\d+ ms")).hasSize(1);
    assertThat(steps).contains("no shared lockfile yet", "publish conditional on no object there yet", "lease released");
    assertThat(steps).anyMatch(l -> l.matches("landed as version \\S+"));
    assertThat(indexOf(steps, "lease acquired")).isLessThan(indexOf(steps, "publish conditional"));
    assertThat(indexOf(steps, "publish conditional")).isLessThan(indexOf(steps, "landed as version"));
    assertThat(indexOf(steps, "landed as version")).isLessThan(indexOf(steps, "lease released"));
    String landed = steps.get(indexOf(steps, "landed as version")).substring("landed as version ".length());

    assertThat(second.code()).as(second.err()).isZero();
    assertThat(said(second)).anyMatch(l -> l.equals("publish conditional on version " + landed));
    assertThat(said(second)).anyMatch(l -> l.startsWith("lockfile ") || l.equals("lease released"));
    assertThat(quiet.err()).doesNotContain("lease acquired").doesNotContain("publish").doesNotContain("datastore ");
  }

  @Test
  void put_withVV_saysEveryDatastoreCall_withItsDuration() {
    assertThat(cli.run("init").code()).isZero();

    CliHarness.Run put = cli.run("-vv", "entries", "put", "@acme/hello", "1.0.0");

    assertThat(put.code()).as(put.err()).isZero();
    assertThat(said(put)).anyMatch(l -> l.matches("datastore write \\.datastore\\.lock conditional on no object there"
        + " yet \\(\\d+ bytes\\): version \\S+ \\(\\d+ ms\\)"));
    assertThat(said(put)).anyMatch(l -> l.matches("datastore write config/upstream_extensions\\.json .*: version \\S+"
        + " \\(\\d+ ms\\)"));
    assertThat(said(put)).anyMatch(l -> l.matches("datastore delete \\.datastore\\.lock conditional on version \\S+:"
        + " deleted \\(\\d+ ms\\)"));
  }

  @Test
  void tracedStore_measuresTheLeaseWait_fromTheFirstLookAtTheLock_onItsClock() throws IOException {
    AtomicLong nanos = new AtomicLong();
    List<String> lines = new ArrayList<>();
    try (FileSystemDatastore store = FileSystemDatastore.open(Files.createDirectories(home.resolve("store")))) {
      TracedDatastore traced = new TracedDatastore(store, Namespace.NONE, 1, lines::add, nanos::get);
      ObjectKey lock = ObjectKey.of(".datastore.lock");
      traced.stat(lock);
      nanos.addAndGet(42_000_000);
      traced.write(lock, ObjectBody.of(new byte[] {1}), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);

      assertThat(traced.held()).isTrue();
      assertThat(lines).containsExactly("lease acquired in 42 ms");
    }
  }

  private static int indexOf(List<String> lines, String prefix) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).startsWith(prefix)) {
        return i;
      }
    }
    throw new AssertionError("no line starts with " + prefix + ": " + lines);
  }
}
