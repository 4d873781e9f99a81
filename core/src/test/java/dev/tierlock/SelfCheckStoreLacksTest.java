package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.DatastoreUnsafeException;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stores that lack what the self-check proves (versions, conditional calls, faithful bytes) are
 * refused as {@code datastore_unsafe}, with a message naming what they lack, never with a {@link
 * NullPointerException} or a failure that says "retry later"; no probe is left behind.
 */
class SelfCheckStoreLacksTest {

  private static final ObjectKey KEY = ObjectKey.of("config/upstream_extensions.json");

  @TempDir Path dir;

  private final ManualClock clock = new ManualClock(Instant.parse("2026-03-01T10:00:00Z"));

  @BeforeEach
  @AfterEach
  void forget() {
    SelfCheckedDatastore.forgetProcessVerdicts();
  }

  private WriteResult firstWrite(Datastore store) {
    SelfCheckedDatastore guard = new SelfCheckedDatastore(store, Namespace.NONE, new SelfCheckMarker(dir), clock);
    return guard.write(KEY, ObjectBody.of(new byte[] {1}), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);
  }

  @Test
  void aStoreWhoseWritesReturnNoVersion_isUnsafe_namingIt_andKeepsNoProbe() {
    MemoryDatastore memory = new MemoryDatastore();
    Datastore store = new Decorated(memory) {
      @Override
      public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
        return memory.write(key, body, condition, metadata) instanceof WriteResult.Written ? writtenWithoutVersion()
            : WriteResult.PreconditionFailed.INSTANCE;
      }
    };

    assertThatThrownBy(() -> firstWrite(store))
        .isInstanceOf(DatastoreUnsafeException.class)
        .hasMessageStartingWith("Cannot write to datastore " + memory.identity() + ": it does not honour write"
            + " preconditions (a write that landed came back with no version: the store does not version its objects,"
            + " so no write could be conditional on one, probe key .tierlock-selfcheck/probe-")
        .extracting(e -> ((DatastoreUnsafeException) e).code()).isEqualTo("datastore_unsafe");
    assertThat(memory.keys()).as("no probe left, nothing of the caller's written").isEmpty();
  }

  @Test
  void aStoreWhoseReadsReturnNoVersion_isUnsafe_namingIt_andKeepsNoProbe() {
    MemoryDatastore memory = new MemoryDatastore();
    Datastore store = new Decorated(memory) {
      @Override
      public ReadResult read(ObjectKey key, ReadCondition condition, long maxBytes) {
        ReadResult read = memory.read(key, condition, maxBytes);
        if (read instanceof ReadResult.Found found) {
          StoredObject object = found.object();
          return new ReadResult.Found(new StoredObject(key, nullVersion(), object.size(), object.metadata()), found.bytes());
        }
        return read;
      }

      @Override
      public Optional<StoredObject> stat(ObjectKey key) {
        return memory.stat(key).map(o -> new StoredObject(key, nullVersion(), o.size(), o.metadata()));
      }
    };

    assertThatThrownBy(() -> firstWrite(store))
        .isInstanceOf(DatastoreUnsafeException.class)
        .hasMessageContaining("(a read of a probe came back with no version: the store does not version its objects,"
            + " so no write could be conditional on one, probe key .tierlock-selfcheck/probe-");
    assertThat(memory.keys()).isEmpty();
  }

  @Test
  void aStoreThatRejectsEveryConditionalCall_isUnsafe_notUnavailable_andKeepsNoProbe() {
    MemoryDatastore memory = new MemoryDatastore();
    Datastore store = new Decorated(memory) {
      @Override
      public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
        if (!(condition instanceof WriteCondition.None)) {
          throw new DatastoreUnavailableException("Cannot write " + key + ": preconditions are not implemented", null);
        }
        return memory.write(key, body, condition, metadata);
      }

      @Override
      public DeleteResult delete(ObjectKey key, WriteCondition condition) {
        if (!(condition instanceof WriteCondition.None)) {
          throw new DatastoreUnavailableException("Cannot delete " + key + ": preconditions are not implemented", null);
        }
        return memory.delete(key, condition);
      }
    };

    assertThatThrownBy(() -> firstWrite(store))
        .isInstanceOf(DatastoreUnsafeException.class)
        .hasMessageContaining("(it rejects create-only writes: two in a row failed while a write without a condition"
            + " landed (Cannot write .tierlock-selfcheck/probe-")
        .extracting(e -> ((DatastoreUnsafeException) e).code()).isEqualTo("datastore_unsafe");
    assertThat(memory.keys()).as("the plain probe is deleted outright").isEmpty();
  }

  @Test
  void aStoreThatStoresOtherBytes_isUnsafe_andKeepsNoProbe() {
    MemoryDatastore memory = new MemoryDatastore();
    Datastore store = new Decorated(memory) {
      @Override
      public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
        String framed = "14;chunk-signature=0\r\n" + text(body) + "\r\n0\r\n";
        return memory.write(key, ObjectBody.of(framed.getBytes(StandardCharsets.UTF_8)), condition, metadata);
      }
    };

    assertThatThrownBy(() -> firstWrite(store))
        .isInstanceOf(DatastoreUnsafeException.class)
        .hasMessageContaining("(a probe read back with other bytes than were written (28 bytes written, 55 bytes read),"
            + " probe key .tierlock-selfcheck/probe-");
    assertThat(memory.keys()).isEmpty();
  }

  private static String text(ObjectBody body) {
    try {
      return new String(body.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A version a store that breaks the contract gives: none. */
  @SuppressWarnings("NullAway")
  private static dev.tierlock.spi.ObjectVersion nullVersion() {
    return null;
  }

  private static WriteResult writtenWithoutVersion() {
    return new WriteResult.Written(nullVersion());
  }

  /** A decorator of a test store, which overrides what it breaks. */
  private static class Decorated extends ForwardingDatastore {
    private final Datastore delegate;

    Decorated(Datastore delegate) {
      this.delegate = delegate;
    }

    @Override
    protected Datastore delegate() {
      return delegate;
    }
  }
}
