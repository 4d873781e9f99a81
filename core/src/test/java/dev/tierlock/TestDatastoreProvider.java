package dev.tierlock;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreProvider;
import java.net.URI;

/** Registered for core's tests: opens {@code memory:} URIs. */
public final class TestDatastoreProvider implements DatastoreProvider {

  /** The store most recently opened, for tests that check who closes it. */
  static final java.util.concurrent.atomic.AtomicReference<MemoryDatastore> LAST = new java.util.concurrent.atomic.AtomicReference<>();

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
    MemoryDatastore opened = new MemoryDatastore();
    LAST.set(opened);
    return opened;
  }
}
