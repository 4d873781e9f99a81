package dev.tierlock.benchmarks;

import dev.tierlock.Sleeper;
import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.FakeRemote;
import java.time.Duration;

/** The testkit's fake remote, each call first sleeping for real ({@code Faults} latency through {@link Sleeper#SYSTEM}). */
final class FakeRemoteStores implements StoreKind {

  private final Duration latency;

  FakeRemoteStores(Duration latency) {
    this.latency = latency;
  }

  @Override
  public String label() {
    return "FakeRemote, " + latency.toMillis() + " ms added to every call";
  }

  @Override
  public String slug() {
    return "fake";
  }

  @Override
  public Datastore fresh() {
    FakeRemote remote = FakeRemote.create();
    if (!latency.isZero()) {
      remote.faults().latency(latency, Sleeper.SYSTEM, Duration.ofMinutes(5));
    }
    return remote;
  }

  @Override
  public void close() {
    // every store is a FakeRemote of its own, deleted when closed
  }
}
