package dev.tierlock.benchmarks;

import dev.tierlock.benchmarks.CallCounts.Case;
import dev.tierlock.benchmarks.CallCounts.Count;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.Predicate;
import java.util.stream.Stream;

/** The earlier performance targets, each set against what this run measured. */
final class Targets {

  /**
   * One target: what it asks, what was measured, whether it was met, and when it was not, why, from
   * what the run measured.
   */
  record Row(String target, String measured, String verdict, String cause) {

    /** A target without a cause: met, or its cause not measured. */
    Row(String target, String measured, String verdict) {
      this(target, measured, verdict, "");
    }

    /** Returns this row with {@code why} as its cause when it was missed. */
    Row causedBy(String why) {
      return verdict.equals("met") ? this : new Row(target, measured, verdict, why);
    }
  }

  private static final int LOCKED = Protocol.MODES.indexOf(dev.tierlock.CommitMode.LOCKED);
  private static final int OPTIMISTIC = Protocol.MODES.indexOf(dev.tierlock.CommitMode.OPTIMISTIC);

  private final Measurements m;
  private final List<Row> rows = new ArrayList<>();

  private Targets(Measurements m) {
    this.m = m;
  }

  /** Returns the rows for {@code m}, in the order. */
  static List<Row> of(Measurements m) {
    Targets t = new Targets(m);
    t.calls();
    t.contention();
    t.local();
    return t.rows;
  }

  private void calls() {
    if (m.calls().isEmpty()) {
      return;
    }
    Count optimisticWarm = m.calls().get(Case.WARM).get(OPTIMISTIC);
    Count lockedWarm = m.calls().get(Case.WARM).get(LOCKED);
    add("optimistic warm commit: 1 call", optimisticWarm, c -> c.total() <= 1);
    add("locked warm commit: at most 4 calls", lockedWarm, c -> c.total() <= 4);
    Count first = m.calls().get(Case.FIRST_CREATION).get(OPTIMISTIC);
    Count check = m.calls().get(Case.SELF_CHECK_NEW).get(OPTIMISTIC);
    rows.add(new Row("first creation (optimistic): 1 call, plus the once-per-store self-check",
        first.total() + " calls, self-check " + check.total(), verdict(first.total() <= 1))
        .causedBy(first.calls().entrySet().stream().filter(e -> e.getValue() > 0)
            .map(e -> e.getValue() + " " + e.getKey().name().toLowerCase().replace('_', ' '))
            .collect(java.util.stream.Collectors.joining(", "))
            + ": a checkout that has never seen the lockfile reads it first, since another may have created it;"
            + " finding none, it creates it conditional on its absence. Without that read, a create refused by a"
            + " peer's lockfile costs the read anyway, and a commit must never be written blind"));
  }

  private void add(String target, Count count, Predicate<Count> met) {
    rows.add(new Row(target, count.total() + (count.total() == 1 ? " call" : " calls"), verdict(met.test(count))));
  }

