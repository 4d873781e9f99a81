package dev.tierlock.testkit;

import static dev.tierlock.testkit.DatastoreSteps.LOCKFILE;
import static dev.tierlock.testkit.DatastoreSteps.key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.WriteCondition;

/**
 * The {@link DatastoreContract} cases about deletes: unconditional ones (on a missing key too,
 * {@link DatastoreFeature#DELETE_REPORTS_ABSENT} or its fallback), conditional ones ({@link
 * DatastoreFeature#CONDITIONAL_DELETE} or its refusal), and the refused {@code mustNotExist}.
 */
final class DatastoreDeleteScenarios {

  private final DatastoreSteps steps;
  private final Datastore store;

  DatastoreDeleteScenarios(DatastoreSteps steps) {
    this.steps = steps;
    this.store = steps.store();
  }

  void delete_unconditional_removesObject() {
    steps.create(LOCKFILE, "to delete");

    assertThat(store.delete(LOCKFILE, WriteCondition.none())).isEqualTo(DeleteResult.DELETED);

    steps.assertAbsent(LOCKFILE);
    assertThat(store.openStream(LOCKFILE)).isEmpty();
    assertThat(store.list("")).isEmpty();
  }

  void delete_unconditionalOnMissingKey_changesNothing() {
    ObjectKey other = key("config/other.json");
    ObjectVersion version = steps.create(other, "stays");

    DeleteResult result = store.delete(LOCKFILE, WriteCondition.none());

    if (steps.has(DatastoreFeature.DELETE_REPORTS_ABSENT)) {
      assertThat(result).isEqualTo(DeleteResult.ABSENT);
    } else {
      assertThat(result).isIn(DeleteResult.ABSENT, DeleteResult.DELETED);
    }
    steps.assertAbsent(LOCKFILE);
    steps.assertHolds(other, "stays", version);
  }

  void delete_mustMatchCurrentVersion_deletes() {
    ObjectVersion version = steps.create(LOCKFILE, "current");

    if (!steps.has(DatastoreFeature.CONDITIONAL_DELETE)) {
      steps.assertConditionalDeleteRefused(LOCKFILE, version);
      steps.assertHolds(LOCKFILE, "current", version);
      return;
    }
    assertThat(store.delete(LOCKFILE, WriteCondition.mustMatch(version))).isEqualTo(DeleteResult.DELETED);
    steps.assertAbsent(LOCKFILE);
  }

  void delete_mustMatchStaleVersion_failsAndKeepsObject() {
    ObjectVersion first = steps.create(LOCKFILE, "first");
    ObjectVersion second = steps.replace(LOCKFILE, first, "second");

    if (!steps.has(DatastoreFeature.CONDITIONAL_DELETE)) {
      steps.assertConditionalDeleteRefused(LOCKFILE, first);
    } else {
      assertThat(store.delete(LOCKFILE, WriteCondition.mustMatch(first))).isEqualTo(DeleteResult.PRECONDITION_FAILED);
    }
    steps.assertHolds(LOCKFILE, "second", second);
  }

  void delete_mustMatchOnMissingKey_reportsAbsent() {
    ObjectVersion version = steps.create(LOCKFILE, "deleted next");
    ObjectKey other = key("config/other.json");
    ObjectVersion otherVersion = steps.create(other, "stays");
    assertThat(store.delete(LOCKFILE, WriteCondition.none())).isEqualTo(DeleteResult.DELETED);

    if (!steps.has(DatastoreFeature.CONDITIONAL_DELETE)) {
      steps.assertConditionalDeleteRefused(LOCKFILE, version);
    } else {
      assertThat(store.delete(LOCKFILE, WriteCondition.mustMatch(version))).isEqualTo(DeleteResult.ABSENT);
    }
    steps.assertAbsent(LOCKFILE);
    steps.assertHolds(other, "stays", otherVersion);
  }

  void delete_mustNotExist_throwsAndDeletesNothing() {
    ObjectVersion version = steps.create(LOCKFILE, "kept");

    assertThatThrownBy(() -> store.delete(LOCKFILE, WriteCondition.mustNotExist()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot delete")
        .hasMessageContaining(LOCKFILE.value());
    steps.assertHolds(LOCKFILE, "kept", version);
  }
}
