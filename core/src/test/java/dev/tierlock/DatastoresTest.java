package dev.tierlock;

import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.DatastoreUnsafeException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.net.URI;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class DatastoresTest {

  private static final ObjectKey KEY = ObjectKey.of("config/upstream_extensions.json");

  private static WriteResult write(Datastore store) {
    return store.write(KEY, ObjectBody.of(new byte[] {1}), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);
  }

  @Test
  void open_registeredScheme_usesItsProviderWhateverTheCase() {
    assertThat(Datastores.open(URI.create("MEMORY://bucket/prefix"))).isInstanceOf(MemoryDatastore.class);
    assertThat(Datastores.schemes()).contains("memory");
  }

  @Test
  void open_unknownScheme_listsTheKnownSchemesWithoutCredentials() {
    assertThatThrownBy(() -> Datastores.open(URI.create("nope://user:secret@bucket/prefix")))
        .isInstanceOf(UnknownSchemeException.class)
        .hasMessageStartingWith("Cannot open datastore nope://bucket/prefix: no datastore provider handles its scheme; known schemes: ")
        .hasMessageContaining("memory")
        .hasMessageNotContaining("secret")
        .extracting(e -> ((UnknownSchemeException) e).code()).isEqualTo("unknown_scheme");
  }

  @Test
  void open_aUriTheProviderRefuses_failsWithItsReason() {
    assertThatThrownBy(() -> Datastores.open(URI.create("memory:/no-host")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot open memory:/no-host: a memory URI names a host");
  }

  @Test
  void selfChecked_anHonestStore_provesItselfOnceBeforeItsFirstWrite() {
    MemoryDatastore memory = new MemoryDatastore();
    Datastore guarded = Datastores.selfChecked(memory);
    guarded.read(KEY, ReadCondition.always(), 1024);
    assertThat(memory.writes()).isEmpty();

    assertThat(write(guarded)).isInstanceOf(WriteResult.Written.class);
    assertThat(write(guarded)).isEqualTo(WriteResult.PreconditionFailed.INSTANCE);

    assertThat(memory.writes()).hasSize(7);
    assertThat(memory.writes().subList(0, 5)).allMatch(w -> w.contains(".tierlock-selfcheck/"));
    assertThat(memory.writes().get(4)).startsWith("DELETE .tierlock-selfcheck/");
    assertThat(memory.keys()).containsExactly(KEY);
    assertThat(Datastores.selfChecked(guarded)).isSameAs(guarded);
  }

  @Test
  void selfChecked_aStoreThatIgnoresPreconditions_isRefusedAndWrittenNothing() {
    MemoryDatastore memory = new MemoryDatastore();
    memory.ignorePreconditions();
    Datastore guarded = Datastores.selfChecked(memory);

    assertThatThrownBy(() -> write(guarded))
        .isInstanceOf(DatastoreUnsafeException.class)
        .hasMessageStartingWith("Cannot write to datastore " + memory.describe() + ": it does not honour write preconditions "
            + "(a create-only write over an existing object succeeded, probe key .tierlock-selfcheck/")
        .hasMessageEndingWith("); Tierlock refuses to write to it")
        .extracting(e -> ((DatastoreUnsafeException) e).code()).isEqualTo("datastore_unsafe");
    assertThatThrownBy(() -> guarded.delete(KEY, WriteCondition.none())).isInstanceOf(DatastoreUnsafeException.class);
    assertThat(memory.keys()).isEmpty();
  }

  @Test
  void selfChecked_aStoreThatFailsDuringTheCheck_isCheckedAgainOnTheNextWrite() {
    AtomicInteger calls = new AtomicInteger();
    MemoryDatastore flaky = new MemoryDatastore() {
      @Override
      public synchronized WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
        if (calls.incrementAndGet() == 1) {
          throw new DatastoreUnavailableException("Cannot write " + key + ": unavailable", null);
        }
        return super.write(key, body, condition, metadata);
      }
    };
    Datastore guarded = Datastores.selfChecked(flaky);

    assertThatThrownBy(() -> write(guarded))
        .isInstanceOf(DatastoreUnavailableException.class)
        .hasMessageStartingWith("Cannot write .tierlock-selfcheck/");
    assertThat(write(guarded)).isInstanceOf(WriteResult.Written.class);
    assertThat(flaky.keys()).containsExactly(KEY);
  }
}
