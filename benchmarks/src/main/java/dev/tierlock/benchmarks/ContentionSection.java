package dev.tierlock.benchmarks;

import dev.tierlock.spi.Datastore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Runs every protocol at every writer count on one kind of store, a fresh store per run, and prints each result. */
final class ContentionSection {

  private final Progress progress;

  ContentionSection(Progress progress) {
    this.progress = progress;
  }

  /** Measures {@code protocols} x {@code writers} on {@code kind}. */
  StoreRuns run(StoreKind kind, List<Protocol> protocols, List<Integer> writers, ContendedRun.Timing timing,
      Path work) throws InterruptedException {
    double roundTrip;
    try (Datastore probe = kind.fresh()) {
      roundTrip = RoundTrip.millis(probe);
    }
    progress.say(String.format("%s: round trip %.2f ms", kind.label(), roundTrip));
    List<RunResult> results = new ArrayList<>();
    for (Protocol protocol : protocols) {
      for (int n : writers) {
        results.add(one(kind, protocol, n, timing, work));
      }
    }
    return new StoreRuns(kind.label(), kind.slug(), roundTrip, timing.window().toMillis() / 1000.0, results,
        kind.limit());
  }

  /** Measures one protocol at one writer count on a fresh store of {@code kind}. */
  RunResult one(StoreKind kind, Protocol protocol, int writers, ContendedRun.Timing timing, Path work)
      throws InterruptedException {
    RunResult result;
    Path directory = work.resolve(kind.slug() + "-" + protocol.name().toLowerCase() + "-" + writers);
    try (Datastore store = kind.fresh()) {
      KeyCalls keys = new KeyCalls(store);
      result = new ContendedRun(protocol, writers, timing).run(kind, keys, directory);
    } finally {
      WorkDirectory.delete(directory);
    }
    progress.say("  " + kind.slug() + " " + result.summary());
    return result;
  }
}
