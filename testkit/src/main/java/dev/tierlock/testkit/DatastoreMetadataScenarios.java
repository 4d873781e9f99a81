package dev.tierlock.testkit;

import static dev.tierlock.testkit.DatastoreSteps.LOCKFILE;
import static dev.tierlock.testkit.DatastoreSteps.body;
import static dev.tierlock.testkit.DatastoreSteps.utf8;
import static dev.tierlock.testkit.DatastoreSteps.written;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectStream;
import java.io.IOException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@link DatastoreContract} cases about user metadata ({@link DatastoreFeature#USER_METADATA}
 * or its refusal): it round-trips through read, stat, listing and download, and every write
 * replaces all of it; and about the store's time of each write ({@link
 * DatastoreFeature#MODIFICATION_TIMES}).
 */
final class DatastoreMetadataScenarios {

  private final DatastoreSteps steps;
  private final Datastore store;

  DatastoreMetadataScenarios(DatastoreSteps steps) {
    this.steps = steps;
    this.store = steps.store();
  }

  void write_withMetadata_roundTripsEverywhere() throws IOException {
    ObjectMetadata metadata = new ObjectMetadata(Map.of(ObjectMetadata.COMMIT_ID, "c-0123-abcd", "tierlock-holder", "host-a"));

    if (!steps.has(DatastoreFeature.USER_METADATA)) {
      assertThatThrownBy(() -> store.write(LOCKFILE, body("x"), WriteCondition.mustNotExist(), metadata))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Cannot write")
          .hasMessageContaining(LOCKFILE.value());
      steps.assertAbsent(LOCKFILE);
      return;
    }
    ObjectVersion version = written(store.write(LOCKFILE, body("with metadata"), WriteCondition.mustNotExist(), metadata));

    StoredObject expected = new StoredObject(LOCKFILE, version, utf8("with metadata").length, metadata);
    steps.assertDescribedEverywhere(expected, "config/");
  }

  void write_newMetadata_replacesEveryOldEntry() {
    ObjectMetadata first = new ObjectMetadata(Map.of("alpha", "1", "beta", "2"));
    ObjectMetadata second = new ObjectMetadata(Map.of("beta", "3", "gamma", "4"));
    ObjectVersion created = steps.create(LOCKFILE, "one");

    if (!steps.has(DatastoreFeature.USER_METADATA)) {
      assertThatThrownBy(() -> store.write(LOCKFILE, body("two"), WriteCondition.mustMatch(created), first))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Cannot write")
          .hasMessageContaining(LOCKFILE.value());
      steps.assertHolds(LOCKFILE, "one", created);
      assertThat(steps.found(LOCKFILE).object().metadata()).isEqualTo(ObjectMetadata.EMPTY);
      return;
    }
    ObjectVersion v1 = written(store.write(LOCKFILE, body("two"), WriteCondition.mustMatch(created), first));
    ObjectVersion v2 = written(store.write(LOCKFILE, body("three"), WriteCondition.mustMatch(v1), second));
    assertThat(steps.found(LOCKFILE).object().metadata()).isEqualTo(second);

    ObjectVersion v3 = written(store.write(LOCKFILE, body("four"), WriteCondition.mustMatch(v2), ObjectMetadata.EMPTY));
    assertThat(steps.found(LOCKFILE).object().metadata()).isEqualTo(ObjectMetadata.EMPTY);
    steps.assertHolds(LOCKFILE, "four", v3);
  }

  void modified_isTheStoresTimeOfEachWrite_inEveryView() throws IOException {
    ObjectKey key = ObjectKey.of("config/pulled-archives/@acme/tool/dated.tar.gz");
    List<Instant> times = new ArrayList<>();
    ObjectVersion version = steps.create(key, "first");
    for (String content : List.of("second", "third")) {
      times.add(dated(key, version));
      version = written(store.write(key, body(content), WriteCondition.mustMatch(version), ObjectMetadata.EMPTY));
    }
    times.add(dated(key, version));
    if (!steps.has(DatastoreFeature.MODIFICATION_TIMES)) {
      return;
    }
    for (int i = 1; i < times.size(); i++) {
      assertThat(times.get(i).truncatedTo(ChronoUnit.MILLIS)).as("write %s against write %s", i + 1, i)
          .isAfterOrEqualTo(times.get(i - 1).truncatedTo(ChronoUnit.MILLIS));
    }
    steps.found(key);
    assertThat(dated(key, version)).as("a read changes no object's time").isEqualTo(times.get(times.size() - 1));
  }

  /**
   * Returns the time of {@code key} at {@code version} as stat reports it, checking that read,
   * download and listing report the same to the second (or, without the feature, that none reports one).
   */
  private Instant dated(ObjectKey key, ObjectVersion version) throws IOException {
    List<Optional<Instant>> views = new ArrayList<>();
    StoredObject stat = store.stat(key).orElseThrow();
    assertThat(stat.version()).isEqualTo(version);
    views.add(stat.modified());
    views.add(steps.found(key).object().modified());
    try (ObjectStream stream = store.openStream(key).orElseThrow()) {
      views.add(stream.object().modified());
    }
    views.add(store.list(key.value()).stream().filter(o -> o.key().equals(key)).findFirst().orElseThrow().modified());
    if (!steps.has(DatastoreFeature.MODIFICATION_TIMES)) {
      assertThat(views).as("stat, read, download and listing of %s", key).allMatch(Optional::isEmpty);
      return Instant.EPOCH;
    }
    assertThat(views).as("stat, read, download and listing of %s", key).allMatch(Optional::isPresent);
    Instant seconds = stat.modified().orElseThrow().truncatedTo(ChronoUnit.SECONDS);
    assertThat(views).as("stat, read, download and listing of %s, to the second", key)
        .allSatisfy(t -> assertThat(t.orElseThrow().truncatedTo(ChronoUnit.SECONDS)).isEqualTo(seconds));
    return stat.modified().orElseThrow();
  }
}
