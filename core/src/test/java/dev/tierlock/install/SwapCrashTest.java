package dev.tierlock.install;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a child JVM ({@link SwapCrashChild}) with SIGKILL at every boundary a swap passes, as the
 * engine reports them (a new boundary is covered without touching this test), one child per
 * boundary, then recovers the tree it left twice (from a copy, at the same paths), once with the
 * lockfile pinning the new checksum and once the old, and checks
 * the extension is entirely one version: the new one exactly when the swap was committed, or
 * swapped and the new checksum pinned; never a mix, never nothing, the nested extension intact, no
 * staging left.
 */
class SwapCrashTest {

  private static final long WAIT_SECONDS = 60;

  @TempDir
  static Path dir;

  @TestFactory
  Stream<DynamicTest> upgrade() throws IOException {
    return crashes("upgrade", SwapFixture.V2_SUM, SwapFixture.V1_SUM);
  }

  @TestFactory
  Stream<DynamicTest> removal() throws IOException {
    return crashes("removal", null, SwapFixture.V1_SUM);
  }

  @TestFactory
  Stream<DynamicTest> rollback() throws IOException {
    return crashes("rollback", SwapFixture.V2_SUM, SwapFixture.V1_SUM);
  }

  private Stream<DynamicTest> crashes(String scenario, @Nullable String newPin, String oldPin) throws IOException {
    SwapFixture.Recorder recorder = new SwapFixture.Recorder();
    SwapCrashChild.run(scenario, new SwapFixture(dir.resolve(scenario + "-boundaries")).installV1().sourcesV2(),
        recorder, new OwnerIds());
    List<String> boundaries = new ArrayList<>(recorder.seen);
    assertThat(new LinkedHashSet<>(boundaries)).as("boundary names are distinct").hasSameSizeAs(boundaries);
    int swapped = boundaries.indexOf(SwapBoundary.JOURNAL_SWAPPED);
    int committed = boundaries.indexOf(SwapBoundary.COMMIT_JOURNAL_DELETED);
    if (scenario.equals("rollback")) {
      boundaries.removeIf(boundary -> !boundary.startsWith("rollback/"));
      assertThat(boundaries).contains(SwapBoundary.ROLLBACK_STAGING_DELETED);
    } else {
      assertThat(swapped).isPositive();
      assertThat(committed).isGreaterThan(swapped);
    }
    SortedMap<String, String> v2 = scenario.equals("removal")
        ? new SwapFixture(dir.resolve(scenario + "-expected")).expectedRemoved().snapshot()
        : new SwapFixture(dir.resolve(scenario + "-expected")).expectedV2().snapshot();
    List<String> all = List.copyOf(recorder.seen);
    return boundaries.stream().map(boundary -> DynamicTest.dynamicTest(boundary, () -> {
      int at = all.indexOf(boundary);
      boolean rolledBack = scenario.equals("rollback");
      boolean newIfPinned = !rolledBack && at >= swapped;
      boolean newAnyway = !rolledBack && committed >= 0 && at >= committed;
      Path root = Files.createTempDirectory(dir, scenario + "-" + boundary.replace('/', '_') + "-");
      SwapFixture fixture = new SwapFixture(root).installV1().sourcesV2();
      SortedMap<String, String> v1 = fixture.snapshot();
      Process child = start(scenario, root, boundary);
      try {
        assertThat(firstLine(child)).isEqualTo("at " + boundary);
      } finally {
        child.destroyForcibly();
        assertThat(child.waitFor(WAIT_SECONDS, TimeUnit.SECONDS)).as("the child exited").isTrue();
      }
      Path crashed = root.resolveSibling(root.getFileName() + "-crashed");
      SwapFiles.copyTree(root, crashed);
      recover(fixture, boundary, newPin, newIfPinned || newAnyway ? v2 : v1, v1);
      StagingFiles.delete(root);
      SwapFiles.copyTree(crashed, root);
      recover(fixture, boundary, oldPin, newAnyway ? v2 : v1, v1);
    }));
  }

  /** Recovers the tree a crash at {@code boundary} left with {@code pin} pinned, and checks it is {@code expected}. */
  private static void recover(SwapFixture fixture, String boundary, @Nullable String pin,
      SortedMap<String, String> expected, SortedMap<String, String> v1) throws IOException {
    RecoveryReport report = fixture.recover(pin);
    assertThat(report.left()).isEmpty();
    assertThat(fixture.snapshot()).as("after a crash at %s, recovered with %s pinned", boundary, pin)
        .isEqualTo(expected);
    assertThat(SwapFixture.under(fixture.snapshot(), "pulled/@acme/tools/sub"))
        .isEqualTo(SwapFixture.under(v1, "pulled/@acme/tools/sub")).isNotEmpty();
    assertThat(fixture.stagingLeft()).isEmpty();
    assertThat(fixture.recover(pin).isEmpty()).as("a second pass finds nothing").isTrue();
  }

  private static Process start(String scenario, Path root, String boundary) throws IOException {
    List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", classpath(), "-Dslf4j.internal.verbosity=ERROR",
        SwapCrashChild.class.getName(), scenario, root.toString(), boundary);
    return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
  }

  /** Returns the child's first line, waiting at most {@link #WAIT_SECONDS} (a bound only a broken test reaches). */
  private static String firstLine(Process child) throws InterruptedException {
    BlockingQueue<String> line = new ArrayBlockingQueue<>(1);
    Thread reader = new Thread(() -> {
      try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
          StandardCharsets.UTF_8))) {
        String first = out.readLine();
        line.add(first == null ? "(no line; exited " + !child.isAlive() + ")" : first);
      } catch (IOException e) {
        line.add("(unreadable: " + e + ")");
      }
    }, "swap-child-stdout");
    reader.setDaemon(true);
    reader.start();
    String first = line.poll(WAIT_SECONDS, TimeUnit.SECONDS);
    return first == null ? "(no line within " + WAIT_SECONDS + " s)" : first;
  }

  /** The test class path as surefire reports it, else this JVM's. */
  private static String classpath() {
    Set<String> entries = new LinkedHashSet<>();
    String reported = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path", ""));
    for (String entry : reported.split(System.getProperty("path.separator"))) {
      if (!entry.isBlank()) {
        entries.add(entry);
      }
    }
    return String.join(System.getProperty("path.separator"), entries);
  }
}
