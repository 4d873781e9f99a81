package dev.tierlock.datastore.s3;

import static dev.tierlock.datastore.s3.S3DatastoreTest.body;
import static dev.tierlock.datastore.s3.S3DatastoreTest.rawKeys;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.spi.DatastoreUnsafeException;
import dev.tierlock.Datastores;
import dev.tierlock.TierlockException;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The precondition self-check on the real S3 server: it passes on a server that honours
 * {@code If-None-Match: *} and refuses, before writing anything, one that ignores it (the test
 * server's {@link ServerState.Mode#IGNORE_PRECONDITIONS} bucket mode, which drops the header
 * server-side as some S3-compatible stores do).
 */
@ExtendWith(S3ServerExtension.class)
class S3SelfCheckTest {

  private static final ObjectKey LOCKFILE = ObjectKey.of("config/upstream_extensions.json");

  @Test
  void selfChecked_onAServerThatHonoursPreconditions_writesAndLeavesNoProbe(S3TestBucket bucket) {
    Datastore datastore = Datastores.selfChecked(bucket.datastore("tier"));

    WriteResult result = datastore.write(LOCKFILE, body("{}"), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);

    assertThat(result).isInstanceOf(WriteResult.Written.class);
    assertThat(rawKeys(bucket)).containsExactly("tier/config/upstream_extensions.json");
  }

  @Test
  void selfChecked_onAServerThatIgnoresIfNoneMatch_refusesToWriteAndNamesTheEndpoint(S3TestBucket bucket) {
    bucket.mode(ServerState.Mode.IGNORE_PRECONDITIONS);
    S3Datastore raw = bucket.datastore("tier");
    ObjectKey probe = ObjectKey.of("probe");
    raw.write(probe, body("first"), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);
    assertThat(raw.write(probe, body("second"), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY))
        .as("the broken bucket lets a create-only write overwrite")
        .isInstanceOf(WriteResult.Written.class);
    raw.delete(probe, WriteCondition.none());
    Datastore datastore = Datastores.selfChecked(raw);

    assertThatThrownBy(() -> datastore.write(LOCKFILE, body("{}"), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY))
        .isInstanceOf(DatastoreUnsafeException.class)
        .hasMessageStartingWith("Cannot write to datastore s3://" + bucket.name() + "/tier/?endpoint="
            + bucket.server().endpoint() + ": it does not honour write preconditions "
            + "(a create-only write over an existing object succeeded, probe key .tierlock-selfcheck/")
        .satisfies(e -> assertThat(((TierlockException) e).code()).isEqualTo(DatastoreUnsafeException.CODE));

    assertThat(rawKeys(bucket)).isEmpty();
  }
}
