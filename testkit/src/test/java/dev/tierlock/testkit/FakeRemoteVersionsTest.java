package dev.tierlock.testkit;

import static dev.tierlock.testkit.StoreSteps.body;
import static dev.tierlock.testkit.StoreSteps.bytes;
import static dev.tierlock.testkit.StoreSteps.written;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.Lockfile;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import dev.tierlock.testkit.FakeRemote.Versions;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The two version presets of {@link FakeRemote}: fresh generations, and S3-like content digests. */
class FakeRemoteVersionsTest {

  private static final ObjectKey LOCKFILE = ObjectKey.of("config/upstream_extensions.json");

  @Test
  void generations_sameBytesAgain_getAFreshVersionThatOldConditionsDoNotMatch() {
    try (FakeRemote remote = FakeRemote.builder().versions(Versions.GENERATIONS).build()) {
      ObjectVersion a = write(remote, "A", WriteCondition.mustNotExist());
      ObjectVersion b = write(remote, "B", WriteCondition.mustMatch(a));
      ObjectVersion again = write(remote, "A", WriteCondition.mustMatch(b));

      assertThat(List.of(a, b, again)).doesNotHaveDuplicates();
      assertThat(remote.write(LOCKFILE, body("C"), WriteCondition.mustMatch(a), ObjectMetadata.EMPTY))
          .isEqualTo(WriteResult.PreconditionFailed.INSTANCE);
      assertThat(remote.peek(LOCKFILE)).hasValue(bytes("A"));
    }
  }

  @Test
  void create_defaultsToGenerations() {
    try (FakeRemote remote = FakeRemote.create()) {
      assertThat(write(remote, "A", WriteCondition.none())).isEqualTo(ObjectVersion.of("v1"));
      assertThat(write(remote, "A", WriteCondition.none())).isEqualTo(ObjectVersion.of("v2"));
    }
  }

  @Test
  void contentDigest_versionIsTheQuotedMd5OfTheBytes() throws Exception {
    try (FakeRemote remote = FakeRemote.builder().versions(Versions.CONTENT_DIGEST).build()) {
      ObjectVersion empty = write(remote, "", WriteCondition.mustNotExist());
      ObjectVersion text = write(remote, "{}\n", WriteCondition.mustMatch(empty));

      assertThat(empty).isEqualTo(ObjectVersion.of("\"d41d8cd98f00b204e9800998ecf8427e\""));
      assertThat(text).isEqualTo(ObjectVersion.of("\"" + md5Hex(bytes("{}\n")) + "\""));
    }
  }

  @Test
  void contentDigest_sameBytesAfterADifferentWrite_bringTheOldVersionBackAndItsCasSucceeds() {
    try (FakeRemote remote = FakeRemote.builder().versions(Versions.CONTENT_DIGEST).build()) {
      ObjectVersion readByA = write(remote, "A", WriteCondition.mustNotExist());
      ObjectVersion b = write(remote, "B", WriteCondition.mustMatch(readByA));
      ObjectVersion backToA = write(remote, "A", WriteCondition.mustMatch(b));

      assertThat(b).isNotEqualTo(readByA);
      assertThat(backToA).isEqualTo(readByA);
      // the ABA case: a writer that read "A" before "B" landed still passes its compare-and-swap
      ObjectVersion stale = write(remote, "stale writer", WriteCondition.mustMatch(readByA));
      assertThat(remote.peek(LOCKFILE)).hasValue(bytes("stale writer"));
      assertThat(remote.write(LOCKFILE, body("late"), WriteCondition.mustMatch(readByA), ObjectMetadata.EMPTY))
          .isEqualTo(WriteResult.PreconditionFailed.INSTANCE);
      assertThat(remote.peekObject(LOCKFILE).orElseThrow().version()).isEqualTo(stale);
    }
  }

  @Test
  void contentDigest_equalBytesOnAnotherKey_haveTheSameVersion() {
    try (FakeRemote remote = FakeRemote.builder().versions(Versions.CONTENT_DIGEST).build()) {
      ObjectVersion first = write(remote, "same", WriteCondition.none());
      ObjectVersion other = written(remote.write(ObjectKey.of("config/other.json"), body("same"), WriteCondition.none(),
          ObjectMetadata.EMPTY));

      assertThat(other).isEqualTo(first);
    }
  }

