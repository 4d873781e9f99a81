package dev.tierlock.cli;

import dev.tierlock.datastore.fs.FileSystemDatastore;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreProvider;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.net.URI;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * {@code stall:///path?at=read|write}: the filesystem datastore at {@code path}, whose read (or
 * write) of the shared lockfile never returns: a command on it stands still at that step until its
 * process is signalled. For the tests of an interrupted command, in a child JVM.
 */
public final class StallingDatastoreProvider implements DatastoreProvider {

  /** For {@link java.util.ServiceLoader}. */
  public StallingDatastoreProvider() {}

  @Override
  public String scheme() {
    return "stall";
  }

  @Override
  public Datastore open(URI uri) {
    boolean atWrite = "at=write".equals(uri.getQuery());
    FileSystemDatastore store = FileSystemDatastore.open(Path.of(uri.getPath()));
    CountDownLatch never = new CountDownLatch(1);
    return new ForwardingDatastore() {
      @Override
      protected Datastore delegate() {
        return store;
      }

      @Override
      public ReadResult read(ObjectKey key, ReadCondition condition, long maxBytes) {
        if (!atWrite && lockfile(key)) {
          stall(never, "read");
        }
        return store.read(key, condition, maxBytes);
      }

      @Override
      public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
        if (atWrite && lockfile(key)) {
          stall(never, "write");
        }
        return store.write(key, body, condition, metadata);
      }
    };
  }

  private static boolean lockfile(ObjectKey key) {
    return key.value().endsWith("upstream_extensions.json");
  }

  /** Says on stderr where it stands still (a test waits for that line), then never returns unless interrupted. */
  private static void stall(CountDownLatch never, String step) {
    System.err.println("stalled at the lockfile " + step);
    System.err.flush();
    try {
      never.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
