package dev.tierlock.benchmarks;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs the JMH benchmarks of section 5 in one forked JVM each (the fork's class path is this jar's,
 * whose manifest names its libraries) and returns their scores.
 */
final class JmhSection {

  /** How long JMH measures. */
  record Timing(int warmups, int iterations, TimeValue time) {}

  private final Timing timing;

  JmhSection(Timing timing) {
    this.timing = timing;
  }

  /** Runs {@link CodecBenchmark} on a lockfile of {@code entries} entries. */
  List<JmhScore> codec(int entries) throws RunnerException {
    return run(options(CodecBenchmark.class).param("entries", String.valueOf(entries)));
  }

  /** Runs {@link PutBenchmark} for {@code protocols} on lockfiles of {@code sizes} entries. */
  List<JmhScore> put(List<PutProtocol> protocols, List<Integer> sizes) throws RunnerException {
    return run(options(PutBenchmark.class)
        .param("protocol", protocols.stream().map(Enum::name).toArray(String[]::new))
        .param("entries", sizes.stream().map(String::valueOf).toArray(String[]::new)));
  }

  private ChainedOptionsBuilder options(Class<?> benchmark) {
    return new OptionsBuilder()
        .include("^" + benchmark.getName().replace(".", "\\.") + "\\.")
        .forks(1)
        .warmupIterations(timing.warmups())
        .warmupTime(timing.time())
        .measurementIterations(timing.iterations())
        .measurementTime(timing.time())
        .timeUnit(TimeUnit.MICROSECONDS)
        .jvmArgsAppend("-Xmx1g", "-Djava.awt.headless=true")
        .shouldFailOnError(true);
  }

  private static List<JmhScore> run(ChainedOptionsBuilder options) throws RunnerException {
    Collection<RunResult> results = new Runner(options.build()).run();
    List<JmhScore> scores = new ArrayList<>();
    for (RunResult result : results) {
      String label = result.getParams().getBenchmark();
      String method = label.substring(label.lastIndexOf('.') + 1);
      Map<String, String> params = new LinkedHashMap<>();
      for (String key : result.getParams().getParamsKeys()) {
        params.put(key, result.getParams().getParam(key));
      }
      scores.add(new JmhScore(method, params, result.getPrimaryResult().getScore(),
          result.getPrimaryResult().getStatistics().getStandardDeviation()));
    }
    return scores;
  }
}
