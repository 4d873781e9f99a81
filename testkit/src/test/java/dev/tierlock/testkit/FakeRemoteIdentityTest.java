package dev.tierlock.testkit;

import static dev.tierlock.testkit.StoreSteps.body;
import static dev.tierlock.testkit.StoreSteps.bytes;
import static dev.tierlock.testkit.StoreSteps.written;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.spi.DatastoreIdentity;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectTooLargeException;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.WriteCondition;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a {@link FakeRemote} says it is, the metadata it takes, and how its wrappers pass both on. */
class FakeRemoteIdentityTest {

  private static final ObjectKey LOCKFILE = ObjectKey.of("config/upstream_extensions.json");

  @Test
  void identity_namesSchemeInstanceAndDirectory() {
    try (FakeRemote remote = FakeRemote.create()) {
      DatastoreIdentity identity = remote.identity();

      assertThat(identity.scheme()).isEqualTo("fake");
      assertThat(identity.endpoint()).isNotBlank();
      assertThat(identity.container()).isEqualTo(remote.directory().toString());
      assertThat(identity.prefix()).isEmpty();
      assertThat(identity.toString()).isEqualTo("fake://" + remote.directory() + " at " + identity.endpoint());
      assertThat(remote.identity()).isEqualTo(identity);
    }
  }

  @Test
  void identity_ofARemoteReopenedOnTheSameDirectory_isANewOne(@TempDir Path directory) {
    DatastoreIdentity before;
    try (FakeRemote remote = FakeRemote.inDirectory(directory)) {
      remote.plant(LOCKFILE, bytes("kept"));
      before = remote.identity();
    }

    try (FakeRemote reopened = FakeRemote.inDirectory(directory)) {
      assertThat(reopened.peek(LOCKFILE)).hasValue(bytes("kept"));
      assertThat(reopened.identity()).isNotEqualTo(before);
      assertThat(reopened.identity().container()).isEqualTo(before.container());
      assertThat(reopened.identity().endpoint()).isNotEqualTo(before.endpoint());
    }
  }

  @Test
  void wrappers_forwardIdentityCapacityAndDescription() {
    try (FakeRemote remote = FakeRemote.builder().maxMetadataBytes(512).build()) {
      FaultyDatastore faulty = FaultyDatastore.wrap(remote);
      CountingDatastore counting = CountingDatastore.wrap(faulty);

      assertThat(faulty.identity()).isEqualTo(remote.identity());
      assertThat(counting.identity()).isEqualTo(remote.identity());
      assertThat(faulty.maxMetadataBytes()).isEqualTo(512);
      assertThat(counting.maxMetadataBytes()).isEqualTo(512);
      assertThat(counting.describe()).isEqualTo(remote.describe());
      assertThat(counting.total()).isZero();
      assertThat(faulty.log().size()).isZero();
      assertThat(remote.log().size()).isZero();
    }
  }

  @Test
  void maxMetadataBytes_defaultsToS3sTwoKibibytes() {
    try (FakeRemote remote = FakeRemote.create()) {
      assertThat(remote.maxMetadataBytes()).isEqualTo(FakeRemote.DEFAULT_MAX_METADATA_BYTES).isEqualTo(2048);
    }
  }

  @Test
  void maxMetadataBytes_configured_refusesOneByteMoreBeforeWritingAndTakesExactlyThatMuch() {
    try (FakeRemote remote = FakeRemote.builder().maxMetadataBytes(40).build()) {
      ObjectMetadata over = new ObjectMetadata(Map.of("tierlock-commit-id", "c-".repeat(11) + "x"));
      ObjectMetadata exact = new ObjectMetadata(Map.of("tierlock-commit-id", "c-".repeat(11)));
      assertThat(over.byteSize()).isEqualTo(41);
      assertThat(exact.byteSize()).isEqualTo(40);

      assertThatThrownBy(() -> remote.write(LOCKFILE, body("x"), WriteCondition.none(), over))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("Cannot write object " + LOCKFILE + " at " + remote.describe() + ": its metadata holds 41 bytes"
              + " of names and values, more than the 40 this store accepts; nothing was written");
      assertThatThrownBy(() -> remote.plant(LOCKFILE, bytes("x"), over))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Cannot write object " + LOCKFILE);
      assertThat(remote.keys()).isEmpty();

      written(remote.write(LOCKFILE, body("x"), WriteCondition.mustNotExist(), exact));
      assertThat(remote.peekObject(LOCKFILE).orElseThrow().metadata()).isEqualTo(exact);
      assertThat(remote.log().entries()).extracting(LoggedOperation::outcome)
          .containsExactly("ERROR:IllegalArgumentException", "WRITTEN");
    }
  }

  @Test
  void maxMetadataBytes_outOfRange_isRefusedByTheBuilder() {
    for (int bad : new int[] {-1, ObjectMetadata.MAX_BYTES + 1}) {
      assertThatThrownBy(() -> FakeRemote.builder().maxMetadataBytes(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("Cannot use maxMetadataBytes " + bad + " for a fake remote: it is between 0 and 8192");
    }
  }

  @Test
  void read_overTheBound_isLoggedAsTooLargeAndPeekIsUnbounded() {
    try (FakeRemote remote = FakeRemote.create()) {
      remote.plant(LOCKFILE, bytes("0123456789"));

      assertThatThrownBy(() -> remote.read(LOCKFILE, ReadCondition.always(), 9))
          .isInstanceOf(ObjectTooLargeException.class)
          .hasMessage("Cannot read object " + LOCKFILE + " at " + remote.describe()
              + ": it has 10 bytes, more than the 9 this read accepts; nothing was changed");
      assertThat(remote.read(LOCKFILE, ReadCondition.always(), 10)).isInstanceOf(ReadResult.Found.class);
      assertThat(remote.peek(LOCKFILE)).hasValue(bytes("0123456789"));
      assertThat(remote.log().entries()).extracting(LoggedOperation::outcome)
          .containsExactly("ERROR:object_too_large", "FOUND");
    }
  }

  @Test
  void read_notModified_isNotRefusedByTheBound() {
    try (FakeRemote remote = FakeRemote.create()) {
      remote.plant(LOCKFILE, bytes("0123456789"));
      ObjectVersion version = remote.peekObject(LOCKFILE).orElseThrow().version();

      assertThat(remote.read(LOCKFILE, ReadCondition.ifNoneMatch(version), 1))
          .isEqualTo(new ReadResult.NotModified(version));
    }
  }
}
