package com.example.tierlock.memory;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreProvider;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Opens {@code mem://<bucket>}: one in-memory bucket per name, for the life of the JVM. */
public final class MemoryDatastoreProvider implements DatastoreProvider {

  private static final Map<String, MemoryDatastore.Bucket> BUCKETS = new ConcurrentHashMap<>();

  /** Creates the provider; {@link java.util.ServiceLoader} calls this. */
  public MemoryDatastoreProvider() {}

  @Override
  public String scheme() {
    return "mem";
  }

  @Override
  public Datastore open(URI uri) {
    String bucket = uri.getHost();
    if (!"mem".equalsIgnoreCase(uri.getScheme()) || bucket == null
        || !(uri.getRawPath() == null || uri.getRawPath().isEmpty()) || uri.getRawQuery() != null) {
      throw new IllegalArgumentException("Cannot open memory datastore " + uri + ": the form is mem://<bucket>");
    }
    return new MemoryDatastore(BUCKETS.computeIfAbsent(bucket, b -> new MemoryDatastore.Bucket()), bucket);
  }
}
