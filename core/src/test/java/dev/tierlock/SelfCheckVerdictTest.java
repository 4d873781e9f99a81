package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreUnsafeException;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A verdict is bound to the store and to the decorators in front of it: a decorator inherits the
 * verdict of what it wraps only by declaring that it passes preconditions through, and a copy of a
 * verdict object vouches for no other server.
 */
class SelfCheckVerdictTest {

  private static final ObjectKey KEY = ObjectKey.of("config/upstream_extensions.json");

  private static final ObjectKey VERDICT = ObjectKey.of(".tierlock-selfcheck/verdict");

  @TempDir Path dir;

  private final ManualClock clock = new ManualClock(Instant.parse("2026-03-01T10:00:00Z"));

  @BeforeEach
  @AfterEach
  void forget() {
    SelfCheckedDatastore.forgetProcessVerdicts();
  }

  private SelfCheckedDatastore guard(Datastore store) {
    return new SelfCheckedDatastore(store, Namespace.NONE, new SelfCheckMarker(dir), clock);
  }

  private static WriteResult put(Datastore store, String text, WriteCondition condition) {
    return store.write(KEY, ObjectBody.of(text.getBytes(StandardCharsets.UTF_8)), condition, ObjectMetadata.EMPTY);
  }

  private static long probeWrites(MemoryDatastore store) {
    return store.calls().stream().filter(c -> c.startsWith("WRITE .tierlock-selfcheck/probe-")).count();
  }

  @Test
  void aDecoratorThatDropsPreconditions_overAVerifiedStore_isCheckedOnItsOwn_andRefused_andThePeersEntryStays() {
    MemoryDatastore honest = new MemoryDatastore();
    WriteResult.Written peer = (WriteResult.Written) put(guard(honest), "peer's entry", WriteCondition.mustNotExist());
    Datastore dropping = new DroppingPreconditions(honest);

    assertThatThrownBy(() -> put(guard(dropping), "mine", WriteCondition.mustNotExist()))
        .as("in the process that verified the store").isInstanceOf(DatastoreUnsafeException.class)
        .hasMessageStartingWith("Cannot write to datastore " + honest.identity() + ": it does not honour write"
            + " preconditions (a create-only write over an existing object succeeded, probe key");
    SelfCheckedDatastore.forgetProcessVerdicts();
    assertThatThrownBy(() -> put(guard(dropping), "mine", WriteCondition.mustNotExist()))
        .as("in a later process, with the checkout's marker").isInstanceOf(DatastoreUnsafeException.class);

    ReadResult.Found read = (ReadResult.Found) honest.read(KEY, ReadCondition.always(), 1024);
    assertThat(new String(read.bytes(), StandardCharsets.UTF_8)).isEqualTo("peer's entry");
    assertThat(read.object().version()).isEqualTo(peer.version());
  }

  @Test
  void aDecoratorThatDeclaresItPassesPreconditionsThrough_sharesTheVerdictOfTheStore_atNoCost() {
    MemoryDatastore honest = new MemoryDatastore();
    guard(honest).ensureChecked();
    int before = honest.calls().size();
    Datastore passing = new Decorated(honest) {
      @Override
      protected boolean passesPreconditionsThrough() {
        return true;
      }
    };

    guard(passing).ensureChecked();

    assertThat(honest.calls()).hasSize(before);
    assertThat(((ForwardingDatastore) passing).preconditionChain()).containsExactly(honest);
  }

  @Test
  void anHonestDecoratorThatDeclaresNothing_isCheckedOnce_underAVerdictObjectOfItsOwn() {
    MemoryDatastore honest = new MemoryDatastore("s3.example");
    guard(honest).ensureChecked();
    Decorated silent = new Decorated(honest);
    long before = probeWrites(honest);

    guard(silent).ensureChecked();

    assertThat(probeWrites(honest)).as("a full check through the decorator").isGreaterThan(before);
    assertThat(silent.preconditionChain()).containsExactly(silent, honest);
    assertThat(honest.keys()).filteredOn(k -> k.value().startsWith(".tierlock-selfcheck/"))
        .as("the store's verdict, and the chain's").hasSize(2).contains(VERDICT)
        .anyMatch(k -> k.value().matches("\\.tierlock-selfcheck/verdict-[0-9a-f]{16}"));

    SelfCheckedDatastore.forgetProcessVerdicts();
    int calls = honest.calls().size();
    guard(new Decorated(honest)).ensureChecked();
    assertThat(honest.calls().subList(calls, honest.calls().size())).as("a later process: one stat of its verdict")
        .singleElement().asString().matches("STAT \\.tierlock-selfcheck/verdict-[0-9a-f]{16}");
  }

  @Test
  void aCopiedVerdictObject_doesNotVouchForAnotherServerAtTheSameAddress() {
    MemoryDatastore honest = new MemoryDatastore("shared-address");
    guard(honest).ensureChecked();
    ReadResult.Found verdict = (ReadResult.Found) honest.read(VERDICT, ReadCondition.always(), 1024);

    MemoryDatastore migrated = new MemoryDatastore("shared-address");
    migrated.write(VERDICT, ObjectBody.of(verdict.bytes()), WriteCondition.none(), verdict.object().metadata());
    migrated.ignorePreconditions();
    assertThat(migrated.identity()).isEqualTo(honest.identity());

    assertThatThrownBy(() -> guard(migrated).ensureChecked()).as("in this process")
        .isInstanceOf(DatastoreUnsafeException.class);
    SelfCheckedDatastore.forgetProcessVerdicts();
    assertThatThrownBy(() -> guard(migrated).ensureChecked()).as("in a later process, with the checkout's marker")
        .isInstanceOf(DatastoreUnsafeException.class)
        .hasMessageContaining("(a create-only write over an existing object succeeded");
    assertThat(migrated.keys()).doesNotContain(KEY);
  }

  @Test
  void thePreconditionChain_skipsDecoratorsThatPassPreconditionsThrough_outermostFirst() {
    MemoryDatastore store = new MemoryDatastore();
    Decorated inner = new Decorated(store);
    Datastore middle = new Decorated(inner) {
      @Override
      protected boolean passesPreconditionsThrough() {
        return true;
      }
    };
    Decorated outer = new Decorated(middle);

    assertThat(outer.preconditionChain()).containsExactly(outer, inner, store);
  }

  /** A decorator that declares nothing: by default a store of its own to the self-check. */
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

  /** A user-written decorator that retries by dropping preconditions: it loses peers' writes over any store. */
  private static final class DroppingPreconditions extends Decorated {
    DroppingPreconditions(Datastore delegate) {
      super(delegate);
    }

    @Override
    public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
      return delegate().write(key, body, WriteCondition.none(), metadata);
    }

    @Override
    public DeleteResult delete(ObjectKey key, WriteCondition condition) {
      return delegate().delete(key, WriteCondition.none());
    }
  }

}