  private void contention() {
    m.fake().ifPresent(fake -> {
      ratio("1 writer, locked: >= 0.9x the baseline protocol's commits/s", fake.find(Protocol.LOCKED, 1),
          fake.find(Protocol.BASELINE, 1), 0.9);
      fake.find(Protocol.LOCKED, 1).ifPresent(l -> fake.find(Protocol.BASELINE, 1).ifPresent(b -> causeLast(
          "the same calls per commit (" + MarkdownTable.number(l.callsPerCommit()) + " vs "
              + MarkdownTable.number(b.callsPerCommit()) + "); p50 " + MarkdownTable.number(l.p50Millis()) + " vs "
              + MarkdownTable.number(b.p50Millis()) + " ms: the difference is local work between the calls, the"
              + " pending record made durable before the write and the cache written after it")));
      Optional<RunResult> sixteen = m.longRun(Protocol.LOCKED).or(() -> fake.find(Protocol.LOCKED, 16));
      sixteen.ifPresent(r -> {
        String window = MarkdownTable.number(r.seconds()) + " s";
        double ceiling = fake.lockedCeiling();
        rows.add(new Row("16 separate checkouts, locked: >= 0.9x the 1/(4 RTT) ceiling (" + window + ")",
            MarkdownTable.number(r.commitsPerSecond()) + " commits/s of " + MarkdownTable.number(ceiling) + " = "
                + MarkdownTable.ratio(r.commitsPerSecond() / ceiling), verdict(r.commitsPerSecond() >= 0.9 * ceiling)));
        rows.add(new Row("16 separate checkouts, locked: every writer >= a quarter of the mean (" + window + ")",
            "min " + r.minPerWriter() + ", mean " + MarkdownTable.number(r.meanPerWriter()),
            verdict(r.minPerWriter() >= r.meanPerWriter() / 4)));
        rows.add(new Row("16 separate checkouts, locked: p99 <= 10x p50 (" + window + ")",
            "p50 " + MarkdownTable.number(r.p50Millis()) + " ms, p99 " + MarkdownTable.number(r.p99Millis()) + " ms = "
                + MarkdownTable.ratio(r.p99Millis() / r.p50Millis()), verdict(r.p99Millis() <= 10 * r.p50Millis())));
      });
      int timeouts = tierlockRuns().mapToInt(r -> r.errors().getOrDefault("lock_timeout", 0)).sum();
      rows.add(new Row("no lock_timeout (every Tierlock run)", timeouts + " lock_timeout", verdict(timeouts == 0)));
      ratio("optimistic >= 1.5x locked (16 separate checkouts)", fake.find(Protocol.OPTIMISTIC, 16),
          fake.find(Protocol.LOCKED, 16), 1.5);
      ratio("optimistic >= 1.5x locked (1 writer)", fake.find(Protocol.OPTIMISTIC, 1), fake.find(Protocol.LOCKED, 1), 1.5);
      ratio("16 writers on one checkout: group commit >= 10x without it", fake.find(Protocol.SHARED_GROUP, 16),
          fake.find(Protocol.SHARED_SERIAL, 16), 10);
      fake.find(Protocol.SHARED_SERIAL, 16).ifPresent(serial -> causeLast("the reference, one checkout's 16 threads"
          + " without group commit, is no longer one commit per four round trips: its runs hand the lease over"
          + " inside the JVM, " + MarkdownTable.number(serial.callsPerCommit()) + " calls per commit, "
          + MarkdownTable.number(serial.commitsPerSecond()) + " commits/s; group commit's batches ("
          + fake.find(Protocol.SHARED_GROUP, 16).map(g -> MarkdownTable.number(g.callsPerCommit())).orElse("?")
          + " calls per commit) gain that much less over it"));
      Optional<RunResult> group = fake.find(Protocol.SHARED_GROUP, 16);
      group.ifPresent(r -> rows.add(new Row("16 writers on one checkout, group commit: > 100 commits/s",
          MarkdownTable.number(r.commitsPerSecond()) + " commits/s", verdict(r.commitsPerSecond() > 100))));
    });
    int hung = tierlockRuns().mapToInt(RunResult::hung).sum();
    rows.add(new Row("every commit returns (every Tierlock run; not a target of the issue, a check)", hung == 0
        ? "no writer hung" : hung + " writers never returned from a commit, even interrupted", verdict(hung == 0)));
    int lost = tierlockRuns().mapToInt(RunResult::lost).sum();
    int acknowledged = tierlockRuns().mapToInt(RunResult::acknowledged).sum();
    int unlocked = allRuns().filter(r -> r.protocol() == Protocol.NO_LOCK).mapToInt(RunResult::lost).sum();
    rows.add(new Row("zero lost changes (every Tierlock run)", lost + " of " + acknowledged
        + " acknowledged (the no-lock protocol lost " + unlocked + ")", verdict(lost == 0)));
  }

