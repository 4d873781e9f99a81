package dev.tierlock.benchmarks;

import dev.tierlock.Lockfile;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The benchmark: runs every part of the performance report and writes it. Run it as {@code java
 * -jar benchmarks/target/benchmarks.jar [--quick] [--only PART,...] [--out DIR]}; the parts are
 * {@code calls, fake, long, s3, gcs, fs, codec, put, local, start, durable, pinned, converge}. By default the report is written into
 * the module's directory (beside {@code target/}), with {@code --quick} into {@code
 * target/quick-report/}.
 */
public final class BenchmarkReport {

  private static final List<String> PARTS = List.of("calls", "fake", "long", "s3", "gcs", "fs", "codec", "put", "local", "start",
      "durable", "pinned", "converge");
  private static final Duration LATENCY = Duration.ofMillis(10);
  private static final List<Protocol> LOCAL = Protocol.modesThen(Protocol.SHARED_GROUP, Protocol.SHARED_SERIAL,
      Protocol.BASELINE, Protocol.NO_LOCK);

  private BenchmarkReport() {}

  /**
   * Runs the benchmark.
   *
   * @param args {@code --quick}, {@code --only PART,...}, {@code --out DIR}
   * @throws Exception if a part fails: nothing is written then
   */
  public static void main(String[] args) throws Exception {
    System.setProperty("java.awt.headless", "true");
    List<String> arguments = Arrays.asList(args);
    boolean quick = arguments.contains("--quick");
    Set<String> parts = Set.copyOf(value(arguments, "--only").map(v -> Arrays.asList(v.split(","))).orElse(PARTS));
    if (!PARTS.containsAll(parts)) {
      throw new IllegalArgumentException("Cannot run parts " + parts + ": the parts are " + PARTS);
    }
    Plan plan = quick ? Plan.quick() : Plan.full();
    Path module = moduleDirectory();
    Path out = value(arguments, "--out").map(Path::of).orElse(quick ? module.resolve("target/quick-report") : module);
    Progress progress = new Progress(System.out);
    progress.say("Tierlock benchmarks, " + plan.name() + " plan, parts " + PARTS.stream().filter(parts::contains)
        .collect(Collectors.joining(",")));
    Measurements measurements = run(plan, parts, progress);
    Path readme = new ReportDocument(measurements, out).write();
    progress.say("wrote " + readme.toAbsolutePath().normalize() + " and its charts");
  }

