package dev.tierlock.benchmarks;

import com.google.api.gax.retrying.RetrySettings;
import com.google.cloud.NoCredentials;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import dev.tierlock.CommitMode;
import dev.tierlock.Tierlock;
import dev.tierlock.datastore.gcs.GcsDatastore;
import dev.tierlock.spi.Datastore;
import dev.tierlock.testkit.gcs.GcsFakeServer;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * The testkit's GCS JSON-API fake server on 127.0.0.1 with GCS's limit of one write per second to
 * one object switched on (429 past it) while a run is measured, driven by the real
 * google-cloud-storage client, whose retries back off from 50 ms doubling to 1 s (six attempts).
 * Each store is a fresh bucket. The checkouts' self-checks at setup run without the limit: under it
 * the self-check's racing probe writes are refused ({@link #selfCheckUnderLimit}).
 */
final class GcsFakeStores implements StoreKind {

  private static final Duration LIMIT = Duration.ofSeconds(1);

  private final GcsFakeServer server;
  private final Storage storage;

  private GcsFakeStores(GcsFakeServer server, Storage storage) {
    this.server = server;
    this.storage = storage;
  }

  /** Starts the server, the write limit off until a run is measured. */
  static GcsFakeStores start() throws IOException {
    GcsFakeServer server = GcsFakeServer.start();
    Storage storage = StorageOptions.http()
        .setHost(server.endpoint().toString())
        .setProjectId("bench")
        .setCredentials(NoCredentials.getInstance())
        .setRetrySettings(RetrySettings.newBuilder()
            .setMaxAttempts(6)
            .setInitialRetryDelayDuration(Duration.ofMillis(50))
            .setRetryDelayMultiplier(2)
            .setMaxRetryDelayDuration(Duration.ofSeconds(1))
            .setTotalTimeoutDuration(Duration.ofSeconds(20))
            .setInitialRpcTimeoutDuration(Duration.ofSeconds(20))
            .setMaxRpcTimeoutDuration(Duration.ofSeconds(20))
            .build())
        .build()
        .getService();
    return new GcsFakeStores(server, storage);
  }

  @Override
  public String label() {
    return "GCS (testkit fake server on 127.0.0.1, 1 write/s per object)";
  }

  @Override
  public Optional<LineChart.Level> limit() {
    return Optional.of(new LineChart.Level("1 lockfile write/s (GCS's limit)", 1.0 / LIMIT.toSeconds()));
  }

  @Override
  public String slug() {
    return "gcs";
  }

  @Override
  public Datastore fresh() {
    return GcsDatastore.of(storage, server.newBucket(), "tier");
  }

  @Override
  public void beginMeasuring() {
    server.faults().limitWritesPerObject(LIMIT, Clock.systemUTC());
  }

  @Override
  public void endMeasuring() {
    server.faults().clear();
  }

  /** Returns how a self-check of a fresh bucket ends with the write limit on: {@code passed}, or its failure's code and message. */
  String selfCheckUnderLimit(Path checkout) {
    try (Datastore store = fresh(); Tierlock tierlock = TierlockCommitter.open(store, checkout, "self-check",
        CommitMode.LOCKED, Protocol.GroupCommit.ON)) {
      beginMeasuring();
      tierlock.checkDatastore();
      return "passed";
    } catch (RuntimeException e) {
      String message = String.valueOf(e.getMessage());
      return "failed: " + Errors.code(e) + " (" + (message.length() > 240 ? message.substring(0, 240) + "..." : message) + ")";
    } finally {
      endMeasuring();
    }
  }

  @Override
  public void close() {
    try {
      storage.close();
    } catch (Exception e) {
      throw new IllegalStateException("Cannot close the GCS client: " + e, e);
    } finally {
      server.close();
    }
  }
}
