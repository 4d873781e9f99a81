package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

import dev.tierlock.Namespace;
import dev.tierlock.archive.ArchiveChange;
import dev.tierlock.archive.ArchiveFile;
import dev.tierlock.archive.ArchiveLimitException;
import dev.tierlock.archive.ArchiveLimits;
import dev.tierlock.archive.ArchiveStore;
import dev.tierlock.archive.ArchiveStores;
import dev.tierlock.archive.ArchiveTamperedException;
import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.StoredObject;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract of the archive store ({@link ArchiveStores#over}) on any {@link Datastore}: a fresh,
 * empty datastore per test, shared by two checkouts ("A" and "B") that each have their own cache
 * and their own {@link FaultyDatastore} wrapper (so each one's calls are logged apart). A datastore
 * module subclasses it in a few lines:
 *
 * <pre>{@code
 * class MyStoreArchiveStoreTest extends ArchiveStoreContract {
 *   @Override protected Datastore createDatastore() { return MyStore.open(freshBucket()); }
 * }
 * }</pre>
 *
 * <p>Covered: create-only store, idempotent second store, concurrent stores of one key from two
 * checkouts (one object), a lost write answer, replacement of a wrong-sized object; install then
 * peer restore through the datastore alone; the cache serving later reads and a bad cache file
 * being replaced; a tampered object (different bytes planted, and bytes corrupted in flight)
 * refused with nothing cached; an oversize object refused before any body byte is read; a broken
 * download, a deadline and an interrupt, each leaving nothing cached; conditional delete, and a
 * delete that keeps an archive stored again meanwhile; the namespace bound once. With the lockfile
 * ({@link dev.tierlock.archive.ArchiveTransactions}, checkouts on the same wrappers): install then
 * peer restore; the archive written before the lockfile; a failed archive write that publishes no
 * entry; a failed lockfile publish that keeps the archive and replays; superseded and removed
 * archives deleted only after the lockfile publish, and kept when it fails or when a peer pins them
 * again; one object for two checkouts installing at once; a tampered tier refused at restore with
 * nothing extracted; a staged copy turned into a link never travels. Test methods are final. Not
 * thread-safe (JUnit runs one test per instance).
 */
public abstract class ArchiveStoreContract extends ArchiveTransactionContract {

  @TempDir
  private Path temp;

  private @Nullable Datastore shared;
  private @Nullable FaultyDatastore remoteA;
  private @Nullable FaultyDatastore remoteB;

  /** For subclasses. */
  protected ArchiveStoreContract() {}

  /**
   * Returns a fresh, empty datastore; called before each test and closed after it.
   *
   * @throws Exception if the store cannot be created (the test then fails)
   */
  protected abstract Datastore createDatastore() throws Exception;

  @BeforeEach
  final void openDatastore() throws Exception {
    Datastore created = createDatastore();
    shared = created;
    assertThat(created.list("")).as("createDatastore() must return an empty store").isEmpty();
    remoteA = FaultyDatastore.wrap(created);
    remoteB = FaultyDatastore.wrap(created);
  }

  @AfterEach
  final void closeDatastore() {
    closeCheckouts();
    Datastore created = shared;
    shared = null;
    if (created != null) {
      created.close();
    }
  }

  @Test
  final void store_newArchive_writesCreateOnlyAndCachesVerifiedBytes() throws IOException {
    byte[] bytes = archive("hello");
    ExtensionArchiveKey key = keyOf("@acme/tools", bytes);

    ArchiveChange change = checkoutA().store(key, file("a.tar.gz", bytes));

    assertThat(change).isEqualTo(new ArchiveChange(key, ArchiveChange.Outcome.CREATED, List.of(key.tierPath())));
    assertThat(a().log().entries()).containsExactly(
        new LoggedOperation(DatastoreOperation.WRITE, objectKey(key).value(), "mustNotExist", "WRITTEN"));
    StoredObject object = datastore().stat(objectKey(key)).orElseThrow();
    assertThat(object.size()).isEqualTo(bytes.length);
    assertThat(object.metadata().get("tierlock-sha256")).contains(key.sha256());
    assertThat(cacheFiles("a")).containsExactly("config/pulled-archives/@acme/tools/" + key.fileName());
    assertThat(Files.readAllBytes(cache("a").resolve(key.tierPath().value()))).isEqualTo(bytes);
  }

  @Test
  final void store_twice_secondChangesNothing() throws IOException {
    byte[] bytes = archive("twice");
    ExtensionArchiveKey key = keyOf("@acme/tools", bytes);
    ArchiveStore store = checkoutA();
    store.store(key, file("a.tar.gz", bytes));
    StoredObject first = datastore().stat(objectKey(key)).orElseThrow();

    ArchiveChange second = store.store(key, new ByteArrayInputStream(bytes));

    assertThat(second.outcome()).isEqualTo(ArchiveChange.Outcome.ALREADY_PRESENT);
    assertThat(second.paths()).containsExactly(key.tierPath());
    assertThat(a().log().writtenKeys()).containsExactly(objectKey(key));
    assertThat(a().log().entries()).last()
        .isEqualTo(new LoggedOperation(DatastoreOperation.STAT, objectKey(key).value(), "always", "FOUND"));
    assertThat(datastore().stat(objectKey(key)).orElseThrow().version()).isEqualTo(first.version());
  }

  @Test
  final void store_bytesNotMatchingTheKey_refusedWithNothingCachedOrWritten() throws IOException {
    byte[] bytes = archive("real");
    ExtensionArchiveKey key = keyOf("@acme/tools", archive("other"));
    String actual = sha256(bytes);

    assertThatThrownBy(() -> checkoutA().store(key, file("a.tar.gz", bytes)))
        .isInstanceOf(ArchiveTamperedException.class)
        .hasMessageStartingWith("Cannot store archive " + key + ": the bytes from ")
        .hasMessageContaining("have SHA-256 " + actual + ", expected " + key.sha256())
        .satisfies(e -> {
          ArchiveTamperedException t = (ArchiveTamperedException) e;
          assertThat(t.code()).isEqualTo("archive_tampered");
          assertThat(t.key()).isEqualTo(key);
          assertThat(t.expected()).isEqualTo(key.sha256());
          assertThat(t.actual()).isEqualTo(actual);
        });
    assertThat(a().log().entries()).isEmpty();
    assertThat(cacheFiles("a")).isEmpty();
    assertThat(datastore().list("")).isEmpty();
  }

  @Test
  final void store_overTheCompressedCap_refusedWithNothingCachedOrWritten() throws IOException {
    byte[] bytes = noise(4000);
    ExtensionArchiveKey key = keyOf("@acme/tools", bytes);
    ArchiveStore small = store("a", a(), ArchiveLimits.DEFAULTS.withMaxCompressedBytes(100), Namespace.NONE);

    assertThatThrownBy(() -> small.store(key, new ByteArrayInputStream(bytes)))
        .isInstanceOf(ArchiveLimitException.class)
        .hasMessageStartingWith("Cannot accept archive " + key + ": its compressed size exceeds the cap")
        .satisfies(e -> assertThat(((ArchiveLimitException) e).code()).isEqualTo("archive_limit"));
    assertThat(a().log().entries()).isEmpty();
    assertThat(cacheFiles("a")).isEmpty();
  }

  @Test
  final void store_concurrentlyFromTwoCheckouts_bothSucceedWithOneObject() throws Exception {
    byte[] bytes = archive("race");
    ExtensionArchiveKey key = keyOf("@acme/race", bytes);
    CyclicBarrier bothAtTheWrite = new CyclicBarrier(2);
    Runnable meet = () -> {
      try {
        bothAtTheWrite.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      } catch (Exception e) {
        throw new IllegalStateException("Cannot line up the two writes", e);
      }
    };
    a().faults().beforeNext(DatastoreOperation.WRITE, k -> true, meet);
    b().faults().beforeNext(DatastoreOperation.WRITE, k -> true, meet);
    ArchiveStore storeA = checkoutA();
    ArchiveStore storeB = checkoutB();

    List<ArchiveChange> changes = inParallel(
        () -> storeA.store(key, new ByteArrayInputStream(bytes)),
        () -> storeB.store(key, new ByteArrayInputStream(bytes)));

    assertThat(changes).extracting(ArchiveChange::outcome)
        .containsExactlyInAnyOrder(ArchiveChange.Outcome.CREATED, ArchiveChange.Outcome.ALREADY_PRESENT);
    assertThat(datastore().list("")).extracting(StoredObject::key).containsExactly(objectKey(key));
    assertThat(a().log().writtenKeys().size() + b().log().writtenKeys().size()).isEqualTo(1);
    assertThat(checkoutB().read(key).orElseThrow().origin()).isEqualTo(ArchiveFile.Origin.CACHE);
  }

  @Test
  final void store_whenTheWriteAnswerIsLost_resolvesByStat() throws IOException {
    byte[] bytes = archive("lost answer");
    ExtensionArchiveKey key = keyOf("@acme/tools", bytes);
    a().faults().failNext(DatastoreOperation.WRITE, 1, Fault.LOSE_RESPONSE);

    ArchiveChange change = checkoutA().store(key, new ByteArrayInputStream(bytes));

    assertThat(change.outcome()).isEqualTo(ArchiveChange.Outcome.ALREADY_PRESENT);
    assertThat(a().log().writtenKeys()).containsExactly(objectKey(key));
    assertThat(a().log().count(DatastoreOperation.WRITE)).isEqualTo(1);
    assertThat(datastore().stat(objectKey(key)).orElseThrow().size()).isEqualTo(bytes.length);
  }

  @Test
  final void store_overAnObjectOfAnotherSize_replacesItConditionally() throws IOException {
    byte[] bytes = archive("right bytes");
    ExtensionArchiveKey key = keyOf("@acme/tools", bytes);
    plant(key, "wrong bytes of another size".getBytes(StandardCharsets.UTF_8));

    ArchiveChange change = checkoutA().store(key, new ByteArrayInputStream(bytes));

    assertThat(change.outcome()).isEqualTo(ArchiveChange.Outcome.REPLACED);
    assertThat(a().log().entries()).extracting(LoggedOperation::operation, LoggedOperation::outcome).containsExactly(
        tuple(DatastoreOperation.WRITE, "PRECONDITION_FAILED"),
        tuple(DatastoreOperation.STAT, "FOUND"),
        tuple(DatastoreOperation.WRITE, "WRITTEN"));
    assertThat(a().log().entries().get(2).condition()).startsWith("mustMatch(");
    assertThat(checkoutB().read(key).orElseThrow().origin()).isEqualTo(ArchiveFile.Origin.DATASTORE);
  }

  @Test
  final void delete_storedArchive_deletesConditionallyOnTheVersionSeen() throws IOException {
    byte[] bytes = archive("superseded");
    ExtensionArchiveKey key = keyOf("@acme/tools", bytes);
    checkoutA().store(key, file("a.tar.gz", bytes));
    String version = datastore().stat(objectKey(key)).orElseThrow().version().value();
    a().log().clear();

    ArchiveChange change = checkoutA().delete(key);

    assertThat(change).isEqualTo(new ArchiveChange(key, ArchiveChange.Outcome.DELETED, List.of(key.tierPath())));
    assertThat(a().log().entries()).containsExactly(
        new LoggedOperation(DatastoreOperation.STAT, objectKey(key).value(), "always", "FOUND"),
        new LoggedOperation(DatastoreOperation.DELETE, objectKey(key).value(), "mustMatch(" + version + ")",
            "DELETED"));
    assertThat(datastore().list("")).isEmpty();
    assertThat(cacheFiles("a")).isEmpty();
    assertThat(checkoutA().delete(key)).isEqualTo(new ArchiveChange(key, ArchiveChange.Outcome.ABSENT, List.of()));
    assertThat(a().log().count(DatastoreOperation.DELETE)).isEqualTo(1);
  }

  @Test
  final void delete_whenReplacedMeanwhile_keepsTheObject() throws IOException {
    // The delete is conditional on the version it saw: an object written in between (here with
    // other bytes, so that every store, S3 with its content ETags included, gives it a new version)
    // is never deleted.
    byte[] bytes = archive("stored again");
    ExtensionArchiveKey key = keyOf("@acme/tools", bytes);
    checkoutA().store(key, file("a.tar.gz", bytes));
    a().faults().beforeNext(DatastoreOperation.DELETE, k -> true, () -> plant(key, archive("written meanwhile")));

    ArchiveChange change = checkoutA().delete(key);

    assertThat(change).isEqualTo(new ArchiveChange(key, ArchiveChange.Outcome.KEPT, List.of()));
    assertThat(datastore().stat(objectKey(key))).isPresent();
    assertThat(cacheFiles("a")).hasSize(1);
  }

  @Test
  final void store_underANamespace_bindsItOnceInKeyAndCache() throws IOException {
    byte[] bytes = archive("namespaced");
    ExtensionArchiveKey key = keyOf("@acme/tools", bytes);
    Namespace team = Namespace.of("team");
    ArchiveStore store = store("a", a(), ArchiveLimits.DEFAULTS, team);

    store.store(key, new ByteArrayInputStream(bytes));

    assertThat(datastore().list("")).extracting(o -> o.key().value())
        .containsExactly("team/config/pulled-archives/@acme/tools/" + key.fileName());
    assertThat(cacheFiles("a")).containsExactly("team/config/pulled-archives/@acme/tools/" + key.fileName());
    assertThat(store("b", b(), ArchiveLimits.DEFAULTS, team).read(key)).isPresent();
    assertThat(checkoutB().read(key)).isEmpty();
  }

  @Override
  final Datastore datastore() {
    return Objects.requireNonNull(shared, "datastore open");
  }

  @Override
  final FaultyDatastore a() {
    return Objects.requireNonNull(remoteA, "datastore open");
  }

  @Override
  final FaultyDatastore b() {
    return Objects.requireNonNull(remoteB, "datastore open");
  }

  @Override
  final Path temp() {
    return temp;
  }
}
