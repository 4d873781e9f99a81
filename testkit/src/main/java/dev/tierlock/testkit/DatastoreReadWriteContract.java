package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.spi.DatastoreUnsafeException;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The reads, writes, deletes and metadata of the {@link DatastoreContract}. */
abstract class DatastoreReadWriteContract extends DatastoreContractSupport {

  private static final ObjectKey LOCKFILE = ObjectKey.of("config/upstream_extensions.json");

  @Test
  public final void read_absentKey_reportsAbsent() {
    assertAbsent(LOCKFILE);
  }

  @Test
  public final void write_mustNotExistOnFreeKey_createsObjectWithEmptyMetadata() {
    String content = "{\"@acme/tool\": {}}\n";
    ObjectVersion version = create(LOCKFILE, content);

    ReadResult.Found found = found(LOCKFILE);
    assertThat(found.bytes()).isEqualTo(utf8(content));
    assertThat(found.object()).isEqualTo(new StoredObject(LOCKFILE, version, utf8(content).length, ObjectMetadata.EMPTY));
    assertThat(store().stat(LOCKFILE)).contains(found.object());
  }

  @Test
  public final void read_emptyObject_returnsNoBytes() {
    ObjectVersion version = create(LOCKFILE, "");

    assertHolds(LOCKFILE, "", version);
  }

  @Test
  public final void read_ifNoneMatchCurrentVersion_reportsNotModified() {
    ObjectVersion version = create(LOCKFILE, "current");

    ReadResult result = store().read(LOCKFILE, ReadCondition.ifNoneMatch(version), READ_BOUND);

    if (has(DatastoreFeature.NOT_MODIFIED_READS)) {
      assertThat(result).isEqualTo(new ReadResult.NotModified(version));
    } else {
      assertThat(result).isInstanceOf(ReadResult.Found.class);
      assertThat(((ReadResult.Found) result).object().version()).isEqualTo(version);
      assertThat(((ReadResult.Found) result).bytes()).isEqualTo(utf8("current"));
    }
  }

  @Test
  public final void read_ifNoneMatchStaleVersion_returnsCurrentObject() {
    ObjectVersion first = create(LOCKFILE, "first");
    ObjectVersion second = replace(LOCKFILE, first, "second");

    ReadResult result = store().read(LOCKFILE, ReadCondition.ifNoneMatch(first), READ_BOUND);

    assertThat(result).isInstanceOf(ReadResult.Found.class);
    assertThat(((ReadResult.Found) result).bytes()).isEqualTo(utf8("second"));
    assertThat(((ReadResult.Found) result).object().version()).isEqualTo(second);
  }

  @Test
  public final void read_ifNoneMatchOnDeletedKey_reportsAbsent() {
    ObjectVersion version = create(LOCKFILE, "gone soon");
    assertThat(store().delete(LOCKFILE, WriteCondition.none())).isEqualTo(DeleteResult.DELETED);

    assertThat(store().read(LOCKFILE, ReadCondition.ifNoneMatch(version), READ_BOUND)).isEqualTo(ReadResult.Absent.INSTANCE);
  }

  @Test
  public final void write_mustNotExistTwice_secondFailsAndKeepsFirst() {
    ObjectVersion version = create(LOCKFILE, "first");

    WriteResult second = store().write(LOCKFILE, body("second"), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);

    assertThat(second).isEqualTo(WriteResult.PreconditionFailed.INSTANCE);
    assertHolds(LOCKFILE, "first", version);
  }

  @Test
  public final void write_mustMatchCurrentVersion_replacesWithNewVersion() {
    ObjectVersion first = create(LOCKFILE, "first");

    ObjectVersion second = replace(LOCKFILE, first, "second, longer");

    assertThat(second).isNotEqualTo(first);
    assertHolds(LOCKFILE, "second, longer", second);
  }

  @Test
  public final void write_mustMatchStaleVersion_failsAndKeepsContent() {
    ObjectVersion first = create(LOCKFILE, "first");
    ObjectVersion second = replace(LOCKFILE, first, "second");

    WriteResult stale = store().write(LOCKFILE, body("third"), WriteCondition.mustMatch(first), ObjectMetadata.EMPTY);

    assertThat(stale).isEqualTo(WriteResult.PreconditionFailed.INSTANCE);
    assertHolds(LOCKFILE, "second", second);
  }

