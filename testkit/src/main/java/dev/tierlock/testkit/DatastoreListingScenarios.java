package dev.tierlock.testkit;

import static dev.tierlock.testkit.DatastoreSteps.body;
import static dev.tierlock.testkit.DatastoreSteps.key;
import static dev.tierlock.testkit.DatastoreSteps.utf8;
import static dev.tierlock.testkit.DatastoreSteps.written;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@link DatastoreContract} cases about listings and key spellings: prefixes (nested keys,
 * inside a segment, empty, invalid), order, many objects ({@link
 * DatastoreFeature#PAGINATION_AT_SCALE} or 60), keys that are also prefixes ({@link
 * DatastoreFeature#OBJECT_AND_PREFIX_KEYS} or their refusal), and keys with {@code @}, spaces and
 * unicode.
 */
final class DatastoreListingScenarios {

  private final DatastoreSteps steps;
  private final Datastore store;

  DatastoreListingScenarios(DatastoreSteps steps) {
    this.steps = steps;
    this.store = steps.store();
  }

  void list_emptyStore_returnsNothing() {
    assertThat(store.list("")).isEmpty();
    assertThat(store.list("config/")).isEmpty();
  }

  void list_prefix_returnsNestedKeysSortedWithTheirStat() {
    boolean both = steps.has(DatastoreFeature.OBJECT_AND_PREFIX_KEYS);
    List<String> keys = both
        ? List.of("b/a", "a/b/c/d", "ab", "a/c.json", "a-b", "a/b", "a/b/c")
        : List.of("b/a", "a/b/c/d", "ab", "a/c.json", "a-b", "a/b/e", "a/b/c/f");
    for (int i = 0; i < keys.size(); i++) {
      String k = keys.get(i);
      ObjectMetadata metadata = steps.has(DatastoreFeature.USER_METADATA)
          ? ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "listed-" + i)
          : ObjectMetadata.EMPTY;
      written(store.write(key(k), body("content of " + k), WriteCondition.mustNotExist(), metadata));
    }

    List<StoredObject> listed = store.list("a/");

    assertThat(listed).extracting(o -> o.key().value()).containsExactlyElementsOf(both
        ? List.of("a/b", "a/b/c", "a/b/c/d", "a/c.json")
        : List.of("a/b/c/d", "a/b/c/f", "a/b/e", "a/c.json"));
    for (StoredObject object : listed) {
      Optional<StoredObject> stat = store.stat(object.key());
      assertThat(stat).as("stat of %s", object.key()).isPresent();
      assertThat(stat.get().metadata().get(ObjectMetadata.COMMIT_ID)).as("metadata of %s", object.key())
          .isEqualTo(steps.has(DatastoreFeature.USER_METADATA)
              ? Optional.of("listed-" + keys.indexOf(object.key().value()))
              : Optional.empty());
      assertThat(object).as("listing of %s (with metadata: %s)", object.key(), steps.has(DatastoreFeature.LISTING_METADATA))
          .isEqualTo(steps.asListed(stat.get()));
      assertThat(object.size()).isEqualTo(utf8("content of " + object.key()).length);
    }
  }

  void list_prefixInsideASegment_matchesByText() {
    for (String k : List.of("config/push.json", "configs/a.json", "config/pulled.json", "config/pull/x.json")) {
      steps.create(key(k), k);
    }

    assertThat(store.list("config/pull")).extracting(o -> o.key().value())
        .containsExactly("config/pull/x.json", "config/pulled.json");
    assertThat(store.list("config")).extracting(o -> o.key().value())
        .containsExactly("config/pull/x.json", "config/pulled.json", "config/push.json", "configs/a.json");
    assertThat(store.list("config/pulled.json")).extracting(o -> o.key().value())
        .containsExactly("config/pulled.json");
    assertThat(store.list("config/pulled.json/")).isEmpty();
  }

  void list_emptyPrefix_returnsEveryObjectSortedWithVersions() {
    List<StoredObject> expected = new ArrayList<>();
    List<String> keys = steps.has(DatastoreFeature.OBJECT_AND_PREFIX_KEYS)
        ? List.of("z.json", "m/n/o", "a", "m/n", "0-first")
        : List.of("z.json", "m/n/o", "a", "m/p", "0-first");
    for (String k : keys) {
      expected.add(new StoredObject(key(k), steps.create(key(k), k + "!"), utf8(k + "!").length, ObjectMetadata.EMPTY));
    }
    expected.sort((x, y) -> x.key().compareTo(y.key()));

    assertThat(store.list("")).containsExactlyElementsOf(expected);
  }

  void write_keyThatIsAlsoAPrefix_isStoredOrRefusedAsDeclared() {
    ObjectKey parent = key("nest/a");
    ObjectKey child = key("nest/a/b");
    ObjectKey other = key("nest/c/d");
    steps.create(parent, "parent");
    steps.create(other, "other");

    if (steps.has(DatastoreFeature.OBJECT_AND_PREFIX_KEYS)) {
      steps.create(child, "child");
      steps.create(key("nest/c"), "c");
      assertThat(store.list("nest/")).extracting(o -> o.key().value())
          .containsExactly("nest/a", "nest/a/b", "nest/c", "nest/c/d");
      return;
    }
    for (ObjectKey clash : List.of(child, key("nest/c"))) {
      assertThatThrownBy(() -> store.write(clash, ObjectBody.of(utf8("x")), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY))
          .as("key %s", clash)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Cannot write")
          .hasMessageContaining(clash.value());
    }
    assertThat(store.list("nest/")).extracting(o -> o.key().value()).containsExactly("nest/a", "nest/c/d");
    assertThat(steps.content(parent)).contains("parent");
  }

  void list_invalidPrefix_throwsAndNamesIt() {
    for (String prefix : List.of("/config", "config//x", "a/../b", "bad\\prefix")) {
      assertThatThrownBy(() -> store.list(prefix))
          .as("prefix %s", prefix)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Cannot list prefix")
          .hasMessageContaining(prefix);
    }
  }

  void list_manyObjects_returnsEveryObjectInOrder() {
    int count = steps.has(DatastoreFeature.PAGINATION_AT_SCALE) ? 1100 : 60;
    for (int i = count - 1; i >= 0; i--) {
      steps.put(key(String.format("many/%05d", i)), Integer.toString(i));
    }
    steps.put(key("manx"), "outside the prefix");

    List<StoredObject> listed = store.list("many/");

    assertThat(listed).hasSize(count);
    for (int i = 0; i < count; i++) {
      assertThat(listed.get(i).key().value()).isEqualTo(String.format("many/%05d", i));
      assertThat(listed.get(i).size()).isEqualTo(Integer.toString(i).length());
    }
    assertThat(store.list("")).hasSize(count + 1);
  }

  void write_keysWithAtSignsSpacesAndUnicode_roundTrip() {
    List<String> keys = List.of(
        "config/@scope/ext/sub.json",
        "archives/@acme/tool@1.2.3.tar.gz",
        "unicode/\u00e9-\u00fc-\u00df/\u65e5\u672c\u8a9e.json",
        "emoji/\ud83d\ude00.txt",
        "odd/a b+c%20d=e&f#g~h.json",
        "odd/'quoted' (1) [2] {3} $4 !5 ,6 ;7.json");
    List<ObjectKey> sorted = new ArrayList<>();
    for (String k : keys) {
      ObjectVersion version = steps.create(key(k), "value of " + k);
      steps.assertHolds(key(k), "value of " + k, version);
      sorted.add(key(k));
    }
    sorted.sort(null);

    assertThat(store.list("")).extracting(StoredObject::key).containsExactlyElementsOf(sorted);
    assertThat(store.list("unicode/\u00e9")).extracting(StoredObject::key).containsExactly(key(keys.get(2)));
    assertThat(store.list("config/@scope/")).extracting(StoredObject::key).containsExactly(key(keys.get(0)));
    for (String k : keys) {
      assertThat(store.delete(key(k), WriteCondition.none())).as("delete of %s", k).isEqualTo(DeleteResult.DELETED);
      steps.assertAbsent(key(k));
    }
  }
}
