package dev.tierlock.benchmarks;

import dev.tierlock.spi.Datastore;

/** A kind of shared datastore the contention runs are measured on; each run gets a fresh, empty one. */
interface StoreKind extends AutoCloseable {

  /** Returns what the report calls it, e.g. {@code FakeRemote, 10 ms added to every call}. */
  String label();

  /** Returns a throughput level the store itself imposes, drawn on the charts (GCS's write rate); none by default. */
  default java.util.Optional<LineChart.Level> limit() {
    return java.util.Optional.empty();
  }

  /** Returns a short name for file names, e.g. {@code fake}. */
  String slug();

  /** Returns a fresh, empty store; closing it deletes what it holds. */
  Datastore fresh();

  /**
   * Switches on what the store does only while a run is measured (GCS's write limit: the checkouts'
   * self-checks at setup run without it); nothing by default.
   */
  default void beginMeasuring() {}

  /** Switches off what {@link #beginMeasuring()} switched on; nothing by default. */
  default void endMeasuring() {}

  /** Stops whatever server the stores live on. */
  @Override
  void close();
}
