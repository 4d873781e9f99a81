package dev.tierlock.benchmarks;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Section 5 of the report: the codec next to Jackson, one put end to end, and the local bytes of a put. */
final class CodecTables {

  private CodecTables() {}

  static String render(Measurements m) {
    StringBuilder out = new StringBuilder();
    if (!m.codec().isEmpty()) {
      out.append(String.format("A lockfile of %,d entries, every field set: %,d bytes. Jackson's pretty write of the tree "
          + "gives %s Tierlock's bytes. Mean time per operation, ± the standard deviation of the measured iterations.%n%n",
          Plan.LARGE, m.codecBytes(), m.jacksonIdentical() ? "exactly" : "**not** exactly"));
      MarkdownTable codec = new MarkdownTable("operation", "Tierlock us", "Jackson us", "Tierlock / Jackson");
      pair(codec, m.codec(), "parse; Tierlock decodes a member when it is read (Jackson: readTree)", "tierlockParse",
          "jacksonReadTree");
      pair(codec, m.codec(), "parse and read every entry (Jackson: readTree)", "tierlockParseEveryEntry",
          "jacksonReadTree");
      pair(codec, m.codec(), "write every entry (Jackson: pretty write of the tree)", "tierlockWrite", "jacksonWrite");
      Optional<Double> ours = sum(m.codec(), "tierlockParseEveryEntry", "tierlockWrite");
      Optional<Double> theirs = sum(m.codec(), "jacksonReadTree", "jacksonWrite");
      if (ours.isPresent() && theirs.isPresent()) {
        codec.row("parse (every entry read) + write", MarkdownTable.number(ours.get()), MarkdownTable.number(theirs.get()),
            MarkdownTable.ratio(ours.get() / theirs.get()));
      }
      Optional<JmhScore> edit = Measurements.score(m.codec(), "tierlockEditOne", Map.of());
      if (edit.isPresent() && theirs.isPresent()) {
        codec.row("change one entry of the parsed file and write it (Jackson: a full parse + write)",
            time(edit.get()), MarkdownTable.number(theirs.get()), MarkdownTable.ratio(edit.get().micros() / theirs.get()));
      }
      out.append(codec.render()).append('\n');
    }
    if (!m.puts().isEmpty()) {
      out.append("One warm `entries put` end to end (an existing name set to a new version, through the public API, ")
          .append("on a `FakeRemote` without latency): mean time per put.\n\n");
      MarkdownTable puts = new MarkdownTable("protocol", "entries", "us per put", "vs baseline protocol",
          "vs 1 entry");
      for (JmhScore s : m.puts()) {
        String entries = s.params().get("entries");
        String protocol = s.params().get("protocol");
        double baseline = Measurements.score(m.puts(), "put", Map.of("protocol", "BASELINE", "entries", entries))
            .map(JmhScore::micros).orElse(Double.NaN);
        double one = Measurements.score(m.puts(), "put", Map.of("protocol", protocol, "entries", "1"))
            .map(JmhScore::micros).orElse(Double.NaN);
        puts.row(PutProtocol.valueOf(protocol).label(), entries, time(s), MarkdownTable.ratio(s.micros() / baseline),
            MarkdownTable.ratio(s.micros() / one));
      }
      out.append(puts.render()).append('\n');
    }
    if (!m.local().isEmpty()) {
      out.append("Local bytes one warm put writes (cache, pending record, lock files...): the writing thread's ")
          .append("`wchar` from `/proc/thread-self/io` over 20 puts, every datastore call made on another thread so ")
          .append("the fake remote's own files do not count.\n\n");
      MarkdownTable local = new MarkdownTable("protocol", "entries", "lockfile bytes", "local bytes per put",
          "local / lockfile");
      for (LocalWrites.Measurement w : m.local()) {
        local.row(w.protocol().label(), String.valueOf(w.entries()), String.format("%,d", w.lockfileBytes()),
            w.bytesPerPut().isPresent() ? String.format("%,.0f", w.bytesPerPut().getAsDouble()) : "not measured",
            w.ratio().isPresent() ? MarkdownTable.ratio(w.ratio().getAsDouble()) : "");
      }
      out.append(local.render()).append('\n');
    }
    return out.toString();
  }

  private static void pair(MarkdownTable table, List<JmhScore> scores, String label, String ours, String theirs) {
    Optional<JmhScore> a = Measurements.score(scores, ours, Map.of());
    Optional<JmhScore> b = Measurements.score(scores, theirs, Map.of());
    if (a.isPresent() && b.isPresent()) {
      table.row(label, time(a.get()), time(b.get()), MarkdownTable.ratio(a.get().micros() / b.get().micros()));
    }
  }

  private static Optional<Double> sum(List<JmhScore> scores, String first, String second) {
    Optional<JmhScore> a = Measurements.score(scores, first, Map.of());
    Optional<JmhScore> b = Measurements.score(scores, second, Map.of());
    return a.isPresent() && b.isPresent() ? Optional.of(a.get().micros() + b.get().micros()) : Optional.empty();
  }

  private static String time(JmhScore score) {
    return MarkdownTable.number(score.micros())
        + (Double.isFinite(score.deviation()) ? " ± " + MarkdownTable.number(score.deviation()) : "");
  }
}
