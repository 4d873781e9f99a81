package dev.tierlock.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One warm {@code entries put} end to end, through the public API on a fake remote without latency,
 * on a lockfile of 1 or 5,000 entries, by Tierlock and by the baseline protocol ({@link
 * PutFixture}). Public, as JMH requires.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class PutBenchmark {

  /** Entries in the lockfile. */
  @Param({"1", "5000"})
  public int entries;

  /** Who puts. */
  @Param({"LOCKED", "BASELINE"})
  public PutProtocol protocol;

  private PutFixture fixture;

  /** Plants the lockfile and warms the writer. */
  @Setup(Level.Trial)
  public void setUp() {
    fixture = PutFixture.open(protocol, entries, UnaryOperator.identity());
  }

  /** One put. */
  @Benchmark
  public void put() {
    fixture.put();
  }

  /** Deletes the store and the checkout. */
  @TearDown(Level.Trial)
  public void tearDown() {
    fixture.close();
  }
}
