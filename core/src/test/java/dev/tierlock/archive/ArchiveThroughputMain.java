package dev.tierlock.archive;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream;
import org.apache.commons.compress.compressors.gzip.GzipParameters;

/**
 * Measures, for the issue note (never run by the build: its name does not end in {@code Test}), how
 * fast a large archive is verified and extracted, next to {@code sha256sum} and {@code tar -xzf} on
 * the same file, and the peak heap of each pass. Run it with a small heap to show that memory does
 * not grow with the archive:
 *
 * <pre>{@code
 * java -Xmx64m -cp core/target/test-classes:core/target/classes:<runtime classpath> \
 *     dev.tierlock.archive.ArchiveThroughputMain /tmp/tierlock-throughput 3
 * }</pre>
 *
 * <p>The first run writes {@code archive.tar.gz} into the directory: 40 files of 10 MiB of
 * pseudo-random bytes and 10 files of 5 MiB of text (about 400 MiB compressed, 450 MiB
 * decompressed). Each run then times the archive store's verifying copy (hash only, then hash while
 * copying into a file and forcing it to disk, as a store or a read does), {@code sha256sum},
 * {@link TarGzReader#extract} and {@code tar -xzf}, each extraction into a fresh directory that is
 * removed afterwards. Delete the directory when done.
 */
public final class ArchiveThroughputMain {

  private static final long MIB = 1024L * 1024;
  private static final int RANDOM_FILES = 40;
  private static final int TEXT_FILES = 10;
  private static final ArchiveLimits LIMITS = ArchiveLimits.DEFAULTS
      .withMaxCompressedBytes(512 * MIB)
      .withMaxDecompressedBytes(1024 * MIB);

  private ArchiveThroughputMain() {}

  /**
   * Runs the measurement.
   *
   * @param args the work directory, and optionally how many runs (default 3)
   * @throws Exception if a step fails
   */
  public static void main(String[] args) throws Exception {
    if (args.length < 1) {
      throw new IllegalArgumentException("Cannot measure: give a work directory, and optionally a run count");
    }
    Path work = Path.of(args[0]).toAbsolutePath();
    int runs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    Files.createDirectories(work);
    Path archive = work.resolve("archive.tar.gz");
    if (!Files.exists(archive)) {
      long started = System.nanoTime();
      generate(archive);
      System.out.printf(Locale.ROOT, "generated %s: %.1f MiB in %.1f s%n", archive, Files.size(archive) / (double) MIB,
          seconds(System.nanoTime() - started));
    }
    double size = Files.size(archive) / (double) MIB;
    System.out.printf(Locale.ROOT, "archive %.1f MiB compressed; max heap %d MiB%n", size,
        Runtime.getRuntime().maxMemory() / MIB);
    for (int run = 1; run <= runs; run++) {
      System.out.printf(Locale.ROOT, "run %d%n", run);
      measure("verify (hash only)", size, Heap.MEASURED, () -> hashOnly(archive));
      Path copy = work.resolve("verified-copy.tar.gz");
      measure("verify (hash + copy + fsync)", size, Heap.MEASURED, () -> hashAndCopy(archive, copy));
      Files.deleteIfExists(copy);
      measure("sha256sum", size, Heap.EXTERNAL, () -> run(List.of("sha256sum", archive.toString())));
      Path javaOut = work.resolve("extract-java");
      measure("TarGzReader.extract", size, Heap.MEASURED, () -> extract(archive, javaOut));
      delete(javaOut);
      Path tarOut = work.resolve("extract-tar");
      Files.createDirectories(tarOut);
      measure("tar -xzf", size, Heap.EXTERNAL,
          () -> run(List.of("tar", "-xzf", archive.toString(), "-C", tarOut.toString())));
      delete(tarOut);
    }
  }

  @FunctionalInterface
  private interface Step {
    String run() throws Exception;
  }

  /** Whether a step runs in this JVM (its heap is measured) or in another process. */
  private enum Heap {
    MEASURED,
    EXTERNAL
  }

