package dev.tierlock.testkit;

import static dev.tierlock.testkit.DatastoreSteps.LOCKFILE;
import static dev.tierlock.testkit.DatastoreSteps.READ_BOUND;
import static dev.tierlock.testkit.DatastoreSteps.key;
import static dev.tierlock.testkit.DatastoreSteps.utf8;
import static dev.tierlock.testkit.DatastoreSteps.written;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * The {@link DatastoreContract} cases about reads: absent and empty objects, reads conditional on
 * a version ({@link DatastoreFeature#NOT_MODIFIED_READS} or its fallback), downloads whose size is
 * known before the first byte, and stats that follow every change.
 */
final class DatastoreReadScenarios {

  private static final int LARGE_OBJECT_BYTES = 3 * 1024 * 1024;

  private final DatastoreSteps steps;
  private final Datastore store;

  DatastoreReadScenarios(DatastoreSteps steps) {
    this.steps = steps;
    this.store = steps.store();
  }

  void read_absentKey_reportsAbsent() {
    steps.assertAbsent(LOCKFILE);
  }

  void read_emptyObject_returnsNoBytes() {
    ObjectVersion version = steps.create(LOCKFILE, "");

    steps.assertHolds(LOCKFILE, "", version);
  }

  void read_ifNoneMatchCurrentVersion_reportsNotModified() {
    ObjectVersion version = steps.create(LOCKFILE, "current");

    ReadResult result = store.read(LOCKFILE, ReadCondition.ifNoneMatch(version), READ_BOUND);

    if (steps.has(DatastoreFeature.NOT_MODIFIED_READS)) {
      assertThat(result).isEqualTo(new ReadResult.NotModified(version));
    } else {
      assertThat(result).isInstanceOf(ReadResult.Found.class);
      assertThat(((ReadResult.Found) result).object().version()).isEqualTo(version);
      assertThat(((ReadResult.Found) result).bytes()).isEqualTo(utf8("current"));
    }
  }

  void read_ifNoneMatchStaleVersion_returnsCurrentObject() {
    ObjectVersion first = steps.create(LOCKFILE, "first");
    ObjectVersion second = steps.replace(LOCKFILE, first, "second");

    ReadResult result = store.read(LOCKFILE, ReadCondition.ifNoneMatch(first), READ_BOUND);

    assertThat(result).isInstanceOf(ReadResult.Found.class);
    assertThat(((ReadResult.Found) result).bytes()).isEqualTo(utf8("second"));
    assertThat(((ReadResult.Found) result).object().version()).isEqualTo(second);
  }

  void read_ifNoneMatchOnDeletedKey_reportsAbsent() {
    ObjectVersion version = steps.create(LOCKFILE, "gone soon");
    assertThat(store.delete(LOCKFILE, WriteCondition.none())).isEqualTo(DeleteResult.DELETED);

    assertThat(store.read(LOCKFILE, ReadCondition.ifNoneMatch(version), READ_BOUND)).isEqualTo(ReadResult.Absent.INSTANCE);
  }

  void openStream_largeObject_knowsSizeFirstAndYieldsSameBytes() throws IOException {
    byte[] bytes = new byte[LARGE_OBJECT_BYTES];
    new SplittableRandom(20260101).nextBytes(bytes);
    ObjectKey archive = key("archives/@acme/tool/1.2.3.tar.gz");
    ObjectVersion version = written(store.write(archive, ObjectBody.of(bytes), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY));

    Optional<ObjectStream> download = store.openStream(archive);

    assertThat(download).isPresent();
    try (ObjectStream stream = download.get()) {
      assertThat(stream.object()).isEqualTo(new StoredObject(archive, version, LARGE_OBJECT_BYTES, ObjectMetadata.EMPTY));
      try (InputStream in = stream.stream()) {
        assertThat(in.readAllBytes()).isEqualTo(bytes);
      }
    }
  }

  void openStream_absentKey_returnsEmpty() {
    steps.create(key("archives/other.tar.gz"), "other");

    assertThat(store.openStream(key("archives/missing.tar.gz"))).isEmpty();
  }

  void openStream_afterReplace_yieldsTheNewVersion() throws IOException {
    ObjectKey k = key("archives/replaced.bin");
    ObjectVersion second = steps.replace(k, steps.create(k, "old bytes"), "new bytes");

    Optional<ObjectStream> download = store.openStream(k);

    assertThat(download).isPresent();
    try (ObjectStream stream = download.get()) {
      assertThat(stream.object().version()).isEqualTo(second);
      assertThat(stream.stream().readAllBytes()).isEqualTo(utf8("new bytes"));
    }
  }

  void stat_followsEveryChange() {
    ObjectKey k = key("config/stat.json");
    assertThat(store.stat(k)).isEmpty();

    ObjectVersion first = steps.create(k, "12345");
    assertThat(store.stat(k)).contains(new StoredObject(k, first, 5, ObjectMetadata.EMPTY));

    ObjectVersion second = steps.replace(k, first, "123");
    assertThat(store.stat(k)).contains(new StoredObject(k, second, 3, ObjectMetadata.EMPTY));

    assertThat(store.delete(k, WriteCondition.none())).isEqualTo(DeleteResult.DELETED);
    assertThat(store.stat(k)).isEmpty();
  }
}
