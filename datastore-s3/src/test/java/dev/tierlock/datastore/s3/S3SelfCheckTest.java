package dev.tierlock.datastore.s3;

import static dev.tierlock.datastore.s3.S3DatastoreTest.body;
import static dev.tierlock.datastore.s3.S3DatastoreTest.rawKeys;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Tierlock;
import dev.tierlock.TierlockException;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.DatastoreUnsafeException;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The precondition self-check on the real S3 server, as a checkout meets it before its first
 * write: it passes on a server that honours {@code If-None-Match: *}, leaving only its verdict
 * besides what the checkout wrote, and refuses, before writing anything, one that ignores it (the
 * test server's {@link ServerState.Mode#IGNORE_PRECONDITIONS} bucket mode, which drops the header
 * server-side as some S3-compatible stores do).
 */
@ExtendWith(S3ServerExtension.class)
class S3SelfCheckTest {

  private static final ExtensionName NAME = ExtensionName.of("@acme/web");

  @Test
  void selfCheck_onAServerThatHonoursPreconditions_passesAndLeavesOnlyItsVerdict(S3TestBucket bucket,
      @TempDir Path checkout) {
    try (Tierlock tierlock = Tierlock.builder().datastore(bucket.datastore("tier")).checkout(checkout).build()) {
      TransactionStatus status = tierlock.transaction().run(tx -> tx.put(NAME,
          LockfileEntry.builder("1.0.0", "2026-01-01T00:00:00.000Z").build())).status();

      assertThat(status).isEqualTo(TransactionStatus.PUBLISHED);
    }
    assertThat(rawKeys(bucket)).containsExactly("tier/.tierlock-selfcheck/verdict", "tier/config/upstream_extensions.json");
  }

  @Test
  void selfCheck_onAServerThatIgnoresIfNoneMatch_refusesToWriteAndNamesTheEndpoint(S3TestBucket bucket,
      @TempDir Path checkout) {
    bucket.mode(ServerState.Mode.IGNORE_PRECONDITIONS);
    S3Datastore raw = bucket.datastore("tier");
    ObjectKey probe = ObjectKey.of("probe");
    raw.write(probe, body("first"), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);
    assertThat(raw.write(probe, body("second"), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY))
        .as("the broken bucket lets a create-only write overwrite")
        .isInstanceOf(WriteResult.Written.class);
    raw.delete(probe, WriteCondition.none());

    try (Tierlock tierlock = Tierlock.builder().datastore(raw).checkout(checkout).build()) {
      assertThatThrownBy(() -> tierlock.transaction().run(tx -> tx.put(NAME,
          LockfileEntry.builder("1.0.0", "2026-01-01T00:00:00.000Z").build())))
          .isInstanceOf(DatastoreUnsafeException.class)
          .hasMessageStartingWith("Cannot write to datastore s3://" + bucket.name() + "/tier/ at " + bucket.server().endpoint()
              + ": it does not honour write preconditions (a create-only write over an existing object succeeded, probe"
              + " key .tierlock-selfcheck/probe-")
          .satisfies(e -> assertThat(((TierlockException) e).code()).isEqualTo(DatastoreUnsafeException.CODE));
    }

    assertThat(rawKeys(bucket)).isEmpty();
  }
}
