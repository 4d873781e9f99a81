package dev.tierlock.datastore.fs;

import static dev.tierlock.datastore.fs.InstallCrashChild.TOOL;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Tierlock;
import dev.tierlock.install.Catalog;
import dev.tierlock.install.InstallRequest;
import dev.tierlock.install.InstalledExtension;
import dev.tierlock.install.Installer;
import dev.tierlock.install.RecoveryReport;
import dev.tierlock.testkit.FakeRegistry;
import dev.tierlock.testkit.TestArchives;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crash at every step of an install, an upgrade and a removal, end to end: a child JVM runs the
 * step on a checkout of a filesystem datastore and is killed with SIGKILL at one boundary (the
 * boundaries are those the engine reports, enumerated by a first run of the same step, so a new one
 * is covered without editing this test); then a fresh process's {@link Installer#recover()} (taking
 * over the dead child's lease and locks) must leave the extension as one whole version (the old or
 * the new, never a mix, never nothing after an upgrade), the shared lockfile pinning exactly the
 * version on disk, and no journal behind.
 */
class InstallCrashProcessTest {

  private static final ExtensionName NAME = ExtensionName.of(TOOL);

  @TempDir
  Path dir;

  private int runs;

  /** One run's world. */
  private record World(Path datastore, Path checkout, Path registry) {}

  @TestFactory
  Stream<DynamicTest> install_killedAtEveryBoundary_recoversToNothingOrV1() throws Exception {
    return crashes("install", List.of(Version.NONE, Version.V1));
  }

  @TestFactory
  Stream<DynamicTest> upgrade_killedAtEveryBoundary_recoversToV1OrV2_neverNothing() throws Exception {
    return crashes("upgrade", List.of(Version.V1, Version.V2));
  }

  @TestFactory
  Stream<DynamicTest> remove_killedAtEveryBoundary_recoversToV1OrNothing() throws Exception {
    return crashes("remove", List.of(Version.V1, Version.NONE));
  }

  private enum Version { NONE, V1, V2 }

  private Stream<DynamicTest> crashes(String step, List<Version> allowed) throws Exception {
    World recorded = world(step);
    List<String> boundaries = new ArrayList<>();
    try (ChildJvm child = ChildJvm.start(InstallCrashChild.class, step, recorded.datastore().toString(),
        recorded.checkout().toString(), recorded.registry().toString(), "record")) {
      for (String line = child.nextLine(); !line.equals("done"); line = child.nextLine()) {
        boundaries.add(line.substring("boundary ".length()));
      }
    }
    assertThat(boundaries).as("the engine reports its boundaries").contains("journal-written", "journal-swapped",
        "installer/applied", "installer/published");
    assertThat(onDisk(recorded)).as("the step run through").isEqualTo(allowed.get(1));
    // and inside the publish: the pending record is durable, the lockfile not yet written
    boundaries.add(boundaries.indexOf("installer/published"), InstallCrashChild.LOCKFILE_WRITE);
    return boundaries.stream().distinct().map(boundary -> DynamicTest.dynamicTest(step + " killed at " + boundary,
        () -> killedAt(step, boundary, allowed)));
  }

