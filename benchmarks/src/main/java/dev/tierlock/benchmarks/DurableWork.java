package dev.tierlock.benchmarks;

import dev.tierlock.ExtensionName;
import dev.tierlock.Tierlock;
import dev.tierlock.datastore.fs.FileSystemDatastore;
import dev.tierlock.spi.Datastore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Section 8: the durable local work of one commit on the filesystem datastore, one writer. The
 * system calls are counted by {@code strace -f -c} around a child JVM ({@link DurableWorkChild}):
 * once with the set-up and a warm-up put alone, once with {@code N} more puts, the difference
 * divided by {@code N}, so the JVM's start and the set-up cancel out. The lease hold is timed in
 * this JVM ({@link LeaseTimer}), over the same number of warm puts.
 */
final class DurableWork {

  /** The system calls counted, as {@code strace -e trace=} takes them. */
  static final String TRACE = "fsync,fdatasync,rename,renameat,renameat2,unlink,unlinkat";

  /**
   * One protocol's figures per commit.
   *
   * @param protocol who committed
   * @param fsyncs {@code fsync} and {@code fdatasync} calls per commit (empty without strace)
   * @param renames {@code rename*} calls per commit (empty without strace)
   * @param unlinks {@code unlink*} calls per commit (empty without strace)
   * @param leaseHoldMillis the median time the lease object lived, NaN when the protocol took no lease
   */
  record Row(Protocol protocol, Optional<Double> fsyncs, Optional<Double> renames, Optional<Double> unlinks,
      double leaseHoldMillis) {}

  /**
   * What the section measured.
   *
   * @param rows one per protocol: each commit mode, then the baseline protocol
   * @param commits the puts counted per protocol
   * @param strace how strace was run, or why it could not be
   */
  record Result(List<Row> rows, int commits, String strace) {

    /** Returns the row of {@code protocol}, if measured. */
    Optional<Row> find(Protocol protocol) {
      return rows.stream().filter(r -> r.protocol() == protocol).findFirst();
    }
  }

  /** One writer of a protocol on a store, past its self-check and one warm-up put. */
  static final class Writer implements AutoCloseable {
    private final Committer committer;
    private final Optional<Tierlock> checkout;

    private Writer(Committer committer, Optional<Tierlock> checkout) {
      this.committer = committer;
      this.checkout = checkout;
    }

    /** Opens a warm writer of {@code protocol} on {@code store}, its checkout in {@code directory}. */
    static Writer open(Protocol protocol, Datastore store, Path directory) {
      Writer writer;
      if (protocol == Protocol.BASELINE) {
        writer = new Writer(UploadProtocol.baseline(store, directory, "durable", 1), Optional.empty());
      } else {
        Tierlock tierlock = TierlockCommitter.open(store, directory, "durable", protocol.mode(), protocol.group());
        tierlock.checkDatastore();
        writer = new Writer(new TierlockCommitter(tierlock), Optional.of(tierlock));
      }
      writer.put(-1);
      return writer;
    }

    /** Sets one name to version {@code i}: one committed change. */
    void put(int i) {
      committer.put(ExtensionName.of("@durable/name"), Fixtures.plainEntry("1.0." + (i + 1)));
    }

    @Override
    public void close() {
      checkout.ifPresent(Tierlock::close);
    }
  }

  private final Path work;
  private final int commits;
  private final Progress progress;

  DurableWork(Path work, int commits, Progress progress) {
    this.work = work;
    this.commits = commits;
    this.progress = progress;
  }

  /** Returns the protocol named {@code name}: a commit mode's separate checkouts, or the baseline. */
  static Protocol protocol(String name) {
    return Protocol.modesThen(Protocol.BASELINE).stream().filter(p -> p.name().equals(name)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("Cannot count protocol " + name));
  }

