package dev.tierlock.datastore.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.Storage;
import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Tierlock;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.DatastoreUnsafeException;
import dev.tierlock.testkit.gcs.GcsFakeBucket;
import dev.tierlock.testkit.gcs.GcsFakeServerExtension;
import dev.tierlock.testkit.gcs.PreconditionMode;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The precondition self-check of core over GCS, as a checkout meets it before its first write: it
 * refuses, before any write, a bucket that ignores preconditions and a client that answers with no
 * generation, and passes on an honest bucket opened by URI, leaving only its verdict besides what
 * the checkout wrote.
 */
@ExtendWith(GcsFakeServerExtension.class)
class GcsSelfCheckTest {

  private static final Consumer<dev.tierlock.TransactionContext> PUT = tx -> tx.put(ExtensionName.of("@acme/web"),
      LockfileEntry.builder("1.0.0", "2026-01-01T00:00:00.000Z").build());

  @Test
  void selfCheck_onABucketIgnoringPreconditions_refusesToWrite(GcsFakeBucket bucket, @TempDir Path checkout) {
    bucket.server().preconditions(bucket.name(), PreconditionMode.IGNORED);
    try (GcsDatastore store = GcsDatastore.of(TestStorage.retrying(bucket.server()), bucket.name(), "tier");
        Tierlock tierlock = Tierlock.builder().datastore(store).checkout(checkout).build()) {
      assertThatThrownBy(() -> tierlock.transaction().run(PUT))
          .isInstanceOf(DatastoreUnsafeException.class)
          .hasMessageStartingWith("Cannot write to datastore " + store.identity() + ": it does not honour write"
              + " preconditions (a create-only write over an existing object succeeded, probe key .tierlock-selfcheck/probe-")
          .hasMessageContaining("gs://" + bucket.name() + "/tier at ")
          .satisfies(e -> assertThat(((DatastoreUnsafeException) e).code()).isEqualTo("datastore_unsafe"));
    }
    assertThat(bucket.server().objectNames(bucket.name())).isEmpty();
  }

  /**
   * A client whose answers carry no generation (google-cloud-nio's {@code LocalStorageHelper} gives
   * none) is refused as unsafe, naming what it lacks, never with a {@link NullPointerException}; the
   * check's probes are removed.
   */
  @Test
  void selfCheck_onAClientAnsweringWithNoGeneration_isUnsafe_andLeavesNoProbe(GcsFakeBucket bucket,
      @TempDir Path checkout) {
    GcsClients real = GcsClients.derive(TestStorage.options(bucket.server()), GcsDatastore.DEFAULT_CALL_TIMEOUT);
    GcsClients unversioned = new GcsClients(withoutGenerations(real.reads()), withoutGenerations(real.changes()),
        real.host());
    try (GcsDatastore store = GcsDatastore.through(GcsLocation.of(bucket.name(), "tier"), unversioned,
        GcsDatastore.DEFAULT_CALL_TIMEOUT); Tierlock tierlock = Tierlock.builder().datastore(store).checkout(checkout)
        .build()) {
      assertThatThrownBy(() -> tierlock.transaction().run(PUT))
          .isInstanceOf(DatastoreUnsafeException.class)
          .hasMessageStartingWith("Cannot write object .tierlock-selfcheck/probe-")
          .hasMessageContaining(": the server answered with no generation for object tier/.tierlock-selfcheck/probe-")
          .hasMessageEndingWith(", so it does not version its objects and no write to it can be conditional on a"
              + " version; Tierlock refuses to write to it")
          .satisfies(e -> assertThat(((DatastoreUnsafeException) e).code()).isEqualTo("datastore_unsafe"));
    }
    assertThat(bucket.server().objectNames(bucket.name())).isEmpty();
  }

  /** Returns {@code storage} with the generation dropped from every object it answers with. */
  private static Storage withoutGenerations(Storage storage) {
    return (Storage) Proxy.newProxyInstance(Storage.class.getClassLoader(), new Class<?>[] {Storage.class},
        (proxy, method, args) -> {
          Object answer;
          try {
            answer = method.invoke(storage, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
          return answer instanceof Blob blob
              ? blob.toBuilder().setBlobId(BlobId.of(blob.getBucket(), blob.getName())).build() : answer;
        });
  }

  @Test
  void selfCheck_openedByUri_passesOnAnHonestBucket_andLeavesOnlyItsVerdict(GcsFakeBucket bucket, @TempDir Path checkout) {
    URI uri = URI.create("gs://" + bucket.name() + "/tier?endpoint=" + bucket.endpoint());
    try (Tierlock tierlock = Tierlock.builder().datastore(uri).checkout(checkout).build()) {
      assertThat(tierlock.transaction().run(PUT).status()).isEqualTo(TransactionStatus.PUBLISHED);
    }
    assertThat(bucket.server().objectNames(bucket.name()))
        .containsExactlyInAnyOrder("tier/.tierlock-selfcheck/verdict", "tier/config/upstream_extensions.json");
  }
}
