package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.LockfileCodec;
import dev.tierlock.spi.Datastore;
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

/**
 * The vocabulary the {@link DatastoreContract} tests share: the store under test, its features, and
 * short steps that assert as they go.
 */
abstract class DatastoreContractSupport {

  /** The bound of every contract read that is not about bounds: the lockfile's own, 16 MiB. */
  static final long READ_BOUND = LockfileCodec.MAX_BYTES;

  /** Returns the store under test (fresh and empty at the start of each test). */
  abstract Datastore store();

  /** Returns whether the store under test declares {@code feature}. */
  abstract boolean has(DatastoreFeature feature);

  static ObjectKey key(String value) {
    return ObjectKey.of(value);
  }

  static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  static ObjectBody body(String text) {
    return ObjectBody.of(utf8(text));
  }

  /**
   * Returns what a listing reports of {@code object}: the object itself, or the object with {@link
   * ObjectMetadata#EMPTY} when the store lacks {@link DatastoreFeature#LISTING_METADATA}.
   */
  final StoredObject asListed(StoredObject object) {
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
  final ObjectVersion create(ObjectKey key, String content) {
    return written(store().write(key, body(content), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY));
  }

  /** Writes {@code content} at {@code key} unconditionally and returns the new version. */
  final ObjectVersion put(ObjectKey key, String content) {
    return written(store().write(key, body(content), WriteCondition.none(), ObjectMetadata.EMPTY));
  }

  /** Replaces {@code key} with {@code content}, conditional on {@code version}; returns the new version. */
  final ObjectVersion replace(ObjectKey key, ObjectVersion version, String content) {
    return written(store().write(key, body(content), WriteCondition.mustMatch(version), ObjectMetadata.EMPTY));
  }

  /** Reads {@code key} unconditionally and asserts it exists. */
  final ReadResult.Found found(ObjectKey key) {
    ReadResult result = store().read(key, ReadCondition.always(), READ_BOUND);
    assertThat(result).as("read of %s", key).isInstanceOf(ReadResult.Found.class);
    return (ReadResult.Found) result;
  }

  /** Returns the text at {@code key}, or empty when absent. */
  final Optional<String> content(ObjectKey key) {
    ReadResult result = store().read(key, ReadCondition.always(), READ_BOUND);
    assertThat(result).as("read of %s", key).isNotInstanceOf(ReadResult.NotModified.class);
    return result instanceof ReadResult.Found f ? Optional.of(new String(f.bytes(), StandardCharsets.UTF_8))
        : Optional.empty();
  }

  /** Asserts that {@code key} holds exactly {@code content} at {@code version}. */
  final void assertHolds(ObjectKey key, String content, ObjectVersion version) {
    ReadResult.Found found = found(key);
    assertThat(new String(found.bytes(), StandardCharsets.UTF_8)).as("content of %s", key).isEqualTo(content);
    assertThat(found.object().version()).as("version of %s", key).isEqualTo(version);
    assertThat(found.object().size()).as("size of %s", key).isEqualTo(utf8(content).length);
    assertThat(store().stat(key)).as("stat of %s", key).contains(found.object());
  }

  /**
   * Asserts that a read, a stat, a listing of {@code prefix} (alone holding the object) and a
   * download all report {@code expected} (the listing without metadata unless the store has {@link
   * DatastoreFeature#LISTING_METADATA}).
   */
  final void assertDescribedEverywhere(StoredObject expected, String prefix) throws IOException {
    ObjectKey key = expected.key();
    assertThat(found(key).object()).as("read of %s", key).isEqualTo(expected);
    assertThat(store().stat(key)).as("stat of %s", key).contains(expected);
    assertThat(store().list(prefix)).as("listing of %s", prefix).containsExactly(asListed(expected));
    Optional<ObjectStream> download = store().openStream(key);
    assertThat(download).as("download of %s", key).isPresent();
    try (ObjectStream stream = download.get()) {
      assertThat(stream.object()).as("download of %s", key).isEqualTo(expected);
    }
  }

  /** Asserts that nothing exists at {@code key}, by every way of looking. */
  final void assertAbsent(ObjectKey key) {
    assertThat(store().read(key, ReadCondition.always(), READ_BOUND)).as("read of %s", key).isEqualTo(ReadResult.Absent.INSTANCE);
    assertThat(store().stat(key)).as("stat of %s", key).isEmpty();
    assertThat(store().list(key.value())).as("listing of %s", key).noneMatch(o -> o.key().equals(key));
  }
}
