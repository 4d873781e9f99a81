package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreIdentity;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link Datastore} passes: the semantics the SPI's Javadoc promises, checked on
 * a fresh, empty store per test. A datastore module subclasses it in a few lines:
 *
 * <pre>{@code
 * class MyStoreDatastoreTest extends DatastoreContract {
 *   @Override protected Datastore createDatastore() { return MyStore.open(freshBucket()); }
 *   @Override protected Set<DatastoreFeature> features() {
 *     return EnumSet.complementOf(EnumSet.of(DatastoreFeature.DELETE_REPORTS_ABSENT));
 *   }
 * }
 * }</pre>
 *
 * <p>Every test method is final. Features the subclass does not declare are tested for their
 * documented fallback (see {@link DatastoreFeature}), never skipped. Covered: absent, found and
 * not-modified reads; create-only, compare-and-swap (right, stale and missing version) and
 * unconditional writes; versions that change on every write; metadata round trip and replacement;
 * conditional and unconditional deletes; the {@code mustNotExist} delete refusal; listing by
 * prefix (nested keys, prefixes inside a segment, the empty store, invalid prefixes, many objects);
 * a 3 MiB download whose size is known before reading; stat; keys with {@code @}, spaces and
 * unicode; an identity that is stable and differs between two fresh stores; reads bounded by the
 * caller ({@link dev.tierlock.spi.ObjectTooLargeException} over the bound, nothing changed) and
 * refusing a bound that is not positive; metadata over the store's {@link
 * Datastore#maxMetadataBytes()} refused, and metadata of exactly that size round-tripping; and
 * races of 8 threads on create-only writes, compare-and-swap writes and conditional deletes, where
 * exactly one may win. The whole contract takes well under 5 s on {@link
 * FakeRemote}. Not thread-safe (JUnit runs one test per instance).
 */
public abstract class DatastoreContract extends DatastoreListingContract {

  private static final int RACERS = 8;
  private static final int ROUNDS = 3;

  private @Nullable Datastore store;

  /** For subclasses. */
  protected DatastoreContract() {}

  /**
   * Returns a fresh, empty datastore (a new bucket, prefix or directory); called before each test
   * and closed after it. The identity test calls it a second time within one test: each call must
   * return a store of its own (another bucket, prefix or directory), never a second instance over
   * the first one's objects.
   *
   * @throws Exception if the store cannot be created (the test then fails)
   */
  protected abstract Datastore createDatastore() throws Exception;

  /** Returns the features the datastore under test has; all of them unless overridden. */
  protected Set<DatastoreFeature> features() {
    return EnumSet.allOf(DatastoreFeature.class);
  }

  @BeforeEach
  final void openDatastore() throws Exception {
    Datastore created = createDatastore();
    store = created;
    assertThat(created.list("")).as("createDatastore() must return an empty store").isEmpty();
  }

  @AfterEach
  final void closeDatastore() {
    Datastore created = store;
    store = null;
    if (created != null) {
      created.close();
    }
  }

  @Override
  final Datastore store() {
    Datastore current = store;
    if (current == null) {
      throw new IllegalStateException("Cannot use the datastore under test: no test is running");
    }
    return current;
  }

  @Override
  final boolean has(DatastoreFeature feature) {
    return features().contains(feature);
  }

  @Test
  public final void describe_namesTheStoreAsAUri() {
    assertThat(store().describe()).isNotBlank().contains("://");
  }

  @Test
  public final void identity_isStableAndDiffersBetweenTwoFreshStores() throws Exception {
    DatastoreIdentity identity = store().identity();
    assertThat(store().identity()).isEqualTo(identity);
    create(key("config/identity.json"), "written");
    assertThat(store().identity()).as("identity after a write").isEqualTo(identity);

    Datastore other = createDatastore();
    try {
      assertThat(other.identity()).as("identity of a second fresh store").isNotEqualTo(identity);
      assertThat(other.identity().scheme()).as("scheme of a second fresh store").isEqualTo(identity.scheme());
      assertThat(other.list("")).as("a second fresh store must be empty").isEmpty();
    } finally {
      other.close();
    }
    assertThat(store().identity()).isEqualTo(identity);
  }

  @Test
  public final void write_mustNotExistRace_exactlyOneWinner() {
    for (int round = 0; round < ROUNDS; round++) {
      ObjectKey key = key(".datastore.lock." + round);
      List<WriteResult> results = ContractRace.run(RACERS, i -> store().write(
          key, body("holder-" + i), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY));

      int winner = onlyWinner(results, "create-only round " + round);
      ObjectVersion version = ((WriteResult.Written) results.get(winner)).version();
      assertHolds(key, "holder-" + winner, version);
    }
  }

  @Test
  public final void write_mustMatchRace_exactlyOneWinner() {
    ObjectKey key = key("config/upstream_extensions.json");
    ObjectVersion version = create(key, "start");
    for (int round = 0; round < ROUNDS; round++) {
      ObjectVersion expected = version;
      String prefix = "round-" + round + "-writer-";
      List<WriteResult> results = ContractRace.run(RACERS, i -> store().write(
          key, body(prefix + i), WriteCondition.mustMatch(expected), ObjectMetadata.EMPTY));

      int winner = onlyWinner(results, "compare-and-swap round " + round);
      version = ((WriteResult.Written) results.get(winner)).version();
      assertHolds(key, prefix + winner, version);
    }
  }

  @Test
  public final void delete_mustMatchRace_exactlyOneWinner() {
    ObjectKey key = key(".datastore.lock");
    if (!has(DatastoreFeature.CONDITIONAL_DELETE)) {
      ObjectVersion version = create(key, "held");
      assertConditionalDeleteRefused(key, version);
      assertHolds(key, "held", version);
      return;
    }
    for (int round = 0; round < ROUNDS; round++) {
      ObjectVersion version = create(key, "held in round " + round);
      List<DeleteResult> results = ContractRace.run(RACERS,
          i -> store().delete(key, WriteCondition.mustMatch(version)));

      assertThat(results).as("round %s", round).filteredOn(r -> r == DeleteResult.DELETED).hasSize(1);
      assertThat(results).as("round %s", round)
          .allMatch(r -> r == DeleteResult.DELETED || r == DeleteResult.PRECONDITION_FAILED || r == DeleteResult.ABSENT);
      assertAbsent(key);
    }
  }

  private static int onlyWinner(List<WriteResult> results, String what) {
    List<Integer> winners = IntStream.range(0, results.size())
        .filter(i -> results.get(i) instanceof WriteResult.Written).boxed().toList();
    assertThat(winners).as("winners of %s: %s", what, results).hasSize(1);
    assertThat(results).as("losers of %s", what)
        .filteredOn(r -> !(r instanceof WriteResult.Written))
        .containsOnly(WriteResult.PreconditionFailed.INSTANCE);
    return winners.get(0);
  }
}
