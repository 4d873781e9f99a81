package dev.tierlock;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreProvider;
import java.net.URI;

/** Registered for core's tests: opens {@code memory://host} URIs, one store per host. */
public final class TestDatastoreProvider implements DatastoreProvider {

  /** The store most recently opened, for tests that check who closes it. */
  static final java.util.concurrent.atomic.AtomicReference<MemoryDatastore> LAST = new java.util.concurrent.atomic.AtomicReference<>();

  private static final java.util.concurrent.ConcurrentMap<String, MemoryDatastore> OPEN =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** Creates the provider (ServiceLoader). */
  public TestDatastoreProvider() {}

  @Override
  public String scheme() {
    return "memory";
  }

  @Override
  public Datastore open(URI uri) {
    if (uri.getHost() == null) {
      throw new IllegalArgumentException("Cannot open " + uri + ": a memory URI names a host");
    }
    // one store per host, as one bucket is one store: opening it again reopens the same objects
    MemoryDatastore opened = OPEN.compute(uri.getHost(), (host, known) -> known == null
        ? new MemoryDatastore("memory-" + host) : known.reopen());
    LAST.set(opened);
    return opened;
  }
}