  /** Gives the row just added {@code why} as its cause, if it was missed. */
  private void causeLast(String why) {
    rows.set(rows.size() - 1, rows.get(rows.size() - 1).causedBy(why));
  }

  private void ratio(String target, Optional<RunResult> subject, Optional<RunResult> reference, double least) {
    if (subject.isEmpty() || reference.isEmpty()) {
      return;
    }
    double value = subject.get().commitsPerSecond() / reference.get().commitsPerSecond();
    rows.add(new Row(target, MarkdownTable.number(subject.get().commitsPerSecond()) + " vs "
        + MarkdownTable.number(reference.get().commitsPerSecond()) + " commits/s = " + MarkdownTable.ratio(value),
        verdict(value >= least)));
  }

  private void local() {
    String large = String.valueOf(Plan.LARGE);
    Optional<JmhScore> parse = Measurements.score(m.codec(), "tierlockParseEveryEntry", Map.of());
    Optional<JmhScore> write = Measurements.score(m.codec(), "tierlockWrite", Map.of());
    Optional<JmhScore> read = Measurements.score(m.codec(), "jacksonReadTree", Map.of());
    Optional<JmhScore> print = Measurements.score(m.codec(), "jacksonWrite", Map.of());
    if (parse.isPresent() && write.isPresent() && read.isPresent() && print.isPresent()) {
      double ours = parse.get().micros() + write.get().micros();
      double theirs = read.get().micros() + print.get().micros();
      rows.add(new Row("codec parse (every entry read) + write, 5,000 entries: within 2x Jackson",
          MarkdownTable.number(ours) + " vs "
          + MarkdownTable.number(theirs) + " us = " + MarkdownTable.ratio(ours / theirs), verdict(ours <= 2 * theirs)));
    }
    Optional<JmhScore> baseline = Measurements.score(m.puts(), "put", Map.of("protocol", "BASELINE", "entries", large));
    for (PutProtocol protocol : List.of(PutProtocol.LOCKED, PutProtocol.OPTIMISTIC)) {
      String target = "warm put, 5,000 entries, " + protocol.label() + ": within 1.2x the baseline protocol";
      Optional<JmhScore> ours = Measurements.score(m.puts(), "put", Map.of("protocol", protocol.name(), "entries", large));
      if (ours.isPresent() && baseline.isPresent()) {
        double value = ours.get().micros() / baseline.get().micros();
        rows.add(new Row(target, MarkdownTable.number(ours.get().micros()) + " vs "
            + MarkdownTable.number(baseline.get().micros()) + " us = " + MarkdownTable.ratio(value), verdict(value <= 1.2)));
      }
    }
    for (LocalWrites.Measurement w : m.local()) {
      if (w.entries() != Plan.LARGE || w.protocol() == PutProtocol.BASELINE) {
        continue;
      }
      String target = "warm put, 5,000 entries, " + w.protocol().label() + ": local bytes <= 2x the lockfile";
      OptionalDouble ratio = w.ratio();
      rows.add(ratio.isEmpty() ? new Row(target, "not measurable here (no /proc/thread-self/io)", "not measured")
          : new Row(target, String.format("%,.0f bytes of a %,d-byte lockfile = %s", w.bytesPerPut().getAsDouble(),
              w.lockfileBytes(), MarkdownTable.ratio(ratio.getAsDouble())), verdict(ratio.getAsDouble() <= 2)));
    }
  }

  private Stream<RunResult> allRuns() {
    return Stream.of(m.fake(), m.s3(), m.gcs(), m.fs())
        .flatMap(Optional::stream)
        .flatMap(runs -> runs.results().stream());
  }

  private Stream<RunResult> tierlockRuns() {
    return Stream.concat(allRuns(), m.longRuns().stream())
        .filter(r -> r.protocol().shape() != Protocol.Shape.UPLOAD);
  }

  private static String verdict(boolean met) {
    return met ? "met" : "**missed**";
  }
}