  /** Measures every mode and the baseline protocol. */
  Result measure() throws IOException, InterruptedException {
    Optional<String> missing = straceMissing();
    List<Row> rows = new ArrayList<>();
    for (Protocol protocol : Protocol.modesThen(Protocol.BASELINE)) {
      Optional<Map<String, Double>> perCommit = Optional.empty();
      if (missing.isEmpty()) {
        Map<String, Long> base = traced(protocol, 0);
        Map<String, Long> full = traced(protocol, commits);
        Map<String, Double> diff = new HashMap<>();
        for (String call : TRACE.split(",")) {
          diff.put(call, (full.getOrDefault(call, 0L) - base.getOrDefault(call, 0L)) / (double) commits);
        }
        perCommit = Optional.of(diff);
      }
      Row row = new Row(protocol, perCommit.map(d -> d.get("fsync") + d.get("fdatasync")),
          perCommit.map(d -> d.get("rename") + d.get("renameat") + d.get("renameat2")),
          perCommit.map(d -> d.get("unlink") + d.get("unlinkat")), leaseHold(protocol));
      progress.say(String.format("  %s: fsyncs %s, renames %s, unlinks %s per commit, lease hold %s ms",
          protocol.label(), row.fsyncs().map(MarkdownTable::number).orElse("n/a"),
          row.renames().map(MarkdownTable::number).orElse("n/a"), row.unlinks().map(MarkdownTable::number).orElse("n/a"),
          MarkdownTable.number(row.leaseHoldMillis())));
      rows.add(row);
    }
    return new Result(rows, commits, missing.map(reason -> "strace is not available here (" + reason + ")")
        .orElse("`strace -f -c -e trace=" + TRACE + "`"));
  }

  /** Returns why strace cannot count here, or empty when it can. */
  private Optional<String> straceMissing() {
    try {
      Process p = new ProcessBuilder("strace", "-f", "-c", "-o", "/dev/null", "-e", "trace=" + TRACE, "true")
          .redirectErrorStream(true).start();
      String output = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return Optional.of("strace true did not exit within 30 s");
      }
      return p.exitValue() == 0 ? Optional.empty()
          : Optional.of("strace true exited " + p.exitValue() + ": " + output.strip());
    } catch (IOException e) {
      return Optional.of("cannot run strace: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.of("interrupted");
    }
  }

  /** Runs the child under strace with {@code n} puts after the warm-up; returns the calls by system call. */
  private Map<String, Long> traced(Protocol protocol, int n) throws IOException, InterruptedException {
    Path dir = Files.createDirectories(work.resolve("strace-" + protocol.name().toLowerCase() + "-" + n));
    Path summary = dir.resolve("summary.txt");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = List.of("strace", "-f", "-c", "-o", summary.toString(), "-e", "trace=" + TRACE,
        java, "-XX:-UsePerfData", "-cp", System.getProperty("java.class.path"), DurableWorkChild.class.getName(),
        protocol.name(), dir.resolve("store").toString(), dir.resolve("checkout").toString(), String.valueOf(n));
    Process process = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(dir.resolve("output.txt").toFile()).start();
    if (!process.waitFor(3, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new IllegalStateException("Cannot count " + protocol.label() + ": the child did not exit within 3 minutes");
    }
    if (process.exitValue() != 0) {
      throw new IllegalStateException("Cannot count " + protocol.label() + ": the child exited " + process.exitValue()
          + ": " + Files.readString(dir.resolve("output.txt")));
    }
    Map<String, Long> calls = parse(Files.readAllLines(summary));
    WorkDirectory.delete(dir);
    return calls;
  }

  /** Reads strace's summary table: calls by system call name. */
  static Map<String, Long> parse(List<String> lines) {
    Map<String, Long> calls = new HashMap<>();
    for (String line : lines) {
      String[] t = line.trim().split("\\s+");
      if (t.length >= 5 && t[0].matches("[\\d.]+") && !t[t.length - 1].equals("total")) {
        calls.merge(t[t.length - 1], Long.parseLong(t[3]), Long::sum);
      }
    }
    return calls;
  }

  /** Returns the median lease hold of {@link #commits} warm puts in this JVM, NaN when no lease was taken. */
  private double leaseHold(Protocol protocol) throws IOException {
    Path dir = Files.createDirectories(work.resolve("lease-" + protocol.name().toLowerCase()));
    try (LeaseTimer timer = new LeaseTimer(FileSystemDatastore.open(Files.createDirectories(dir.resolve("store"))));
        Writer writer = Writer.open(protocol, timer, dir.resolve("checkout"))) {
      timer.reset();
      for (int i = 0; i < commits; i++) {
        writer.put(i);
      }
      return timer.medianMillis();
    } finally {
      WorkDirectory.delete(dir);
    }
  }
}
