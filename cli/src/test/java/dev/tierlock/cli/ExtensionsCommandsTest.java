package dev.tierlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tierlock install}, {@code remove} and {@code installed} on the embedded default datastore. */
class ExtensionsCommandsTest {

  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-29T10:00:00.000Z"), ZoneOffset.UTC);

  @TempDir Path home;
  @TempDir Path checkout;
  @TempDir Path peer;
  @TempDir Path registryDir;

  private record Run(int code, String out, String err) {}

  private Run run(Path at, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    String[] all = Stream.concat(Stream.of(args), Stream.of("--checkout", at.toString())).toArray(String[]::new);
    int code = TierlockCli.run(all, Map.of(TierlockCli.HOME_VARIABLE, home.toString()), CLOCK, new PrintWriter(out, true),
        new PrintWriter(err, true));
    return new Run(code, out.toString(), err.toString());
  }

  private FakeRegistry registry() {
    FakeRegistry registry = FakeRegistry.directory(registryDir);
    registry.publish("@acme/tool", "1.0.0", TestArchives.extension("@acme/tool", "1.0.0").file("lib/a.txt", "a").build());
    registry.publish("@acme/tool", "1.1.0", TestArchives.extension("@acme/tool", "1.1.0").file("lib/a.txt", "b").build());
    return registry;
  }

  @Test
  void install_fromADirectoryRegistry_thenAPeerRestoresFromTheTier_thenRemove() throws IOException {
    registry();

    Run install = run(checkout, "install", "@acme/tool@^1", "--registry", registryDir.toString());
    assertThat(install.code()).as(install.err()).isZero();
    assertThat(install.out()).contains("@acme/tool@1.1.0\tinstalled from the registry").contains("(published)");
    assertThat(Files.readString(checkout.resolve("extensions/@acme/tool/lib/a.txt"))).isEqualTo("b");

    Run restore = run(peer, "install", "@acme/tool");
    assertThat(restore.code()).as(restore.err()).isZero();
    assertThat(restore.out()).contains("@acme/tool@1.1.0\tinstalled from the tier");
    assertThat(run(peer, "installed").out()).contains("@acme/tool\t1.1.0\t1.1.0\tmatches");

    Run removed = run(checkout, "remove", "@acme/tool");
    assertThat(removed.code()).as(removed.err()).isZero();
    assertThat(removed.out()).isEqualTo("removed @acme/tool (1.1.0 from extensions/, entry 1.1.0 from the shared"
        + " lockfile) (published)\n");
    assertThat(checkout.resolve("extensions/@acme/tool")).doesNotExist();
    assertThat(run(checkout, "installed").out()).as("this checkout has neither files nor entry")
        .contains("(nothing installed, no entries)");
    assertThat(run(peer, "installed").out()).as("the peer keeps its files, no longer pinned")
        .contains("@acme/tool\t-\t1.1.0\tunrecorded");
  }

  @Test
  void install_withoutAName_installsWhatTheLockfilePins_andBackfillsTheArchiveTheTierLacks() throws IOException {
    FakeRegistry registry = registry();
    byte[] base = TestArchives.extension("@acme/base", "1.0.0").file("b.txt", "b").build();
    registry.publish("@acme/base", "1.0.0", base);
    assertThat(run(checkout, "install", "@acme/tool@1.0.0", "--registry", registryDir.toString()).code()).isZero();
    assertThat(run(checkout, "install", "@acme/base@1.0.0", "--registry", registryDir.toString()).code()).isZero();
    Path baseArchive = tierArchive(TestArchives.sha256(base));
    Files.delete(baseArchive);

    Run all = run(peer, "install", "--registry", registryDir.toString());

    assertThat(all.code()).as(all.err()).isZero();
    assertThat(all.out()).contains("@acme/base@1.0.0\tinstalled from the registry\tarchive backfilled\n")
        .contains("@acme/tool@1.0.0\tinstalled from the tier\tarchive in the tier\n")
        .contains("(2 entries: 2 installed, 1 backfilled, 0 failed)");
    assertThat(Files.readAllBytes(baseArchive)).as("back in the tier, byte for byte").isEqualTo(base);
    assertThat(Files.readString(peer.resolve("extensions/@acme/base/b.txt"))).isEqualTo("b");

    Run again = run(checkout, "install");

    assertThat(again.code()).as(again.err()).isZero();
    assertThat(again.out()).contains("@acme/base@1.0.0\talready installed\tarchive in the tier\n")
        .contains("@acme/tool@1.0.0\talready installed\tarchive in the tier\n")
        .contains("(2 entries: 0 installed, 0 backfilled, 0 failed)");
  }

