package dev.tierlock.datastore.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.Environment;
import dev.tierlock.Heartbeats;
import dev.tierlock.LockIdentity;
import dev.tierlock.Namespace;
import dev.tierlock.Sleeper;
import dev.tierlock.TierPath;
import dev.tierlock.Tierlock;
import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.install.ConvergeReport;
import dev.tierlock.install.Converger;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.testkit.FakeRemote;
import dev.tierlock.testkit.TempDirLayout;
import dev.tierlock.testkit.TestArchives;
import dev.tierlock.ExtensionName;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Measures a first converge and a no-op converge of many small entries, on the fake remote with a
 * per-call latency and on the filesystem datastore; prints wall times, calls and the load average.
 * Not a test: it asserts only that each pass converged, and runs only with {@code
 * -Dtierlock.measure.converge=<entries>} (for example 5000). The bound of parallel restores is
 * {@code -Dtierlock.measure.parallel=<n>} (the converger's default when unset); {@code
 * -Dtierlock.measure.dir=<dir>} puts the store and the checkout there (a tmpfs, to leave the disk's
 * fsyncs out) instead of a temporary directory. The first pass is split at its first crash boundary:
 * before it the restores are prepared, after it they are applied.
 */
@EnabledIfSystemProperty(named = "tierlock.measure.converge", matches = "[0-9]+")
class ConvergeScaleMeasurement {

  private static final String T = "2026-01-01T00:00:00.000Z";

  @TempDir Path tempDir;

  private Path temp;

  @org.junit.jupiter.api.BeforeEach
  void place() throws Exception {
    String dir = System.getProperty("tierlock.measure.dir");
    temp = dir == null ? tempDir : Files.createTempDirectory(Path.of(dir), "converge-measure");
  }

  @org.junit.jupiter.api.AfterEach
  void clean() throws Exception {
    if (!temp.equals(tempDir)) {
      try (java.util.stream.Stream<Path> all = Files.walk(temp)) {
        for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  @Test
  void fakeRemoteWithLatency() throws Exception {
    int entries = Integer.getInteger("tierlock.measure.converge");
    try (FakeRemote remote = FakeRemote.create()) {
      plant(remote, entries);
      remote.faults().latency(Duration.ofMillis(10), Sleeper.SYSTEM, Duration.ofSeconds(30));
      measure("fake remote, 10 ms per call", remote, entries);
    }
  }

  @Test
  void fileSystemDatastore() throws Exception {
    int entries = Integer.getInteger("tierlock.measure.converge");
    try (Datastore store = FileSystemDatastore.open(temp.resolve("tier"))) {
      plant(store, entries);
      measure("filesystem datastore", store, entries);
    }
  }

  private void measure(String what, Datastore store, int entries) throws Exception {
    Heartbeats never = (lock, interval, beat) -> () -> { };
    Path checkout = temp.resolve("checkout");
    try (Tierlock tierlock = Tierlock.builder().datastore(store).checkout(checkout).environment(Environment.system()
        .withRandom(new SplittableRandom(1)).withHeartbeats(never)
        .withLockIdentity(LockIdentity.of("measure@checkout", "host", 1))).build()) {
      Converger.Builder builder = Converger.builder(tierlock, TempDirLayout.in(checkout));
      Integer parallel = Integer.getInteger("tierlock.measure.parallel");
      if (parallel != null) {
        Converger.Builder.class.getMethod("parallelRestores", int.class).invoke(builder, parallel);
      }
      java.util.concurrent.atomic.AtomicLong applying = new java.util.concurrent.atomic.AtomicLong();
      builder.boundaries(boundary -> applying.compareAndSet(0, System.nanoTime()));
      Converger converger = builder.build();
      String load = Files.readString(Path.of("/proc/loadavg")).trim();
      long start = System.nanoTime();
      ConvergeReport first = converger.converge();
      long end = System.nanoTime();
      long firstMs = (end - start) / 1_000_000;
      long prepareMs = (applying.get() - start) / 1_000_000;
      assertThat(first.outcome()).isEqualTo(ConvergeReport.Outcome.CONVERGED);
      assertThat(first.restored()).hasSize(entries);
      long stateBytes = Files.size(converger.stateFile());
      long noop = Long.MAX_VALUE;
      ConvergeReport again = null;
      for (int i = 0; i < 5; i++) {
        start = System.nanoTime();
        again = converger.converge();
        noop = Math.min(noop, (System.nanoTime() - start) / 1_000);
        assertThat(again.outcome()).isEqualTo(ConvergeReport.Outcome.UNCHANGED);
      }
      long used = (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) >> 20;
      System.out.println("MEASURE heap in use after the passes: " + used + " MiB of " + (Runtime.getRuntime().maxMemory()
          >> 20));
      System.out.printf("MEASURE %s, %d entries, parallel %s: first pass %d ms (prepare %d ms, apply %d ms), %d calls,"
          + " %d bytes;"
          + " no-op pass (best of 5) %d us, %d calls; state file %d bytes; load before %s, after %s%n", what, entries,
          parallel == null ? "default" : parallel, firstMs, prepareMs, firstMs - prepareMs, first.requests(),
          first.bytes(), noop, again.requests(), stateBytes, load, Files.readString(Path.of("/proc/loadavg")).trim());
    }
  }

  private static void plant(Datastore store, int entries) {
    StringBuilder lockfile = new StringBuilder("{\n  \"lockfileVersion\": 2");
    for (int i = 0; i < entries; i++) {
      String name = "@m/e" + i;
      byte[] archive = TestArchives.extension(name, "1.0.0").file("f.txt", "x" + i).build();
      String sha = TestArchives.sha256(archive);
      ExtensionArchiveKey key = ExtensionArchiveKey.of(ExtensionName.of(name), sha);
      store.write(Namespace.NONE.key(key.tierPath()), ObjectBody.of(archive), WriteCondition.mustNotExist(),
          ObjectMetadata.EMPTY);
      lockfile.append(",\n  \"").append(name).append("\": {\n    \"version\": \"1.0.0\",\n    \"pulledAt\": \"")
          .append(T).append("\",\n    \"checksum\": \"").append(sha).append("\"\n  }");
    }
    lockfile.append("\n}\n");
    store.write(Namespace.NONE.key(TierPath.LOCKFILE), ObjectBody.of(lockfile.toString()
        .getBytes(StandardCharsets.UTF_8)), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);
  }
}
