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
import java.io.IOException;
import java.util.Map;

/**
 * The {@link DatastoreContract} cases about user metadata ({@link DatastoreFeature#USER_METADATA}
 * or its refusal): it round-trips through read, stat, listing and download, and every write
 * replaces all of it.
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
}
