package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.Lockfile;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreUnsafeException;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;

/**
 * The fixture of one {@link DatastoreContract} test: the store under test, the features its
 * subclass declares, and short steps that assert as they go. The scenario classes ({@code
 * Datastore*Scenarios}) share it. Not thread-safe beyond what the store offers.
 */
final class DatastoreSteps {

  /** The bound of every contract read that is not about bounds: the lockfile's own, 16 MiB. */
  static final long READ_BOUND = Lockfile.MAX_BYTES;

  /** The shared lockfile's key, the object most cases write. */
  static final ObjectKey LOCKFILE = ObjectKey.of("config/upstream_extensions.json");

  private final Datastore store;
  private final Set<DatastoreFeature> features;

  DatastoreSteps(Datastore store, Set<DatastoreFeature> features) {
    this.store = store;
    this.features = Set.copyOf(features);
  }

  /** Returns the store under test (fresh and empty at the start of each test). */
  Datastore store() {
    return store;
  }

  /** Returns whether the store under test declares {@code feature}. */
  boolean has(DatastoreFeature feature) {
    return features.contains(feature);
  }

  static ObjectKey key(String value) {
    return ObjectKey.of(value);
  }

  static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  static ObjectBody body(String text) {
    return ObjectBody.of(utf8(text));
  }

  /** Returns {@code length} printable ASCII characters. */
  static String filler(int length) {
    StringBuilder out = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      out.append((char) ('a' + i % 26));
    }
    return out.toString();
  }

  /**
   * Returns what a listing reports of {@code object}: the object itself, or the object with {@link
   * ObjectMetadata#EMPTY} when the store lacks {@link DatastoreFeature#LISTING_METADATA}.
   */
  StoredObject asListed(StoredObject object) {
    return has(DatastoreFeature.LISTING_METADATA)
        ? object
        : new StoredObject(object.key(), object.version(), object.size(), ObjectMetadata.EMPTY);
  }

  /** Asserts that {@code result} is a landed write and returns its version. */
  static ObjectVersion written(WriteResult result) {
    assertThat(result).as("write result").isInstanceOf(WriteResult.Written.class);
    return ((WriteResult.Written) result).version();
  }

  /** Creates {@code key} with {@code content} (create-only, no metadata) and returns its version. */
  ObjectVersion create(ObjectKey key, String content) {
    return written(store.write(key, body(content), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY));
  }

  /** Writes {@code content} at {@code key} unconditionally and returns the new version. */
  ObjectVersion put(ObjectKey key, String content) {
    return written(store.write(key, body(content), WriteCondition.none(), ObjectMetadata.EMPTY));
  }

  /** Replaces {@code key} with {@code content}, conditional on {@code version}; returns the new version. */
  ObjectVersion replace(ObjectKey key, ObjectVersion version, String content) {
    return written(store.write(key, body(content), WriteCondition.mustMatch(version), ObjectMetadata.EMPTY));
  }

  /** Reads {@code key} unconditionally and asserts it exists. */
  ReadResult.Found found(ObjectKey key) {
    ReadResult result = store.read(key, ReadCondition.always(), READ_BOUND);
    assertThat(result).as("read of %s", key).isInstanceOf(ReadResult.Found.class);
    return (ReadResult.Found) result;
  }

  /** Returns the text at {@code key}, or empty when absent. */
  Optional<String> content(ObjectKey key) {
    ReadResult result = store.read(key, ReadCondition.always(), READ_BOUND);
    assertThat(result).as("read of %s", key).isNotInstanceOf(ReadResult.NotModified.class);
    return result instanceof ReadResult.Found f ? Optional.of(new String(f.bytes(), StandardCharsets.UTF_8))
        : Optional.empty();
  }

  /** Asserts that {@code key} holds exactly {@code content} at {@code version}. */
  void assertHolds(ObjectKey key, String content, ObjectVersion version) {
    ReadResult.Found found = found(key);
    assertThat(new String(found.bytes(), StandardCharsets.UTF_8)).as("content of %s", key).isEqualTo(content);
    assertThat(found.object().version()).as("version of %s", key).isEqualTo(version);
    assertThat(found.object().size()).as("size of %s", key).isEqualTo(utf8(content).length);
    assertThat(store.stat(key)).as("stat of %s", key).contains(found.object());
  }

  /**
   * Asserts that a read, a stat, a listing of {@code prefix} (alone holding the object) and a
   * download all report {@code expected} (the listing without metadata unless the store has {@link
   * DatastoreFeature#LISTING_METADATA}).
   */
  void assertDescribedEverywhere(StoredObject expected, String prefix) throws IOException {
    ObjectKey key = expected.key();
    assertThat(found(key).object()).as("read of %s", key).isEqualTo(expected);
    assertThat(store.stat(key)).as("stat of %s", key).contains(expected);
    assertThat(store.list(prefix)).as("listing of %s", prefix).containsExactly(asListed(expected));
    Optional<ObjectStream> download = store.openStream(key);
    assertThat(download).as("download of %s", key).isPresent();
    try (ObjectStream stream = download.get()) {
      assertThat(stream.object()).as("download of %s", key).isEqualTo(expected);
    }
  }

  /** Asserts that nothing exists at {@code key}, by every way of looking. */
  void assertAbsent(ObjectKey key) {
    assertThat(store.read(key, ReadCondition.always(), READ_BOUND)).as("read of %s", key).isEqualTo(ReadResult.Absent.INSTANCE);
    assertThat(store.stat(key)).as("stat of %s", key).isEmpty();
    assertThat(store.list(key.value())).as("listing of %s", key).noneMatch(o -> o.key().equals(key));
  }

  /** Asserts the documented failure of a conditional delete on a store without {@link DatastoreFeature#CONDITIONAL_DELETE}. */
  void assertConditionalDeleteRefused(ObjectKey key, ObjectVersion version) {
    assertThatThrownBy(() -> store.delete(key, WriteCondition.mustMatch(version)))
        .isInstanceOf(DatastoreUnsafeException.class)
        .hasMessageStartingWith("Cannot delete")
        .hasMessageContaining(key.value())
        .extracting(e -> ((DatastoreUnsafeException) e).code())
        .isEqualTo(DatastoreUnsafeException.CODE);
  }
}
