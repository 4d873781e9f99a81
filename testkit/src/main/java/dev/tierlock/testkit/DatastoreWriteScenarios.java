package dev.tierlock.testkit;

import static dev.tierlock.testkit.DatastoreSteps.LOCKFILE;
import static dev.tierlock.testkit.DatastoreSteps.body;
import static dev.tierlock.testkit.DatastoreSteps.key;
import static dev.tierlock.testkit.DatastoreSteps.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

/**
 * The {@link DatastoreContract} cases about writes and their preconditions: create-only,
 * compare-and-swap on the current, a stale and a missing version, unconditional writes, and a new
 * version on every write.
 */
final class DatastoreWriteScenarios {

  private final DatastoreSteps steps;
  private final Datastore store;

  DatastoreWriteScenarios(DatastoreSteps steps) {
    this.steps = steps;
    this.store = steps.store();
  }

  void write_mustNotExistOnFreeKey_createsObjectWithEmptyMetadata() {
    String content = "{\"@acme/tool\": {}}\n";
    ObjectVersion version = steps.create(LOCKFILE, content);

    ReadResult.Found found = steps.found(LOCKFILE);
    assertThat(found.bytes()).isEqualTo(utf8(content));
    assertThat(found.object()).isEqualTo(new StoredObject(LOCKFILE, version, utf8(content).length, ObjectMetadata.EMPTY));
    assertThat(store.stat(LOCKFILE)).contains(found.object());
  }

  void write_mustNotExistTwice_secondFailsAndKeepsFirst() {
    ObjectVersion version = steps.create(LOCKFILE, "first");

    WriteResult second = store.write(LOCKFILE, body("second"), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);

    assertThat(second).isEqualTo(WriteResult.PreconditionFailed.INSTANCE);
    steps.assertHolds(LOCKFILE, "first", version);
  }

  void write_mustMatchCurrentVersion_replacesWithNewVersion() {
    ObjectVersion first = steps.create(LOCKFILE, "first");

    ObjectVersion second = steps.replace(LOCKFILE, first, "second, longer");

    assertThat(second).isNotEqualTo(first);
    steps.assertHolds(LOCKFILE, "second, longer", second);
  }

  void write_mustMatchStaleVersion_failsAndKeepsContent() {
    ObjectVersion first = steps.create(LOCKFILE, "first");
    ObjectVersion second = steps.replace(LOCKFILE, first, "second");

    WriteResult stale = store.write(LOCKFILE, body("third"), WriteCondition.mustMatch(first), ObjectMetadata.EMPTY);

    assertThat(stale).isEqualTo(WriteResult.PreconditionFailed.INSTANCE);
    steps.assertHolds(LOCKFILE, "second", second);
  }

  void write_mustMatchOnMissingKey_failsAndCreatesNothing() {
    ObjectVersion foreign = steps.create(key("config/other.json"), "another object's version");
    ObjectVersion deleted = steps.create(LOCKFILE, "deleted next");
    assertThat(store.delete(LOCKFILE, WriteCondition.none())).isEqualTo(DeleteResult.DELETED);
    ObjectKey neverWritten = key("config/never-written.json");

    assertThat(store.write(LOCKFILE, body("a"), WriteCondition.mustMatch(deleted), ObjectMetadata.EMPTY))
        .isEqualTo(WriteResult.PreconditionFailed.INSTANCE);
    assertThat(store.write(neverWritten, body("b"), WriteCondition.mustMatch(foreign), ObjectMetadata.EMPTY))
        .isEqualTo(WriteResult.PreconditionFailed.INSTANCE);

    steps.assertAbsent(LOCKFILE);
    steps.assertAbsent(neverWritten);
  }

  void write_unconditional_lastWriterWins() {
    ObjectVersion first = steps.put(LOCKFILE, "created without a condition");
    ObjectVersion second = steps.put(LOCKFILE, "overwritten without a condition");
    ObjectVersion third = steps.put(LOCKFILE, "last");

    assertThat(List.of(first, second, third)).doesNotHaveDuplicates();
    steps.assertHolds(LOCKFILE, "last", third);
  }

  void write_everyWrite_producesANewVersion() {
    List<ObjectVersion> versions = new ArrayList<>();
    versions.add(steps.create(LOCKFILE, "content-0"));
    for (int i = 1; i < 5; i++) {
      versions.add(steps.replace(LOCKFILE, versions.get(i - 1), "content-" + i));
    }

    assertThat(new HashSet<>(versions)).hasSize(5);
    for (ObjectVersion old : versions.subList(0, 4)) {
      assertThat(store.write(LOCKFILE, body("stale"), WriteCondition.mustMatch(old), ObjectMetadata.EMPTY))
          .isEqualTo(WriteResult.PreconditionFailed.INSTANCE);
    }
    steps.assertHolds(LOCKFILE, "content-4", versions.get(4));
  }

  void write_afterDelete_createsAgainWithMustNotExist() {
    ObjectVersion first = steps.create(LOCKFILE, "before delete");
    assertThat(store.delete(LOCKFILE, WriteCondition.none())).isEqualTo(DeleteResult.DELETED);

    ObjectVersion again = steps.create(LOCKFILE, "after delete");

    steps.assertHolds(LOCKFILE, "after delete", again);
    assertThat(store.write(LOCKFILE, body("x"), WriteCondition.mustMatch(first), ObjectMetadata.EMPTY))
        .isEqualTo(WriteResult.PreconditionFailed.INSTANCE);
  }
}