  @Test
  void contentDigest_metadataOnlyChange_keepsTheVersionAndANotModifiedReadHidesIt() {
    try (FakeRemote remote = FakeRemote.builder().versions(Versions.CONTENT_DIGEST).build()) {
      ObjectVersion first = written(remote.write(LOCKFILE, body("same"), WriteCondition.mustNotExist(),
          ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "c-1")));
      ObjectVersion second = written(remote.write(LOCKFILE, body("same"), WriteCondition.mustMatch(first),
          ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "c-2")));

      assertThat(second).isEqualTo(first);
      assertThat(remote.read(LOCKFILE, ReadCondition.ifNoneMatch(first), Lockfile.MAX_BYTES))
          .isEqualTo(new ReadResult.NotModified(first));
      ReadResult.Found found = (ReadResult.Found) remote.read(LOCKFILE, ReadCondition.always(), Lockfile.MAX_BYTES);
      assertThat(found.object().metadata()).isEqualTo(ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "c-2"));
    }
  }

  @Test
  void contentDigest_casRaceOnOneVersion_hasExactlyOneWinner() {
    try (FakeRemote remote = FakeRemote.builder().versions(Versions.CONTENT_DIGEST).build()) {
      ObjectVersion start = write(remote, "start", WriteCondition.mustNotExist());

      for (int round = 0; round < 5; round++) {
        ObjectVersion expected = remote.peekObject(LOCKFILE).orElseThrow().version();
        int r = round;
        List<WriteResult> results = ContractRace.run(8, i -> remote.write(LOCKFILE, body("round " + r + " writer " + i),
            WriteCondition.mustMatch(expected), ObjectMetadata.EMPTY));

        assertThat(results).filteredOn(WriteResult.Written.class::isInstance).hasSize(1);
        assertThat(results).filteredOn(result -> !(result instanceof WriteResult.Written))
            .containsOnly(WriteResult.PreconditionFailed.INSTANCE);
      }
      assertThat(remote.peekObject(LOCKFILE).orElseThrow().version()).isNotEqualTo(start);
    }
  }

  @Test
  void contentDigest_largeStagedBody_isVersionedByItsDigest() throws Exception {
    byte[] large = new byte[3 * 1024 * 1024];
    new Random(7).nextBytes(large);
    try (FakeRemote remote = FakeRemote.builder().versions(Versions.CONTENT_DIGEST).build()) {
      ObjectVersion version = written(remote.write(LOCKFILE, ObjectBody.of(large), WriteCondition.mustNotExist(),
          ObjectMetadata.EMPTY));

      assertThat(version).isEqualTo(ObjectVersion.of("\"" + md5Hex(large) + "\""));
      assertThat(remote.peek(LOCKFILE)).hasValue(large);
    }
  }

  @Test
  void reopened_objectsKeepTheVersionsTheyWereWrittenWith(@TempDir Path directory) {
    ObjectVersion digest;
    try (FakeRemote remote = FakeRemote.builder().directory(directory).versions(Versions.CONTENT_DIGEST).build()) {
      digest = write(remote, "digested", WriteCondition.mustNotExist());
    }

    try (FakeRemote reopened = FakeRemote.builder().directory(directory).versions(Versions.GENERATIONS).build()) {
      assertThat(reopened.peekObject(LOCKFILE).orElseThrow().version()).isEqualTo(digest);
      ObjectVersion next = write(reopened, "digested", WriteCondition.mustMatch(digest));
      assertThat(next).isNotEqualTo(digest).isEqualTo(ObjectVersion.of("v2"));
    }
  }

  private static ObjectVersion write(FakeRemote remote, String content, WriteCondition condition) {
    return written(remote.write(LOCKFILE, body(content), condition, ObjectMetadata.EMPTY));
  }

  private static String md5Hex(byte[] bytes) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(bytes));
  }
}
