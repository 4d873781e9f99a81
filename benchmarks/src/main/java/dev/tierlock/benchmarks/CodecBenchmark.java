package dev.tierlock.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The lockfile codec on a lockfile of {@code entries} entries (every field set), next to Jackson:
 * Tierlock's parse ({@code Lockfile.parse}, which decodes a member only when it is read), its parse
 * with every entry read, its full write ({@code Lockfile.of(entries).bytes()}), and its one-entry
 * surgical edit of the parsed file; Jackson's {@code readTree} and a pretty write
 * of the tree that yields the very same bytes ({@link StringifyJson}). Public, as JMH requires.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class CodecBenchmark {

  /** Entries in the lockfile. */
  @Param("5000")
  public int entries;

  private byte[] bytes = new byte[0];
  private Map<ExtensionName, LockfileEntry> map = Map.of();
  private Lockfile parsed = Lockfile.EMPTY;
  private JsonNode tree = StringifyJson.object();
  private ExtensionName edited = ExtensionName.of("@a/b");
  private LockfileEntry edit = Fixtures.plainEntry("0");

  /** Builds the lockfile and its parsed forms. */
  @Setup
  public void setUp() {
    bytes = Fixtures.lockfile(entries).bytes();
    parsed = Lockfile.parse(bytes, "benchmark");
    map = parsed.entries();
    tree = StringifyJson.read(bytes);
    edited = parsed.names().iterator().next();
    edit = Fixtures.plainEntry("9.9.9");
  }

  /** Tierlock's parse. */
  @Benchmark
  public Lockfile tierlockParse() {
    return Lockfile.parse(bytes, "benchmark");
  }

  /** Tierlock's parse, then every entry read (what a full tree costs). */
  @Benchmark
  public long tierlockParseEveryEntry() {
    long versions = 0;
    for (LockfileEntry entry : Lockfile.parse(bytes, "benchmark").entries().values()) {
      versions += entry.version().length();
    }
    return versions;
  }

  /** Tierlock's write of every entry. */
  @Benchmark
  public byte[] tierlockWrite() {
    return Lockfile.of(map).bytes();
  }

  /** Tierlock's one-entry edit of the parsed file, written out. */
  @Benchmark
  public byte[] tierlockEditOne() {
    return parsed.with(edited, edit).bytes();
  }

  /** Jackson's {@code readTree}. */
  @Benchmark
  public JsonNode jacksonReadTree() {
    return StringifyJson.read(bytes);
  }

  /** Jackson's pretty write of the tree, the same bytes. */
  @Benchmark
  public byte[] jacksonWrite() {
    return StringifyJson.write(tree);
  }
}