  private static Measurements run(Plan plan, Set<String> parts, Progress progress) throws Exception {
    Machine machine = Machine.current();
    Path work = WorkDirectory.create("tierlock-bench-");
    try {
      Map<CallCounts.Case, List<CallCounts.Count>> calls = Map.of();
      if (parts.contains("calls")) {
        progress.say("1. calls per committed change");
        calls = CallCounts.measure(work);
      }
      ContentionSection section = new ContentionSection(progress);
      FakeRemoteStores fakeStores = new FakeRemoteStores(LATENCY);
      Optional<StoreRuns> fake = Optional.empty();
      if (parts.contains("fake")) {
        progress.say("2. contended throughput, " + fakeStores.label());
        fake = Optional.of(section.run(fakeStores, LOCAL, plan.writers(), plan.fake(), work));
      }
      List<RunResult> longRuns = new java.util.ArrayList<>();
      if (parts.contains("long")) {
        for (Protocol protocol : Protocol.separateModes()) {
          progress.say("2. a long run: 16 separate checkouts, " + protocol.label() + ", "
              + plan.longWindow().toSeconds() + " s");
          longRuns.add(section.one(fakeStores, protocol, 16,
              new ContendedRun.Timing(plan.fake().warmup(), plan.longWindow(), plan.fake().grace()), work));
        }
      }
      Optional<StoreRuns> s3 = Optional.empty();
      if (parts.contains("s3")) {
        try (S3ProxyStores stores = S3ProxyStores.start()) {
          progress.say("3. " + stores.label());
          s3 = Optional.of(section.run(stores, Protocol.all(), plan.cloudWriters(), plan.s3(), work));
        }
      }
      Optional<StoreRuns> gcs = Optional.empty();
      Optional<String> gcsSelfCheck = Optional.empty();
      List<SpacedCommits.Row> spaced = List.of();
      if (parts.contains("gcs")) {
        try (GcsFakeStores stores = GcsFakeStores.start()) {
          progress.say("3. " + stores.label());
          gcsSelfCheck = Optional.of(stores.selfCheckUnderLimit(work.resolve("gcs-self-check")));
          progress.say("  self-check under the write limit: " + gcsSelfCheck.get());
          gcs = Optional.of(section.run(stores, Protocol.all(), plan.cloudWriters(), plan.gcs(), work));
          spaced = SpacedCommits.measure(stores, plan.spacedCommits(), work);
          spaced.forEach(r -> progress.say("  gcs spaced commits, " + r.mode() + ": p50 " + MarkdownTable.number(r.p50Millis())
              + " ms, " + MarkdownTable.number(r.callsPerCommit()) + " calls/commit"));
        }
      }
      Optional<StoreRuns> fs = Optional.empty();
      if (parts.contains("fs")) {
        FileSystemStores stores = new FileSystemStores(work);
        progress.say("4. " + stores.label());
        fs = Optional.of(section.run(stores, Protocol.modesThen(Protocol.BASELINE),
            plan.writers(), plan.fs(), work));
      }
      JmhSection jmh = new JmhSection(plan.jmh());
      byte[] large = Fixtures.lockfile(Plan.LARGE).bytes();
      boolean identical = Arrays.equals(large, StringifyJson.write(StringifyJson.read(large)))
          && Arrays.equals(large, Lockfile.parse(large, "check").bytes());
      List<JmhScore> codec = List.of();
      if (parts.contains("codec")) {
        progress.say("5. codec (JMH), " + Plan.LARGE + " entries");
        codec = jmh.codec(Plan.LARGE);
      }
      List<JmhScore> puts = List.of();
      if (parts.contains("put")) {
        progress.say("5. one put end to end (JMH)");
        puts = jmh.put(List.of(PutProtocol.values()), List.of(1, Plan.LARGE));
      }
      List<LocalWrites.Measurement> local = List.of();
      if (parts.contains("local")) {
        progress.say("5. local bytes per put");
        local = LocalWrites.measure(List.of(1, Plan.LARGE));
      }
      Optional<StartupSection.Result> startup = Optional.empty();
      if (parts.contains("start")) {
        progress.say("6. start-up of the command line");
        startup = Optional.of(new StartupSection(work.resolve("start"), plan.startRounds()).measure(moduleDirectory()));
      }
      Measurements.Scale scale = scale(plan, parts, progress, work, spaced);
      return new Measurements(machine, plan, calls, fake, longRuns, s3, gcs, gcsSelfCheck, fs, codec, large.length, identical, puts,
          local, startup, scale, progress.elapsedSeconds(), Machine.loadNow());
    } finally {
      try {
        WorkDirectory.delete(work);
      } catch (java.io.UncheckedIOException e) {
        progress.say("left " + work + " behind: " + e.getMessage() + " (" + e.getCause() + ")");
      }
    }
  }

  private static Measurements.Scale scale(Plan plan, Set<String> parts, Progress progress, Path work,
      List<SpacedCommits.Row> spaced) throws Exception {
    Optional<DurableWork.Result> durable = Optional.empty();
    if (parts.contains("durable")) {
      progress.say("8. durable local work per commit, filesystem datastore, " + plan.durableCommits() + " commits");
      durable = Optional.of(new DurableWork(work, plan.durableCommits(), progress).measure());
    }
    List<PinnedInstalls.Row> pinned = List.of();
    if (parts.contains("pinned")) {
      progress.say("9. warm installs that pin an archive");
      pinned = PinnedInstalls.measure(work);
      pinned.forEach(r -> progress.say("  " + r.mode() + ", " + r.install() + ": " + r.calls().total() + " calls, "
          + r.archiveUploads() + " archive upload(s)"));
    }
    ConvergeScale converger = new ConvergeScale(LATENCY);
    List<ConvergeScale.Row> converge = new java.util.ArrayList<>();
    if (parts.contains("converge")) {
      for (Plan.Converge size : plan.converge()) {
        progress.say("10. converge " + size.entries() + " entries" + (size.restores() == 1 ? ", one restore at a time" : "")
            + ", bounded at " + size.bound().toSeconds() + " s");
        ConvergeScale.Row row = converger.measure(size.entries(), size.restores(), size.bound());
        progress.say("  " + ConvergeTables.summary(row));
        converge.add(row);
      }
    }
    return new Measurements.Scale(durable, pinned, converge, converger.latency(), spaced);
  }

  private static Optional<String> value(List<String> arguments, String option) {
    int i = arguments.indexOf(option);
    if (i < 0) {
      return Optional.empty();
    }
    if (i + 1 >= arguments.size()) {
      throw new IllegalArgumentException("Cannot read option " + option + ": it needs a value");
    }
    return Optional.of(arguments.get(i + 1));
  }

  /** Returns the module's directory: the parent of the {@code target/} this jar is in. */
  private static Path moduleDirectory() throws URISyntaxException {
    Path jar = Path.of(BenchmarkReport.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    Path target = jar.getParent();
    return target.getParent() != null ? target.getParent() : target;
  }
}
