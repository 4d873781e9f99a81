package dev.tierlock.datastore.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.spi.DatastoreUnsafeException;
import dev.tierlock.Datastores;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import dev.tierlock.testkit.gcs.GcsFakeBucket;
import dev.tierlock.testkit.gcs.GcsFakeServerExtension;
import dev.tierlock.testkit.gcs.PreconditionMode;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The precondition self-check of core ({@link Datastores#selfChecked}) over GCS: it passes on a
 * bucket that honours preconditions and refuses, before any write, a bucket that ignores them.
 */
@ExtendWith(GcsFakeServerExtension.class)
class GcsSelfCheckTest {

  private static final ObjectKey KEY = ObjectKey.of("config/upstream_extensions.json");

  @Test
  void selfChecked_onABucketIgnoringPreconditions_refusesToWrite(GcsFakeBucket bucket) {
    bucket.server().preconditions(bucket.name(), PreconditionMode.IGNORED);
    try (Datastore store = Datastores.selfChecked(GcsDatastore.of(TestStorage.retrying(bucket.server()),
        bucket.name(), "tier"))) {
      assertThatThrownBy(() -> store.write(KEY, ObjectBody.of(bytes("{}")), WriteCondition.mustNotExist(),
          ObjectMetadata.EMPTY))
          .isInstanceOf(DatastoreUnsafeException.class)
          .hasMessageStartingWith("Cannot write to datastore gs://" + bucket.name() + "/tier?endpoint=" + bucket.endpoint()
              + ": it does not honour write"
              + " preconditions (a create-only write over an existing object succeeded")
          .satisfies(e -> assertThat(((DatastoreUnsafeException) e).code()).isEqualTo("datastore_unsafe"));
    }
    assertThat(bucket.server().objectNames(bucket.name())).isEmpty();
  }

  @Test
  void selfChecked_openedByUri_passesOnAnHonestBucketAndCleansUp(GcsFakeBucket bucket) {
    URI uri = URI.create("gs://" + bucket.name() + "/tier?endpoint=" + bucket.endpoint());
    try (Datastore store = Datastores.selfChecked(Datastores.open(uri))) {
      assertThat(store.write(KEY, ObjectBody.of(bytes("{}")), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY))
          .isInstanceOf(WriteResult.Written.class);
    }
    assertThat(bucket.server().objectNames(bucket.name())).containsExactly("tier/" + KEY.value());
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