  @Test
  public final void write_mustMatchOnMissingKey_failsAndCreatesNothing() {
    ObjectVersion foreign = create(key("config/other.json"), "another object's version");
    ObjectVersion deleted = create(LOCKFILE, "deleted next");
    assertThat(store().delete(LOCKFILE, WriteCondition.none())).isEqualTo(DeleteResult.DELETED);
    ObjectKey neverWritten = key("config/never-written.json");

    assertThat(store().write(LOCKFILE, body("a"), WriteCondition.mustMatch(deleted), ObjectMetadata.EMPTY))
        .isEqualTo(WriteResult.PreconditionFailed.INSTANCE);
    assertThat(store().write(neverWritten, body("b"), WriteCondition.mustMatch(foreign), ObjectMetadata.EMPTY))
        .isEqualTo(WriteResult.PreconditionFailed.INSTANCE);

    assertAbsent(LOCKFILE);
    assertAbsent(neverWritten);
  }

  @Test
  public final void write_unconditional_lastWriterWins() {
    ObjectVersion first = put(LOCKFILE, "created without a condition");
    ObjectVersion second = put(LOCKFILE, "overwritten without a condition");
    ObjectVersion third = put(LOCKFILE, "last");

    assertThat(List.of(first, second, third)).doesNotHaveDuplicates();
    assertHolds(LOCKFILE, "last", third);
  }

  @Test
  public final void write_everyWrite_producesANewVersion() {
    List<ObjectVersion> versions = new ArrayList<>();
    versions.add(create(LOCKFILE, "content-0"));
    for (int i = 1; i < 5; i++) {
      versions.add(replace(LOCKFILE, versions.get(i - 1), "content-" + i));
    }

    assertThat(new HashSet<>(versions)).hasSize(5);
    for (ObjectVersion old : versions.subList(0, 4)) {
      assertThat(store().write(LOCKFILE, body("stale"), WriteCondition.mustMatch(old), ObjectMetadata.EMPTY))
          .isEqualTo(WriteResult.PreconditionFailed.INSTANCE);
    }
    assertHolds(LOCKFILE, "content-4", versions.get(4));
  }

  @Test
  public final void write_afterDelete_createsAgainWithMustNotExist() {
    ObjectVersion first = create(LOCKFILE, "before delete");
    assertThat(store().delete(LOCKFILE, WriteCondition.none())).isEqualTo(DeleteResult.DELETED);

    ObjectVersion again = create(LOCKFILE, "after delete");

    assertHolds(LOCKFILE, "after delete", again);
    assertThat(store().write(LOCKFILE, body("x"), WriteCondition.mustMatch(first), ObjectMetadata.EMPTY))
        .isEqualTo(WriteResult.PreconditionFailed.INSTANCE);
  }

  @Test
  public final void write_withMetadata_roundTripsEverywhere() throws IOException {
    ObjectMetadata metadata = new ObjectMetadata(Map.of(ObjectMetadata.COMMIT_ID, "c-0123-abcd", "tierlock-holder", "host-a"));

    if (!has(DatastoreFeature.USER_METADATA)) {
      assertThatThrownBy(() -> store().write(LOCKFILE, body("x"), WriteCondition.mustNotExist(), metadata))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Cannot write")
          .hasMessageContaining(LOCKFILE.value());
      assertAbsent(LOCKFILE);
      return;
    }
    ObjectVersion version = written(store().write(LOCKFILE, body("with metadata"), WriteCondition.mustNotExist(), metadata));

    StoredObject expected = new StoredObject(LOCKFILE, version, utf8("with metadata").length, metadata);
    assertDescribedEverywhere(expected, "config/");
  }

  @Test
  public final void write_newMetadata_replacesEveryOldEntry() {
    ObjectMetadata first = new ObjectMetadata(Map.of("alpha", "1", "beta", "2"));
    ObjectMetadata second = new ObjectMetadata(Map.of("beta", "3", "gamma", "4"));
    ObjectVersion created = create(LOCKFILE, "one");

    if (!has(DatastoreFeature.USER_METADATA)) {
      assertThatThrownBy(() -> store().write(LOCKFILE, body("two"), WriteCondition.mustMatch(created), first))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Cannot write")
          .hasMessageContaining(LOCKFILE.value());
      assertHolds(LOCKFILE, "one", created);
      assertThat(found(LOCKFILE).object().metadata()).isEqualTo(ObjectMetadata.EMPTY);
      return;
    }
    ObjectVersion v1 = written(store().write(LOCKFILE, body("two"), WriteCondition.mustMatch(created), first));
    ObjectVersion v2 = written(store().write(LOCKFILE, body("three"), WriteCondition.mustMatch(v1), second));
    assertThat(found(LOCKFILE).object().metadata()).isEqualTo(second);

    ObjectVersion v3 = written(store().write(LOCKFILE, body("four"), WriteCondition.mustMatch(v2), ObjectMetadata.EMPTY));
    assertThat(found(LOCKFILE).object().metadata()).isEqualTo(ObjectMetadata.EMPTY);
    assertHolds(LOCKFILE, "four", v3);
  }

