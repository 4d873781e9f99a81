package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.DistributedLock;
import dev.tierlock.ExtensionName;
import dev.tierlock.LockOptions;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileDelta;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import dev.tierlock.spi.Datastore;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * What the scenarios of {@link LockfileTransactionContract} and {@link SyncPortContract} share for
 * one test: the store under test, wrapped in a {@link FaultyDatastore} (faults and the operation
 * log, whatever the backend), a {@link TestClock}, the checkouts on it (closed after the test), and
 * short steps. Every checkout is in {@link #NAMESPACE}, so that keys are seen to bind it exactly
 * once. Not thread-safe: one per test.
 */
final class TransactionFixture implements AutoCloseable {

  /** The namespace of every checkout. */
  static final Namespace NAMESPACE = Namespace.of("team");

  /** The shared lockfile's key. */
  static final ObjectKey LOCKFILE_KEY = NAMESPACE.key(TierPath.LOCKFILE);

  /** The global lock's key. */
  static final ObjectKey GLOBAL_LOCK_KEY = DistributedLock.globalKey(NAMESPACE);

  /** The prefix of the self-check's probes and verdict. */
  static final String SELF_CHECK_PREFIX = NAMESPACE.name().orElseThrow() + "/.tierlock-selfcheck/";

  /** The metadata name of the commit ids a version was built on (newest first, space-separated). */
  static final String HISTORY = "tierlock-commit-history";

  /** More failures than a run makes attempts, so that its publish gives up. */
  static final int BEYOND_ATTEMPTS = 50;

  private final Datastore created;
  private final FaultyDatastore store;
  private final Path temp;
  private final TestClock clock = TestClock.create();
  private final List<TestCheckout> checkouts = new ArrayList<>();

  private TransactionFixture(Datastore created, Path temp) {
    this.created = created;
    this.store = FaultyDatastore.wrap(created);
    this.temp = temp;
  }

  /**
   * Opens the fixture on {@code created}, which must be empty.
   *
   * @throws AssertionError if it is not
   */
  static TransactionFixture open(Datastore created, Path temp) {
    TransactionFixture fixture = new TransactionFixture(created, temp);
    try {
      assertThat(created.list("")).as("createDatastore() must return an empty store").isEmpty();
    } catch (RuntimeException | Error e) {
      created.close();
      throw e;
    }
    return fixture;
  }

  /** Closes every checkout, then the store under test. */
  @Override
  public void close() {
    checkouts.forEach(TestCheckout::close);
    checkouts.clear();
    created.close();
  }

  /**
   * Returns the operation a warm checkout's transaction fetches with: a conditional read, or on a
   * store whose versions repeat a stat (only the metadata it reads shows which commit a repeated
   * version now is).
   */
  DatastoreOperation warmFetch() {
    return store.versionsRepeat() ? DatastoreOperation.STAT : DatastoreOperation.READ;
  }

  /** Returns the fault-injecting, logging wrapper of the store under test: what checkouts use. */
  FaultyDatastore store() {
    return store;
  }

  /** Returns the store under test itself: calls on it are neither faulted nor logged. */
  Datastore created() {
    return created;
  }

  /** Returns the clock every checkout shares. */
  TestClock clock() {
    return clock;
  }

  /** Returns the test's temp directory. */
  Path temp() {
    return temp;
  }

  /** Returns a builder of checkout {@code name} on {@link #store()}, in {@link #NAMESPACE}. */
  TestCheckout.Builder builder(String name) {
    return builder(name, store);
  }

  /** Returns a builder of checkout {@code name} on {@code datastore}, in {@link #NAMESPACE}. */
  TestCheckout.Builder builder(String name, Datastore datastore) {
    return TestCheckout.builder(datastore, temp.resolve(name), clock).namespace(NAMESPACE);
  }

  /** Builds checkout {@code name} on {@link #store()} (self-check done) and clears the log. */
  TestCheckout checkout(String name) {
    return register(builder(name).build());
  }

  /** Keeps {@code checkout} to close after the test, and clears the operation log. */
  TestCheckout register(TestCheckout checkout) {
    checkouts.add(checkout);
    store.log().clear();
    return checkout;
  }

  /** Plays {@code checkout}'s process restarting ({@link TestCheckout#reopen()}). */
  TestCheckout reopen(TestCheckout checkout) {
    checkouts.remove(checkout);
    return register(checkout.reopen());
  }

  /** Moves the clock past the global lock's ttl: a holder that does this has stalled past its lease. */
  void stallPastTheLease() {
    clock.advance(LockOptions.DEFAULTS.ttl().plusSeconds(1));
  }

  /** Makes the next lockfile writes fail as unavailable, more of them than a run attempts. */
  void failLockfileWrites() {
    store.faults().failNext(DatastoreOperation.WRITE, isLockfile(), BEYOND_ATTEMPTS, Fault.UNAVAILABLE);
  }

  /**
   * Makes the answer of the next lockfile write lost ({@code fault}: {@link Fault#LOSE_RESPONSE}, the
   * write lands; {@link Fault#TIMEOUT_BEFORE_APPLY}, it does not) and every read-back of the rest of
   * that run fail, so that the run ends with the write in flight. Call {@code faults().clear()}
   * after the run.
   */
  void loseTheNextLockfileAnswerAndEveryReadBack(Fault fault) {
    store.faults().beforeNext(DatastoreOperation.WRITE, isLockfile(), () -> store.faults()
        .failNext(DatastoreOperation.STAT, isLockfile(), BEYOND_ATTEMPTS, Fault.UNAVAILABLE)
        .failNext(DatastoreOperation.READ, isLockfile(), BEYOND_ATTEMPTS, Fault.UNAVAILABLE));
    store.faults().failNext(DatastoreOperation.WRITE, isLockfile(), 1, fault);
  }

  /** Returns the lineage the shared lockfile carries now: its commit id, then the ids it was built on. */
  List<String> sharedLineage() {
    ObjectMetadata metadata = sharedObject().orElseThrow().metadata();
    List<String> lineage = new ArrayList<>();
    metadata.get(ObjectMetadata.COMMIT_ID).ifPresent(lineage::add);
    metadata.get(HISTORY).ifPresent(h -> lineage.addAll(List.of(h.split(" "))));
    return lineage;
  }

  /** Matches the shared lockfile's key. */
  static Predicate<ObjectKey> isLockfile() {
    return LOCKFILE_KEY::equals;
  }

  /** Matches the global lock's key. */
  static Predicate<ObjectKey> isGlobalLock() {
    return GLOBAL_LOCK_KEY::equals;
  }

  /** Returns the shared lockfile as the store holds it now (read around the log). */
  Lockfile shared() {
    return TestCheckout.sharedLockfile(created, NAMESPACE);
  }

  /** Returns the shared lockfile's exact bytes as stored now, or empty when absent. */
  Optional<byte[]> sharedBytes() {
    ReadResult read = created.read(LOCKFILE_KEY, ReadCondition.always(), Long.MAX_VALUE);
    return read instanceof ReadResult.Found found ? Optional.of(found.bytes()) : Optional.empty();
  }

  /** Returns what the store holds at the lockfile's key (version, size, metadata), or empty. */
  Optional<StoredObject> sharedObject() {
    return created.stat(LOCKFILE_KEY);
  }

  /** Writes {@code bytes} at the lockfile's key with no metadata, as another tool would. */
  void plant(byte[] bytes) {
    WriteResult result = created.write(LOCKFILE_KEY, ObjectBody.of(bytes), WriteCondition.none(), ObjectMetadata.EMPTY);
    assertThat(result).as("planting the shared lockfile").isInstanceOf(WriteResult.Written.class);
  }

  /** Returns the keys the store holds now, sorted. */
  List<String> storedKeys() {
    return created.list("").stream().map(o -> o.key().value()).toList();
  }

  /** Returns how many writes of the shared lockfile landed, by the operation log. */
  long lockfileWrites() {
    return store.log().writtenKeys().stream().filter(LOCKFILE_KEY::equals).count();
  }

  /** Returns the name {@code text}. */
  static ExtensionName name(String text) {
    return ExtensionName.of(text);
  }

  /** Returns a plain entry of {@code version} pulled at the clock's instant. */
  LockfileEntry entry(String version) {
    return LockfileEntry.builder(version, clock.instant()).build();
  }

  /** Returns each entry's version by name, in file order: what most assertions compare. */
  static Map<String, String> versions(Lockfile lockfile) {
    Map<String, String> out = new LinkedHashMap<>();
    lockfile.entries().forEach((n, e) -> out.put(n.value(), e.version()));
    return out;
  }

  /** Returns {@code delta} as Tierlock's messages show it: {@code set @a/b 1.0, remove @c/d}. */
  static String describe(LockfileDelta delta) {
    List<String> parts = new ArrayList<>();
    delta.upserts().forEach((name, entry) -> parts.add("set " + name + " " + entry.version()));
    delta.removals().forEach(name -> parts.add("remove " + name));
    return parts.isEmpty() ? "no entry change" : String.join(", ", parts);
  }

  /** Returns the bytes of {@code text} in UTF-8. */
  static byte[] utf8(String text) {
    return text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  /** Returns a lockfile of plain entries, each name at version {@code "1"}. */
  static Lockfile lockfile(String... names) {
    Lockfile lockfile = Lockfile.EMPTY;
    for (String name : names) {
      lockfile = lockfile.with(ExtensionName.of(name), LockfileEntry.builder("1", "2026-01-01T00:00:00.000Z").build());
    }
    return lockfile;
  }

  /** Returns the bytes Tierlock writes for {@link #lockfile(String...)}. */
  static byte[] encode(String... names) {
    return lockfile(names).bytes();
  }

  /** Returns the bytes of {@code file}. */
  static byte[] bytesOf(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Returns {@code store} reporting {@code capacity} bytes of metadata, so that a lineage it carries is short. */
  static Datastore withMetadataCapacity(Datastore store, int capacity) {
    return new ForwardingDatastore() {
      /** Returns true: it only reports another metadata capacity. */
      @Override
      protected boolean passesPreconditionsThrough() {
        return true;
      }

      @Override
      protected Datastore delegate() {
        return store;
      }

      @Override
      public int maxMetadataBytes() {
        return capacity;
      }

      @Override
      public void close() {
        // the store under test is the fixture's to close
      }

      @Override
      public String toString() {
        return "MetadataCapacity[" + capacity + ", " + store + "]";
      }
    };
  }
}
