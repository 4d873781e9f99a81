package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.Datastores;
import dev.tierlock.ExtensionName;
import dev.tierlock.LeaseLocks;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ObjectKey;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the lockfile-transaction contract suites share: a fresh datastore per test wrapped in a
 * {@link FaultyDatastore} (so every suite can inject faults and read the operation log, whatever
 * the backend), the self-check guard over it, a {@link TestClock}, and checkouts on it.
 */
abstract class LockfileTransactionContractSupport {

  /** The namespace every checkout of the suite shares, to check that keys bind it exactly once. */
  static final Namespace NAMESPACE = Namespace.of("team");

  @TempDir Path temp;

  private @Nullable Datastore created;
  private @Nullable FaultyDatastore store;
  private @Nullable Datastore shared;
  private final TestClock clock = TestClock.create();
  private final List<TestCheckout> checkouts = new ArrayList<>();

  /**
   * Returns a fresh, empty datastore (a new bucket, prefix or directory); called before each test
   * and closed after it.
   *
   * @throws Exception if the store cannot be created (the test then fails)
   */
  protected abstract Datastore createDatastore() throws Exception;

  @BeforeEach
  final void openDatastore() throws Exception {
    Datastore fresh = createDatastore();
    created = fresh;
    assertThat(fresh.list("")).as("createDatastore() must return an empty store").isEmpty();
    FaultyDatastore faulty = FaultyDatastore.wrap(fresh);
    store = faulty;
    shared = Datastores.selfChecked(faulty);
  }

  @AfterEach
  final void closeDatastore() {
    checkouts.forEach(TestCheckout::close);
    checkouts.clear();
    Datastore fresh = created;
    created = null;
    if (fresh != null) {
      fresh.close();
    }
  }

  /** Returns the fault-injecting, logging wrapper of the store under test. */
  final FaultyDatastore store() {
    if (store == null) {
      throw new IllegalStateException("Cannot use the store: the test has not started");
    }
    return store;
  }

  /** Returns the shared clock. */
  final TestClock clock() {
    return clock;
  }

  /** Returns a builder of a checkout named {@code name} on the shared store, in {@link #NAMESPACE}. */
  final TestCheckout.Builder checkoutBuilder(String name) {
    if (shared == null) {
      throw new IllegalStateException("Cannot create checkout " + name + ": the test has not started");
    }
    return TestCheckout.builder(shared, temp.resolve(name), clock).namespace(NAMESPACE);
  }

  /** Builds a checkout named {@code name} (self-check done, operation log cleared). */
  final TestCheckout checkout(String name) {
    return register(checkoutBuilder(name).build());
  }

  /** Keeps {@code checkout} to close after the test, and clears the operation log. */
  final TestCheckout register(TestCheckout checkout) {
    checkouts.add(checkout);
    store().log().clear();
    return checkout;
  }

  /** Returns the shared lockfile's key. */
  static ObjectKey lockfileKey() {
    return NAMESPACE.key(TierPath.LOCKFILE);
  }

  /** Returns the global lock's key. */
  static ObjectKey globalLockKey() {
    return LeaseLocks.globalKey(NAMESPACE);
  }

  /** Matches the shared lockfile's key. */
  static Predicate<ObjectKey> isLockfile() {
    return lockfileKey()::equals;
  }

  /** Matches the global lock's key. */
  static Predicate<ObjectKey> isGlobalLock() {
    return globalLockKey()::equals;
  }

  /** Returns the shared lockfile as the store holds it now. */
  final Lockfile shared() {
    return TestCheckout.sharedLockfile(store().delegate(), NAMESPACE);
  }

  /** Returns the name {@code text}. */
  static ExtensionName name(String text) {
    return ExtensionName.of(text);
  }

  /** Returns the entry the checkouts write for {@code version} at the clock's current instant. */
  final LockfileEntry entryOf(String version) {
    return LockfileEntry.builder(version, clock.instant()).build();
  }

  /** Returns each entry's version by name, in order: what most assertions compare. */
  static java.util.Map<String, String> versions(Lockfile lockfile) {
    java.util.Map<String, String> out = new java.util.LinkedHashMap<>();
    lockfile.entries().forEach((n, e) -> out.put(n.value(), e.version()));
    return out;
  }

  /** Returns how many writes of the shared lockfile landed, by the operation log. */
  final long lockfileWrites() {
    return store().log().writtenKeys().stream().filter(lockfileKey()::equals).count();
  }
}
