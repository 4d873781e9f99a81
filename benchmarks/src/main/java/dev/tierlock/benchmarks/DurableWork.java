package dev.tierlock.benchmarks;

import dev.tierlock.ExtensionName;
import dev.tierlock.Tierlock;
import dev.tierlock.datastore.fs.FileSystemDatastore;
import dev.tierlock.spi.Datastore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Section 8: the durable local work of one commit on the filesystem datastore, one writer. The
 * system calls are traced by {@code strace -f} around a child JVM ({@link DurableWorkChild}) and
 * counted between the marks the child leaves around its {@code N} warm puts ({@link StraceLog}),
 * divided by {@code N}: the JVM's start, the self-check and the set-up are outside the marks. The
 * lease hold is timed in this JVM ({@link LeaseTimer}), over the same number of warm puts.
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

  /**
   * One writer of a protocol on a store, past its self-check, the lockfile's history
   * ({@link Participants#history}: auto mode in its steady state) and one warm-up put.
   */
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
      Participants.history(writer.committer);
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
      Optional<Map<String, Long>> calls = Optional.empty();
      if (missing.isEmpty()) {
        calls = Optional.of(traced(protocol, commits));
      }
      Row row = new Row(protocol, calls.map(c -> perCommit(c, "fsync", "fdatasync")),
          calls.map(c -> perCommit(c, "rename", "renameat", "renameat2")),
          calls.map(c -> perCommit(c, "unlink", "unlinkat")), leaseHold(protocol));
      progress.say(String.format("  %s: fsyncs %s, renames %s, unlinks %s per commit, lease hold %s ms",
          protocol.label(), row.fsyncs().map(MarkdownTable::number).orElse("n/a"),
          row.renames().map(MarkdownTable::number).orElse("n/a"), row.unlinks().map(MarkdownTable::number).orElse("n/a"),
          MarkdownTable.number(row.leaseHoldMillis())));
      rows.add(row);
    }
    return new Result(rows, commits, missing.map(reason -> "strace is not available here (" + reason + ")")
        .orElse("`strace -f -e trace=" + TRACE + "`"));
  }

  private double perCommit(Map<String, Long> calls, String... names) {
    long sum = 0;
    for (String name : names) {
      sum += calls.getOrDefault(name, 0L);
    }
    return sum / (double) commits;
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

  /** Runs the child under strace with {@code n} puts after the warm-up; returns their calls by system call. */
  private Map<String, Long> traced(Protocol protocol, int n) throws IOException, InterruptedException {
    Path dir = Files.createDirectories(work.resolve("strace-" + protocol.name().toLowerCase()));
    Path log = dir.resolve("strace.log");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = List.of("strace", "-f", "-o", log.toString(), "-e", "trace=" + TRACE,
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
    Map<String, Long> calls = StraceLog.between(log);
    WorkDirectory.delete(dir);
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