  private static void measure(String name, double mib, Heap heapMode, Step step) throws Exception {
    System.gc();
    List<MemoryPoolMXBean> heap = ManagementFactory.getMemoryPoolMXBeans().stream()
        .filter(p -> p.getType() == MemoryType.HEAP).toList();
    heap.forEach(MemoryPoolMXBean::resetPeakUsage);
    long gcs = gcCount();
    long started = System.nanoTime();
    String result = step.run();
    double elapsed = seconds(System.nanoTime() - started);
    long peak = heap.stream().mapToLong(p -> p.getPeakUsage().getUsed()).sum();
    String memory = heapMode == Heap.MEASURED
        ? String.format(Locale.ROOT, "peak heap %5.1f MiB, %d gcs", peak / (double) MIB, gcCount() - gcs)
        : "(another process)";
    System.out.printf(Locale.ROOT, "  %-30s %6.2f s  %7.1f MiB/s  %-26s %s%n", name, elapsed, mib / elapsed, memory,
        result);
  }

  private static long gcCount() {
    return ManagementFactory.getGarbageCollectorMXBeans().stream()
        .mapToLong(GarbageCollectorMXBean::getCollectionCount).filter(c -> c >= 0).sum();
  }

  private static String hashOnly(Path archive) throws IOException {
    try (InputStream in = Files.newInputStream(archive)) {
      return VerifyingCopy.copy(in, null, LIMITS.maxCompressedBytes(), archive.toString(), () -> { }).sha256();
    }
  }

  private static String hashAndCopy(Path archive, Path copy) throws IOException {
    try (InputStream in = Files.newInputStream(archive);
        FileChannel out = FileChannel.open(copy, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      String digest = VerifyingCopy.copy(in, out, LIMITS.maxCompressedBytes(), archive.toString(), () -> { }).sha256();
      out.force(true);
      return digest;
    }
  }

  private static String extract(Path archive, Path staging) {
    ArchiveListing listing = TarGzReader.of(LIMITS).extract(archive, staging);
    return listing.entries().size() + " entries, " + listing.decompressedBytes() / MIB + " MiB decompressed";
  }

  private static String run(List<String> command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output;
    try (InputStream in = process.getInputStream()) {
      output = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
    }
    if (!process.waitFor(5, TimeUnit.MINUTES) || process.exitValue() != 0) {
      process.destroyForcibly();
      throw new IOException("Cannot run " + command + ": " + output);
    }
    return output.isEmpty() ? "" : output.split("\\s+")[0];
  }

  private static void generate(Path archive) throws IOException {
    GzipParameters fast = new GzipParameters();
    fast.setCompressionLevel(1);
    SplittableRandom random = new SplittableRandom(400);
    byte[] chunk = new byte[64 * 1024];
    try (OutputStream file = new BufferedOutputStream(Files.newOutputStream(archive), 1 << 16);
        TarArchiveOutputStream tar = new TarArchiveOutputStream(new GzipCompressorOutputStream(file, fast))) {
      for (int i = 0; i < RANDOM_FILES; i++) {
        add(tar, "payload/random-" + i + ".bin", 10 * MIB, chunk, () -> random.nextBytes(chunk));
      }
      for (int i = 0; i < TEXT_FILES; i++) {
        int index = i;
        long[] line = {0};
        add(tar, "payload/text-" + i + ".txt", 5 * MIB, chunk, () -> fillText(chunk, index, line));
      }
    }
  }

  private static void add(TarArchiveOutputStream tar, String name, long size, byte[] chunk, Runnable refill)
      throws IOException {
    TarArchiveEntry entry = new TarArchiveEntry(name);
    entry.setSize(size);
    tar.putArchiveEntry(entry);
    for (long written = 0; written < size; written += chunk.length) {
      refill.run();
      tar.write(chunk, 0, (int) Math.min(chunk.length, size - written));
    }
    tar.closeArchiveEntry();
  }

  private static void fillText(byte[] chunk, int file, long[] line) {
    int at = 0;
    while (at < chunk.length) {
      byte[] text = String.format(Locale.ROOT, "file %d line %09d: the archive store streams at disk speed%n", file,
          line[0]++).getBytes(StandardCharsets.US_ASCII);
      int n = Math.min(text.length, chunk.length - at);
      System.arraycopy(text, 0, chunk, at, n);
      at += n;
    }
  }

  private static void delete(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }

  private static double seconds(long nanos) {
    return nanos / 1e9;
  }
}