  private void killedAt(String step, String boundary, List<Version> allowed) throws Exception {
    World world = world(step);
    try (ChildJvm child = ChildJvm.start(InstallCrashChild.class, step, world.datastore().toString(),
        world.checkout().toString(), world.registry().toString(), boundary)) {
      assertThat(child.nextLine()).isEqualTo("at " + boundary);
      child.kill();
    }

    RecoveryReport report;
    List<InstalledExtension> installed;
    Lockfile shared;
    try (Tierlock tierlock = open(world)) {
      Installer installer = Installer.builder(tierlock, InstallCrashChild.layout(world.checkout())).build();
      report = installer.recover();
      installed = installer.installed();
      shared = tierlock.snapshot();
    }

    Version version = onDisk(world);
    assertThat(allowed).as("after a kill at %s: one whole version (%s)", boundary, report).contains(version);
    Optional<String> pinned = shared.entry(NAME).map(LockfileEntry::version);
    assertThat(pinned).as("the lockfile pins what is on disk").isEqualTo(switch (version) {
      case NONE -> Optional.empty();
      case V1 -> Optional.of("1.0.0");
      case V2 -> Optional.of("2.0.0");
    });
    assertThat(installed).allSatisfy(e -> assertThat(e.state()).isEqualTo(InstalledExtension.State.MATCHES));
    assertThat(report.left()).isEmpty();
    assertThat(journals(world)).as("no journal is left").isEmpty();
    if (boundary.equals(InstallCrashChild.LOCKFILE_WRITE) || boundary.equals("installer/published")
        || boundary.startsWith("commit/")) {
      assertThat(version).as("killed after the publish: the new state stays").isEqualTo(allowed.get(1));
    }
  }

  /** A fresh datastore, checkout and registry; v1 installed on the checkout first unless the step is the install. */
  private World world(String step) throws IOException {
    Path root = dir.resolve("run-" + (++runs));
    World world = new World(root.resolve("datastore"), root.resolve("checkout"), root.resolve("registry"));
    Files.createDirectories(world.datastore());
    Files.createDirectories(world.checkout());
    FakeRegistry registry = FakeRegistry.directory(world.registry());
    registry.publish(TOOL, "1.0.0", v1());
    registry.publish(TOOL, "2.0.0", v2());
    if (!step.equals("install")) {
      try (Tierlock tierlock = open(world)) {
        Installer.builder(tierlock, InstallCrashChild.layout(world.checkout())).registry(registry).build()
            .install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);
      }
    }
    return world;
  }

  private static Tierlock open(World world) {
    return Tierlock.builder().datastore(FileSystemDatastore.open(world.datastore())).checkout(world.checkout()).build();
  }

  private static byte[] v1() {
    return TestArchives.extension(TOOL, "1.0.0").file("lib/a.txt", "a1").file("lib/only-v1.txt", "v1").build();
  }

  private static byte[] v2() {
    return TestArchives.extension(TOOL, "2.0.0").file("lib/a.txt", "a2").file("lib/only-v2.txt", "v2").build();
  }

  /** Returns which whole version the extension root holds; fails on a mix. */
  private static Version onDisk(World world) {
    TreeMap<String, String> files = tree(world.checkout().resolve("extensions").resolve("@acme").resolve("tool"));
    if (files.isEmpty()) {
      return Version.NONE;
    }
    if (files.equals(expected("1.0.0", "a1", "lib/only-v1.txt", "v1"))) {
      return Version.V1;
    }
    if (files.equals(expected("2.0.0", "a2", "lib/only-v2.txt", "v2"))) {
      return Version.V2;
    }
    throw new AssertionError("a mix of versions on disk: " + files);
  }

  private static TreeMap<String, String> expected(String version, String a, String only, String onlyText) {
    TreeMap<String, String> files = new TreeMap<>();
    files.put("lib/a.txt", a);
    files.put(only, onlyText);
    files.put("manifest.json", "version " + version);
    return files;
  }

  private static TreeMap<String, String> tree(Path root) {
    TreeMap<String, String> files = new TreeMap<>();
    if (!Files.isDirectory(root)) {
      return files;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.filter(Files::isRegularFile).toList()) {
        String rel = root.relativize(p).toString().replace('\\', '/');
        String text = Files.readString(p);
        files.put(rel, rel.equals("manifest.json") ? "version " + text.replaceAll("(?s).*\"version\"\\s*:\\s*\"([^\"]+)\".*", "$1")
            : text);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  private static List<Path> journals(World world) throws IOException {
    Path staging = world.checkout().resolve("extensions").resolve(".tierlock-staging");
    if (!Files.isDirectory(staging)) {
      return List.of();
    }
    try (Stream<Path> walk = Files.walk(staging)) {
      return walk.filter(p -> p.getFileName().toString().equals("journal.json")).toList();
    }
  }
}
