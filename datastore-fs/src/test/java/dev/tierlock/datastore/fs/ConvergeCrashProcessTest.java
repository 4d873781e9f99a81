package dev.tierlock.datastore.fs;

import static dev.tierlock.datastore.fs.ConvergeCrashChild.RECORD;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileRead;
import dev.tierlock.Tierlock;
import dev.tierlock.install.Catalog;
import dev.tierlock.install.ConvergeReport;
import dev.tierlock.install.Converger;
import dev.tierlock.install.InstallRequest;
import dev.tierlock.install.Installer;
import dev.tierlock.testkit.FakeRegistry;
import dev.tierlock.testkit.TestArchives;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crash during a converge restore, end to end. A filesystem datastore is shared by checkout A, which
 * installs from a registry, and checkout B, which only converges. B has converged to v1 of {@value
 * #TOOL} and {@value #OTHER} (so its state verified both); A then upgrades {@value #TOOL} to v2 and
 * removes {@value #OTHER}, so B's next pass restores one and removes the other. A child JVM runs that
 * pass and is killed with SIGKILL at one swap boundary, for every boundary the pass reports
 * (enumerated by a first, uninterrupted run of the same pass, so a new one is covered without
 * editing this test): those of the restore, then those of the removal.
 *
 * <p>Then, in this JVM, a fresh checkout instance and converger on B must: find the
 * pulled-extensions lock free (the OS lock died with the child); recover the interrupted swap to
 * whole versions ({@value #TOOL} v1 or v2 byte for byte, never a mix, never nothing; {@value #OTHER}
 * v1 or gone); end with {@value #TOOL} at v2 byte for byte (as A installed it), {@value #OTHER} gone
 * and no journal left; and the pass after it must be {@link ConvergeReport.Outcome#UNCHANGED}. What the
 * dead child left in staging without a journal (its preparation, a committed swap's old files) is,
 * by design, swept only once older than recovery's sweep age (a live peer's preparation looks the
 * same); the test ages it and checks a pass then leaves staging empty.
 *
 * <p>"Whole versions after the kill" is checked where the next pass has recovered and not yet
 * swapped anything of its own (at its first boundary that is not a rollback's, or at its end when it
 * has nothing to swap): right after the kill, a swap cut at {@code moved-out/0} has, by design, no
 * live root until recovery moves it back, so the disk as the kill left it must only be whole or have
 * a journal in staging saying how to finish it.
 */
@DisplayName("Crash during a converge restore (child JVM, SIGKILL) recovers to old-or-new complete")
class ConvergeCrashProcessTest {

  static final String TOOL = "@acme/tool";
  static final String OTHER = "@acme/other";

  private static final String STAGING = ".tierlock-staging";

  /** Older than recovery's sweep age (an hour) for staging left without a journal. */
  private static final Duration PAST_SWEEP_AGE = Duration.ofHours(2);

  /** Where the template lives: the datastore every run shares, A's checkout, and B's as it is before a run. */
  @TempDir
  static Path shared;

  @TempDir
  Path dir;

  private int runs;

  /** One run's world: the shared datastore, checkout B, the exact trees A installed, the lockfile's version. */
  private record World(Path datastore, Path b, Tree v1, Tree v2, Tree other, String version) {}

  /** An extension root's directories (with a trailing {@code /}) and files (their bytes, as ISO-8859-1). */
  private record Tree(TreeMap<String, String> entries) {
    static final Tree NONE = new Tree(new TreeMap<>());

    boolean isEmpty() {
      return entries.isEmpty();
    }
  }

  /** What B's two extension roots hold at one moment. */
  private record Snapshot(Tree tool, Tree other) {}

  /** What a child's uninterrupted pass printed: the boundaries it passed, and its report line. */
  private record Recorded(List<String> labels, String report) {}

  // ---------------------------------------------------------------------------------------------

  @TestFactory
  Stream<DynamicTest> restoreAndRemoval_killedAtEveryBoundary_recoverToWholeVersions_thenConverge() throws Exception {
    Recorded recorded = record(world());
    List<String> labels = recorded.labels();
    assertThat(recorded.report()).as("the uninterrupted pass (boundaries %s)", labels)
        .isEqualTo("report CONVERGED restored=[" + TOOL + "] removed=[" + OTHER + "]");
    assertThat(labels).as("the boundaries of the restore").containsSubsequence("journal-written#1",
        "staging-filled#1", "moved-out/0#1", "moved-in/0#1", "manifest-in#1", "journal-swapped#1",
        "commit/journal-deleted#1");
    assertThat(labels).as("the boundaries of the removal, after the restore's swap").containsSubsequence(
        "journal-swapped#1", "journal-written#2", "moved-out/0#2", "journal-swapped#2", "commit/journal-deleted#2");
    int restoreSwapped = labels.indexOf("journal-swapped#1");
    int removalSwapped = labels.indexOf("journal-swapped#2");
    return labels.stream().map(label -> DynamicTest.dynamicTest("killed at " + label, () -> {
      World world = world();
      kill(world, label);
      int at = labels.indexOf(label);
      recoversThenConverges(world, label, at >= restoreSwapped, at >= removalSwapped);
    }));
  }

  /**
   * Killed again while the next pass rolls the first kill's swap back: the first kill cut the
   * restore with every new file in but before its journal said swapped, so the pass after it rolls
   * the restore back; the second kill falls at each rollback boundary of that pass.
   */
  @TestFactory
  Stream<DynamicTest> killedAgainWhileTheNextPassRollsBack_recoversToWholeVersions_thenConverges() throws Exception {
    String first = "manifest-in#1";
    World recorded = world();
    kill(recorded, first);
    List<String> second = record(recorded).labels().stream().filter(l -> l.startsWith("rollback/")).toList();
    assertThat(second).as("the pass after a kill at %s rolls the restore back", first)
        .containsSubsequence("rollback/discarded/0#1", "rollback/restored/0#1", "rollback/staging-deleted#1");
    return second.stream().map(label -> DynamicTest.dynamicTest("killed at " + first + ", then at " + label, () -> {
      World world = world();
      kill(world, first);
      kill(world, label);
      recoversThenConverges(world, label, false, false);
    }));
  }

  /**
   * Killed while holding the pulled-extensions lock: while the child is parked inside its first
   * swap, a pass here is {@link ConvergeReport.Outcome#BUSY} and swaps nothing; once the child is killed,
   * the very next pass takes the lock (the OS freed it with the process) and converges.
   */
  @Test
  void killedHoldingThePulledExtensionsLock_theNextConvergeIsNotBusy() throws Exception {
    World world = world();
    String label = "journal-written#1";
    try (ChildJvm child = start(world, label)) {
      assertThat(child.nextLine()).isEqualTo("at " + label);
      ConvergeReport busy = converge(world);
      assertThat(busy.outcome()).as("the child holds the lock: %s", busy).isEqualTo(ConvergeReport.Outcome.BUSY);
      assertThat(busy.restored()).isEmpty();
      assertThat(busy.removed()).isEmpty();
      assertThat(snapshot(world)).as("nothing swapped while the child holds the lock")
          .isEqualTo(new Snapshot(world.v1(), world.other()));
      child.kill();
    }
    recoversThenConverges(world, label, false, false);
  }

  // ---------------------------------------------------------------------------------------------

  /**
   * The checks after a kill at {@code label}: the disk as the kill left it; then a fresh pass here,
   * not busy, at whole versions once it recovered ({@value #TOOL} v2 when the kill came after the
   * restore's journal said swapped, {@value #OTHER} gone when after the removal's), ending at v2
   * with {@value #OTHER} gone and no journal; then unchanged passes, and staging empty once the
   * child's journal-less leftovers are past the sweep age.
   */
  private static void recoversThenConverges(World world, String label, boolean restoreDecided,
      boolean removalDecided) {
    Snapshot killed = snapshot(world);
    if (!isWhole(world, killed)) {
      assertThat(journals(world)).as("killed at %s, the disk is not whole (%s): a journal must say how to finish it",
          label, describe(world, killed)).isNotEmpty();
    }

    AtomicReference<Object> recovered = new AtomicReference<>();
    ConvergeReport first;
    try (Tierlock b = open(world.datastore(), world.b())) {
      Converger.Builder builder = Converger.builder(b, ConvergeCrashChild.layout(world.b()));
      builder.boundaries(boundary -> {
        if (recovered.get() == null && !boundary.startsWith("rollback/")) {
          try {
            recovered.set(snapshot(world));  // recovery done, this pass's own first swap not begun
          } catch (RuntimeException | Error e) {
            recovered.set(e);
          }
        }
      });
      first = builder.build().converge();
    }
    Snapshot end = snapshot(world);
    Object seen = recovered.get() == null ? end : recovered.get();
    if (seen instanceof Throwable t) {
      throw new AssertionError("cannot read the disk after recovery", t);
    }
    Snapshot afterRecovery = (Snapshot) seen;

    assertThat(first.outcome()).as("killed at %s, the next pass (the child's lock died with it): %s", label, first)
        .isEqualTo(ConvergeReport.Outcome.CONVERGED);
    assertThat(isWhole(world, afterRecovery)).as("killed at %s, recovered to whole versions: %s", label,
        describe(world, afterRecovery)).isTrue();
    if (restoreDecided) {
      assertThat(afterRecovery.tool()).as("killed at %s, after the restore's journal said swapped: v2 stays", label)
          .isEqualTo(world.v2());
    }
    if (removalDecided) {
      assertThat(afterRecovery.other()).as("killed at %s, after the removal's journal said swapped: it stays done",
          label).isEqualTo(Tree.NONE);
    }
    assertThat(first.lockfileVersion()).as("the shared lockfile is the template's").contains(world.version());
    assertThat(first.pending()).as("%s", first).isEmpty();
    assertThat(first.unrestorable()).as("%s", first).isEmpty();
    assertThat(end.tool()).as("killed at %s, the next pass ends with %s at v2 (%s): %s", label, TOOL,
        describe(world, end), first).isEqualTo(world.v2());
    assertThat(end.other()).as("killed at %s, the next pass ends with %s removed (%s): %s", label, OTHER,
        describe(world, end), first).isEqualTo(Tree.NONE);
    assertThat(list(world.b().resolve("extensions").resolve("@acme"))).as("killed at %s: the scope's roots", label)
        .containsExactly("tool");
    assertThat(journals(world)).as("killed at %s, no journal after the next pass (%s)", label, first).isEmpty();

    ConvergeReport second = converge(world);
    assertThat(second.outcome()).as("killed at %s, the pass after: %s", label, second)
        .isEqualTo(ConvergeReport.Outcome.UNCHANGED);
    assertThat(second.restored()).as("%s", second).isEmpty();
    assertThat(second.removed()).as("%s", second).isEmpty();

    // the dead child's journal-less staging, an hour later: swept, and no file changed
    ageStaging(world);
    ConvergeReport sweep = converge(world);
    assertThat(sweep.outcome()).as("killed at %s, the sweeping pass: %s", label, sweep)
        .isIn(ConvergeReport.Outcome.CONVERGED, ConvergeReport.Outcome.UNCHANGED);
    assertThat(sweep.restored()).as("%s", sweep).isEmpty();
    assertThat(sweep.removed()).as("%s", sweep).isEmpty();
    assertThat(staging(world)).as("killed at %s, staging after the sweeping pass (%s)", label, sweep).isEmpty();
    ConvergeReport last = converge(world);
    assertThat(last.outcome()).as("killed at %s, the pass after the sweep: %s", label, last)
        .isEqualTo(ConvergeReport.Outcome.UNCHANGED);
    assertThat(snapshot(world)).isEqualTo(end);
  }

  /** Runs B's pass to its end in a child JVM. */
  private static Recorded record(World world) throws Exception {
    List<String> labels = new ArrayList<>();
    String report = null;
    try (ChildJvm child = start(world, RECORD)) {
      for (String line = child.nextLine(); !line.equals("done"); line = child.nextLine()) {
        assertThat(line).as("the child's pass").doesNotStartWith("failed ");
        if (line.startsWith("boundary ")) {
          labels.add(line.substring("boundary ".length()));
        } else if (line.startsWith("report ")) {
          report = line;
        }
      }
    }
    assertThat(labels).doesNotHaveDuplicates();
    assertThat(report).as("the child's report").isNotNull();
    return new Recorded(labels, report);
  }

  /** Runs B's pass in a child JVM and kills it (SIGKILL) once it is parked at {@code label}. */
  private static void kill(World world, String label) throws Exception {
    try (ChildJvm child = start(world, label)) {
      assertThat(child.nextLine()).isEqualTo("at " + label);
      child.kill();
    }
  }

  private static ChildJvm start(World world, String target) throws IOException {
    return ChildJvm.start(ConvergeCrashChild.class, world.datastore().toString(), world.b().toString(), target);
  }

  /** One pass on B by a fresh checkout instance and converger. */
  private static ConvergeReport converge(World world) {
    try (Tierlock b = open(world.datastore(), world.b())) {
      return Converger.builder(b, ConvergeCrashChild.layout(world.b())).build().converge();
    }
  }

  /**
   * A fresh world: a copy of the template's checkout B, on the template's datastore. A pass only
   * reads the datastore (it never writes the lockfile or the tier), so every run shares it; each
   * pass here checks it still reads the template's lockfile version.
   */
  private World world() throws IOException {
    Template t = template;
    Path b = dir.resolve("run-" + (++runs)).resolve("b");
    copy(t.b(), b);
    return new World(t.datastore(), b, t.v1(), t.v2(), t.other(), t.version());
  }

  /** The template: the shared datastore and checkout B as it is before every run, with the exact trees. */
  private record Template(Path datastore, Path b, Tree v1, Tree v2, Tree other, String version) {}

  private static Template template;

  /**
   * Makes the template once: A installs v1 of both extensions from its registry, B converges to them
   * (so B's state verified v1), then A upgrades {@value #TOOL} to v2 and removes {@value #OTHER}.
   * The exact trees are A's, so B's restores are compared with what an install put on disk.
   */
  @BeforeAll
  static void makeTemplate() throws IOException {
    Path datastore = Files.createDirectories(shared.resolve("datastore"));
    Path a = Files.createDirectories(shared.resolve("a"));
    Path b = Files.createDirectories(shared.resolve("b"));
    FakeRegistry registry = FakeRegistry.create();
    registry.publish(TOOL, "1.0.0", TestArchives.extension(TOOL, "1.0.0").file("lib/a.txt", "a1")
        .file("lib/only-v1.txt", "v1").file("bin/tool", "#!v1").file("docs/deep/readme.md", "one").build());
    registry.publish(TOOL, "2.0.0", TestArchives.extension(TOOL, "2.0.0").file("lib/a.txt", "a2")
        .file("lib/only-v2.txt", "v2").file("bin/tool", "#!v2").file("share/new.txt", "two").build());
    registry.publish(OTHER, "1.0.0", TestArchives.extension(OTHER, "1.0.0").file("o.txt", "o1")
        .file("sub/p.txt", "p1").build());
    Tree v1;
    Tree other;
    try (Tierlock tierlock = open(datastore, a)) {
      Installer installer = Installer.builder(tierlock, ConvergeCrashChild.layout(a)).registry(registry).build();
      installer.install(InstallRequest.parse(TOOL + "@1.0.0"), Catalog.NONE);
      installer.install(InstallRequest.parse(OTHER + "@1.0.0"), Catalog.NONE);
      v1 = tree(a, TOOL);
      other = tree(a, OTHER);
    }
    try (Tierlock tierlock = open(datastore, b)) {
      ConvergeReport report = Converger.builder(tierlock, ConvergeCrashChild.layout(b)).build().converge();
      assertThat(report.restored()).as("B's first pass: %s", report).extracting(ExtensionName::value)
          .containsExactlyInAnyOrder(TOOL, OTHER);
    }
    assertThat(tree(b, TOOL)).as("B restored v1 as A installed it").isEqualTo(v1);
    assertThat(tree(b, OTHER)).isEqualTo(other);
    Tree v2;
    String version;
    try (Tierlock tierlock = open(datastore, a)) {
      Installer installer = Installer.builder(tierlock, ConvergeCrashChild.layout(a)).registry(registry).build();
      installer.install(InstallRequest.parse(TOOL + "@2.0.0"), Catalog.NONE);
      installer.remove(ExtensionName.of(OTHER), Catalog.NONE);
      v2 = tree(a, TOOL);
      version = tierlock.cached().flatMap(LockfileRead::version).orElseThrow();
    }
    assertThat(v1.isEmpty() || v2.isEmpty() || other.isEmpty() || v1.equals(v2)).isFalse();
    template = new Template(datastore, b, v1, v2, other, version);
  }

  /** Copies the tree {@code from} to {@code to} (files and directories only). */
  private static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> walk = Files.walk(from)) {
      for (Path p : walk.toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
  }

  private static Tierlock open(Path datastore, Path checkout) {
    return Tierlock.builder().datastore(FileSystemDatastore.open(datastore)).checkout(checkout).build();
  }

  private static Snapshot snapshot(World world) {
    return new Snapshot(tree(world.b(), TOOL), tree(world.b(), OTHER));
  }

  /** Whether each root holds one whole version: {@value #TOOL} v1 or v2, {@value #OTHER} v1 or nothing. */
  private static boolean isWhole(World world, Snapshot s) {
    return (s.tool().equals(world.v1()) || s.tool().equals(world.v2()))
        && (s.other().equals(world.other()) || s.other().isEmpty());
  }

  private static String describe(World world, Snapshot s) {
    return TOOL + " " + name(world, s.tool()) + ", " + OTHER + " " + name(world, s.other());
  }

  private static String name(World world, Tree tree) {
    if (tree.isEmpty()) {
      return "missing";
    }
    if (tree.equals(world.v1()) || tree.equals(world.other())) {
      return "v1";
    }
    if (tree.equals(world.v2())) {
      return "v2";
    }
    return "a mix " + tree.entries().keySet();
  }

  private static Tree tree(Path checkout, String name) {
    int slash = name.indexOf('/');
    Path root = checkout.resolve("extensions").resolve(name.substring(0, slash)).resolve(name.substring(slash + 1));
    TreeMap<String, String> entries = new TreeMap<>();
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return new Tree(entries);
    }
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.filter(p -> !p.equals(root)).toList()) {
        String rel = root.relativize(p).toString().replace('\\', '/');
        if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
          entries.put(rel + "/", "");
        } else if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
          entries.put(rel, new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1));
        } else {
          entries.put(rel, "(not a file)");
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Tree(entries);
  }

  private static Path stagingRoot(World world) {
    return world.b().resolve("extensions").resolve(STAGING);
  }

  /** Everything under B's staging directory. */
  private static List<String> staging(World world) {
    Path staging = stagingRoot(world);
    if (!Files.isDirectory(staging)) {
      return List.of();
    }
    try (Stream<Path> walk = Files.walk(staging)) {
      return walk.filter(p -> !p.equals(staging)).map(p -> staging.relativize(p).toString()).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<Path> journals(World world) {
    Path staging = stagingRoot(world);
    if (!Files.isDirectory(staging)) {
      return List.of();
    }
    try (Stream<Path> walk = Files.walk(staging)) {
      return walk.filter(p -> p.getFileName().toString().equals("journal.json")).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Dates each entry of B's staging {@link #PAST_SWEEP_AGE} back, as if the kill were that long ago. */
  private static void ageStaging(World world) {
    FileTime then = FileTime.from(Instant.now().minus(PAST_SWEEP_AGE));
    Path staging = stagingRoot(world);
    if (!Files.isDirectory(staging)) {
      return;
    }
    try (Stream<Path> entries = Files.list(staging)) {
      for (Path entry : entries.toList()) {
        Files.setLastModifiedTime(entry, then);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<String> list(Path dir) {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> entries = Files.list(dir)) {
      return entries.map(p -> p.getFileName().toString()).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