  @Test
  void install_withoutAName_andWithoutARegistry_reportsEachEntry_andExitsWithTheFailuresCode() throws IOException {
    registry();
    assertThat(run(checkout, "install", "@acme/tool@1.0.0", "--registry", registryDir.toString()).code()).isZero();
    byte[] tool = Files.readAllBytes(registryDir.resolve("@acme/tool/1.0.0.tar.gz"));
    Files.delete(tierArchive(TestArchives.sha256(tool)));

    Run offline = run(peer, "install");

    assertThat(offline.code()).isEqualTo(ExitCodes.UNAVAILABLE);
    assertThat(offline.out()).contains("@acme/tool@1.0.0\tinstall failed\tbackfill skipped (no registry)\n")
        .contains("(1 entries: 0 installed, 0 backfilled, 1 failed)");
    assertThat(offline.err()).as("one line, no stack trace").doesNotContain("\tat ")
        .contains("tierlock: @acme/tool: ").contains("[registry_unavailable]");
    assertThat(peer.resolve("extensions/@acme/tool")).doesNotExist();
    assertThat(run(peer, "install").out()).isEqualTo(offline.out());
  }

  @Test
  void install_withoutAName_ofAnEmptyLockfile_saysSo() {
    Run nothing = run(checkout, "install");

    assertThat(nothing.code()).as(nothing.err()).isZero();
    assertThat(nothing.out()).contains("(nothing pinned: the shared lockfile has no entries)");
  }

  /** Returns the embedded datastore's file holding the archive of {@code sha256}. */
  private Path tierArchive(String sha256) throws IOException {
    try (Stream<Path> files = Files.walk(home)) {
      List<Path> found = files.filter(p -> p.getFileName().toString().equals(sha256 + ".tar.gz")).toList();
      assertThat(found).as("the tier holds the archive once").hasSize(1);
      return found.get(0);
    }
  }

  @Test
  void install_unknownVersion_isNotFound_andChangesNothing() {
    registry();

    Run missing = run(checkout, "install", "@acme/tool@9.9.9", "--registry", registryDir.toString());

    assertThat(missing.code()).isEqualTo(ExitCodes.NOT_FOUND);
    assertThat(missing.err()).contains("[registry_not_found]").contains("@acme/tool@9.9.9");
    assertThat(checkout.resolve("extensions/@acme/tool")).doesNotExist();
  }

  @Test
  void install_withoutARegistry_andNothingInTheTier_isUnavailable_inOneLine() {
    Run offline = run(checkout, "install", "@acme/tool");

    assertThat(offline.code()).isEqualTo(ExitCodes.UNAVAILABLE);
    assertThat(offline.err()).as("one line, no stack trace").doesNotContain("\tat ").doesNotContain("Exception");
    assertThat(offline.err()).contains("[registry_unavailable]");
  }

  @Test
  void install_badConstraint_isUsage() {
    Run bad = run(checkout, "install", "@acme/tool@not a version!!", "--registry", registryDir.toString());

    assertThat(bad.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(bad.err()).contains("Cannot read version constraint");
  }

  @Test
  void remove_ofNothing_isNotFound_unlessIgnored_asKubectlDoes() {
    Run nothing = run(checkout, "remove", "@acme/none");

    assertThat(nothing.code()).isEqualTo(ExitCodes.NOT_FOUND);
    assertThat(nothing.err()).endsWith("tierlock: Cannot remove @acme/none: it is neither installed nor in the shared"
        + " lockfile (--ignore-not-found makes that no error) [not_found]\n");

    Run ignored = run(checkout, "remove", "@acme/none", "--ignore-not-found");
    assertThat(ignored.code()).as(ignored.err()).isZero();
    assertThat(ignored.out()).isEqualTo("(nothing to remove: @acme/none is neither installed nor in the lockfile)\n");
  }

  @Test
  void install_withARegistryThatIsNotThere_isAUsageError_beforeAnythingIsOpened() throws IOException {
    Path typo = registryDir.resolveSibling("registyr");

    Run install = run(checkout, "install", "@acme/tool", "--registry", typo.toString());

    assertThat(install.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(install.err()).startsWith("tierlock: Cannot use --registry \"" + typo + "\": no such directory")
        .endsWith("[invalid_input]\n");
    assertThat(home.resolve("datastore")).as("nothing was opened, so nothing was created").doesNotExist();

    // the same when the tier holds the archive, which the install would not have needed the registry for
    registry();
    assertThat(run(checkout, "install", "@acme/tool@1.0.0", "--registry", registryDir.toString()).code()).isZero();
    Run again = run(peer, "install", "@acme/tool", "--registry", typo.toString());
    assertThat(again.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(peer.resolve("extensions/@acme/tool")).doesNotExist();
  }

  @Test
  void install_registryNotFound_namesTheRegistry() {
    registry();

    Run missing = run(checkout, "install", "@acme/tool@9.9.9", "--registry", registryDir.toString());

    assertThat(missing.err()).contains("Cannot find @acme/tool@9.9.9 in the directory registry "
        + registryDir.toAbsolutePath().normalize() + " [registry_not_found]");
  }
}