  @Test
  public final void delete_unconditional_removesObject() {
    create(LOCKFILE, "to delete");

    assertThat(store().delete(LOCKFILE, WriteCondition.none())).isEqualTo(DeleteResult.DELETED);

    assertAbsent(LOCKFILE);
    assertThat(store().openStream(LOCKFILE)).isEmpty();
    assertThat(store().list("")).isEmpty();
  }

  @Test
  public final void delete_unconditionalOnMissingKey_changesNothing() {
    ObjectKey other = key("config/other.json");
    ObjectVersion version = create(other, "stays");

    DeleteResult result = store().delete(LOCKFILE, WriteCondition.none());

    if (has(DatastoreFeature.DELETE_REPORTS_ABSENT)) {
      assertThat(result).isEqualTo(DeleteResult.ABSENT);
    } else {
      assertThat(result).isIn(DeleteResult.ABSENT, DeleteResult.DELETED);
    }
    assertAbsent(LOCKFILE);
    assertHolds(other, "stays", version);
  }

  @Test
  public final void delete_mustMatchCurrentVersion_deletes() {
    ObjectVersion version = create(LOCKFILE, "current");

    if (!has(DatastoreFeature.CONDITIONAL_DELETE)) {
      assertConditionalDeleteRefused(LOCKFILE, version);
      assertHolds(LOCKFILE, "current", version);
      return;
    }
    assertThat(store().delete(LOCKFILE, WriteCondition.mustMatch(version))).isEqualTo(DeleteResult.DELETED);
    assertAbsent(LOCKFILE);
  }

  @Test
  public final void delete_mustMatchStaleVersion_failsAndKeepsObject() {
    ObjectVersion first = create(LOCKFILE, "first");
    ObjectVersion second = replace(LOCKFILE, first, "second");

    if (!has(DatastoreFeature.CONDITIONAL_DELETE)) {
      assertConditionalDeleteRefused(LOCKFILE, first);
    } else {
      assertThat(store().delete(LOCKFILE, WriteCondition.mustMatch(first))).isEqualTo(DeleteResult.PRECONDITION_FAILED);
    }
    assertHolds(LOCKFILE, "second", second);
  }

  @Test
  public final void delete_mustMatchOnMissingKey_reportsAbsent() {
    ObjectVersion version = create(LOCKFILE, "deleted next");
    ObjectKey other = key("config/other.json");
    ObjectVersion otherVersion = create(other, "stays");
    assertThat(store().delete(LOCKFILE, WriteCondition.none())).isEqualTo(DeleteResult.DELETED);

    if (!has(DatastoreFeature.CONDITIONAL_DELETE)) {
      assertConditionalDeleteRefused(LOCKFILE, version);
    } else {
      assertThat(store().delete(LOCKFILE, WriteCondition.mustMatch(version))).isEqualTo(DeleteResult.ABSENT);
    }
    assertAbsent(LOCKFILE);
    assertHolds(other, "stays", otherVersion);
  }

  @Test
  public final void delete_mustNotExist_throwsAndDeletesNothing() {
    ObjectVersion version = create(LOCKFILE, "kept");

    assertThatThrownBy(() -> store().delete(LOCKFILE, WriteCondition.mustNotExist()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot delete")
        .hasMessageContaining(LOCKFILE.value());
    assertHolds(LOCKFILE, "kept", version);
  }

  /** Asserts the documented failure of a conditional delete on a store without {@link DatastoreFeature#CONDITIONAL_DELETE}. */
  final void assertConditionalDeleteRefused(ObjectKey key, ObjectVersion version) {
    assertThatThrownBy(() -> store().delete(key, WriteCondition.mustMatch(version)))
        .isInstanceOf(DatastoreUnsafeException.class)
        .hasMessageStartingWith("Cannot delete")
        .hasMessageContaining(key.value())
        .extracting(e -> ((DatastoreUnsafeException) e).code())
        .isEqualTo(DatastoreUnsafeException.CODE);
  }
}
