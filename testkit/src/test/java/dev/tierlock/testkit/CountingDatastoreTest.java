package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.Lockfile;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.WriteCondition;
import java.io.IOException;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CountingDatastoreTest {

  private static final ObjectKey KEY = ObjectKey.of("config/upstream_extensions.json");

  private final FakeRemote remote = FakeRemote.create();
  private final CountingDatastore counting = CountingDatastore.wrap(remote);

  @AfterEach
  void closeRemote() {
    remote.close();
  }

  @Test
  void counts_everyOperationSeparately() throws IOException {
    counting.write(KEY, ObjectBody.of(new byte[] {1, 2}), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);
    counting.write(KEY, ObjectBody.of(new byte[] {3}), WriteCondition.none(), ObjectMetadata.EMPTY);
    counting.read(KEY, ReadCondition.always(), Lockfile.MAX_BYTES);
    try (ObjectStream stream = counting.openStream(KEY).orElseThrow()) {
      assertThat(stream.stream().readAllBytes()).containsExactly(3);
    }
    counting.stat(KEY);
    counting.list("config/");
    counting.list("");
    counting.list("x");
    counting.delete(KEY, WriteCondition.none());

    Map<DatastoreOperation, Long> expected = new EnumMap<>(DatastoreOperation.class);
    expected.put(DatastoreOperation.READ, 1L);
    expected.put(DatastoreOperation.OPEN_STREAM, 1L);
    expected.put(DatastoreOperation.STAT, 1L);
    expected.put(DatastoreOperation.WRITE, 2L);
    expected.put(DatastoreOperation.DELETE, 1L);
    expected.put(DatastoreOperation.LIST, 3L);
    assertThat(counting.counts()).isEqualTo(expected);
    assertThat(counting.count(DatastoreOperation.LIST)).isEqualTo(3);
    assertThat(counting.total()).isEqualTo(9);
    assertThat(remote.log().size()).isEqualTo(9);
  }

  @Test
  void counts_failedCallsToo() {
    remote.faults().failNext(DatastoreOperation.READ, 2, Fault.UNAVAILABLE);

    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> counting.read(KEY, ReadCondition.always(), Lockfile.MAX_BYTES))
          .isInstanceOf(DatastoreUnavailableException.class)
          .hasMessageContaining("Cannot read object " + KEY)
          .extracting(e -> ((DatastoreUnavailableException) e).code())
          .isEqualTo(DatastoreUnavailableException.CODE);
    }

    assertThat(counting.count(DatastoreOperation.READ)).isEqualTo(2);
  }

  @Test
  void counts_startAtZeroForEveryOperation() {
    assertThat(counting.counts()).hasSize(DatastoreOperation.values().length).allSatisfy((op, n) -> assertThat(n).isZero());
    assertThat(counting.total()).isZero();
  }

  @Test
  void reset_setsEveryCountToZero() {
    counting.stat(KEY);
    counting.list("");

    counting.reset();

    assertThat(counting.total()).isZero();
    counting.stat(KEY);
    assertThat(counting.counts()).containsEntry(DatastoreOperation.STAT, 1L).containsEntry(DatastoreOperation.LIST, 0L);
  }

  @Test
  void counts_concurrentCallsExactly() {
    ContractRace.run(8, i -> {
      for (int n = 0; n < 50; n++) {
        counting.stat(KEY);
      }
      return i;
    });

    assertThat(counting.count(DatastoreOperation.STAT)).isEqualTo(400);
  }

  @Test
  void counts_snapshotIsImmutable() {
    Map<DatastoreOperation, Long> snapshot = counting.counts();

    assertThat(snapshot).isUnmodifiable();
    counting.stat(KEY);
    assertThat(snapshot).containsEntry(DatastoreOperation.STAT, 0L);
  }

  @Test
  void wrap_describesAndClosesTheDelegate() {
    assertThat(counting.delegate()).isSameAs(remote);
    assertThat(counting.describe()).isEqualTo(remote.describe());

    counting.close();

    assertThatThrownBy(remote::keys).isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot list keys at " + remote.describe() + ": the fake remote is closed");
  }
}
