package dev.tierlock.archive;

import dev.tierlock.Namespace;
import dev.tierlock.spi.Datastore;
import java.nio.file.Path;
import java.time.Clock;

/** Builds {@link ArchiveStore}s. */
public final class ArchiveStores {

  private ArchiveStores() {}

  /**
   * Returns a store over {@code datastore}, keyed under {@code namespace} ({@code
   * <ns>/config/pulled-archives/<name>/<sha256>.tar.gz}), caching verified archives under {@code
   * cacheRoot} laid out like the tier ({@link Namespace#localPath}).
   *
   * @param datastore the shared datastore; not closed by the store
   * @param namespace the namespace the checkout shares the datastore under, applied once
   * @param cacheRoot the checkout's local cache of the tier; created on first use
   * @param limits the caps; {@link ArchiveLimits#DEFAULTS} unless the operator changed them
   * @param clock the clock read deadlines are measured on
   * @return a thread-safe store
   */
  public static ArchiveStore over(Datastore datastore, Namespace namespace, Path cacheRoot, ArchiveLimits limits,
      Clock clock) {
    return new DatastoreArchiveStore(datastore, namespace, cacheRoot, limits, clock);
  }
}
