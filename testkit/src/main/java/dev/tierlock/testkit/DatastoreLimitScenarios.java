package dev.tierlock.testkit;

import static dev.tierlock.testkit.DatastoreSteps.LOCKFILE;
import static dev.tierlock.testkit.DatastoreSteps.body;
import static dev.tierlock.testkit.DatastoreSteps.filler;
import static dev.tierlock.testkit.DatastoreSteps.key;
import static dev.tierlock.testkit.DatastoreSteps.utf8;
import static dev.tierlock.testkit.DatastoreSteps.written;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectTooLargeException;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import java.io.IOException;
import java.util.List;
import java.util.TreeMap;

/**
 * The {@link DatastoreContract} cases about limits: reads refuse an object larger than the
 * caller's bound and a bound that is not positive; writes refuse metadata larger than the store's
 * {@link Datastore#maxMetadataBytes()}, and metadata of exactly that size round-trips.
 */
final class DatastoreLimitScenarios {

  private static final int OBJECT_BYTES = 10_000;

  private final DatastoreSteps steps;
  private final Datastore store;

  DatastoreLimitScenarios(DatastoreSteps steps) {
    this.steps = steps;
    this.store = steps.store();
  }

  void read_objectLargerThanTheBound_throwsObjectTooLargeAndChangesNothing() {
    String content = filler(OBJECT_BYTES);
    ObjectVersion first = steps.create(LOCKFILE, "an earlier, small version");
    ObjectVersion version = steps.replace(LOCKFILE, first, content);

    for (long bound : List.of((long) OBJECT_BYTES - 1, 1L)) {
      for (ReadCondition condition : List.of(ReadCondition.always(), ReadCondition.ifNoneMatch(first))) {
        assertThatThrownBy(() -> store.read(LOCKFILE, condition, bound))
            .as("read %s with bound %s", condition, bound)
            .isInstanceOf(ObjectTooLargeException.class)
            .hasMessageStartingWith("Cannot read")
            .hasMessageContaining(LOCKFILE.value())
            .hasMessageContaining(OBJECT_BYTES + " bytes")
            .hasMessageContaining(" " + bound + " ")
            .satisfies(e -> {
              ObjectTooLargeException tooLarge = (ObjectTooLargeException) e;
              assertThat(tooLarge.code()).isEqualTo(ObjectTooLargeException.CODE).isEqualTo("object_too_large");
              assertThat(tooLarge.size()).isEqualTo(OBJECT_BYTES);
              assertThat(tooLarge.limit()).isEqualTo(bound);
            });
      }
    }

    steps.assertHolds(LOCKFILE, content, version);
    ReadResult exact = store.read(LOCKFILE, ReadCondition.always(), OBJECT_BYTES);
    assertThat(exact).as("a read bounded by exactly the object's size").isInstanceOf(ReadResult.Found.class);
    assertThat(((ReadResult.Found) exact).bytes()).isEqualTo(utf8(content));
  }

  void read_withABoundThatIsNotPositive_isRefused() {
    ObjectVersion version = steps.create(LOCKFILE, "kept");

    for (long bound : List.of(0L, -1L, Long.MIN_VALUE)) {
      assertThatThrownBy(() -> store.read(LOCKFILE, ReadCondition.always(), bound))
          .as("bound %s", bound)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Cannot read")
          .hasMessageContaining(LOCKFILE.value());
    }
    steps.assertHolds(LOCKFILE, "kept", version);
  }

  void write_metadataOverTheStoreCapacity_isRefusedAndChangesNothing() {
    int capacity = store.maxMetadataBytes();
    assertThat(capacity).as("maxMetadataBytes()").isBetween(0, ObjectMetadata.MAX_BYTES);
    assertThat(store.maxMetadataBytes()).as("maxMetadataBytes() again").isEqualTo(capacity);
    ObjectVersion version = steps.create(LOCKFILE, "kept");
    ObjectKey fresh = key("config/fresh.json");

    if (capacity == ObjectMetadata.MAX_BYTES) {
      // no metadata larger than this store takes can even be built
      assertThatThrownBy(() -> metadataOfSize(capacity + 1))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Cannot use object metadata");
    } else {
      ObjectMetadata over = metadataOfSize(capacity + 1);
      assertThat(over.byteSize()).isEqualTo(capacity + 1);
      for (WriteCondition condition : List.of(WriteCondition.mustMatch(version), WriteCondition.none())) {
        assertThatThrownBy(() -> store.write(LOCKFILE, body("replaced"), condition, over))
            .as("write %s with %s bytes of metadata", condition, capacity + 1)
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageStartingWith("Cannot write")
            .hasMessageContaining(LOCKFILE.value())
            .satisfies(e -> {
              if (steps.has(DatastoreFeature.USER_METADATA)) {
                assertThat(e).hasMessageContaining(Integer.toString(capacity));
              }
            });
      }
      assertThatThrownBy(() -> store.write(fresh, body("new"), WriteCondition.mustNotExist(), over))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Cannot write")
          .hasMessageContaining(fresh.value());
    }

    steps.assertHolds(LOCKFILE, "kept", version);
    assertThat(steps.found(LOCKFILE).object().metadata()).isEqualTo(ObjectMetadata.EMPTY);
    steps.assertAbsent(fresh);
  }

  void write_metadataOfExactlyTheStoreCapacity_roundTrips() throws IOException {
    ObjectMetadata full = metadataOfSize(store.maxMetadataBytes());
    assertThat(full.byteSize()).isEqualTo(store.maxMetadataBytes());

    if (!steps.has(DatastoreFeature.USER_METADATA) && !full.values().isEmpty()) {
      assertThatThrownBy(() -> store.write(LOCKFILE, body("full"), WriteCondition.mustNotExist(), full))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Cannot write")
          .hasMessageContaining(LOCKFILE.value());
      steps.assertAbsent(LOCKFILE);
      return;
    }
    ObjectVersion version = written(store.write(LOCKFILE, body("full"), WriteCondition.mustNotExist(), full));

    StoredObject expected = new StoredObject(LOCKFILE, version, utf8("full").length, full);
    steps.assertDescribedEverywhere(expected, "config/");
  }

  /**
   * Returns metadata whose {@link ObjectMetadata#byteSize()} is exactly {@code bytes}: empty for 0,
   * one name of that length up to 64, otherwise a commit id and up to 15 filler entries of at most
   * about 550 bytes each (so the sum of several entries, not one long value, meets the size).
   *
   * @throws IllegalArgumentException if no metadata can be that large
   */
  static ObjectMetadata metadataOfSize(int bytes) {
    if (bytes == 0) {
      return ObjectMetadata.EMPTY;
    }
    TreeMap<String, String> values = new TreeMap<>();
    if (bytes <= 64) {
      values.put("m".repeat(bytes), "");
      return new ObjectMetadata(values);
    }
    String commit = "c-0123-abcd";
    values.put(ObjectMetadata.COMMIT_ID, commit);
    int left = bytes - ObjectMetadata.COMMIT_ID.length() - commit.length();
    int entries = Math.min(ObjectMetadata.MAX_ENTRIES - 1, left / 512 + 1);
    int valueBytes = left - entries * "fill-00".length();
    for (int i = 0; i < entries; i++) {
      values.put(String.format("fill-%02d", i), filler(valueBytes / entries + (i < valueBytes % entries ? 1 : 0)));
    }
    return new ObjectMetadata(values);
  }
}
