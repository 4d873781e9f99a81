package dev.tierlock.testkit;

import static dev.tierlock.testkit.ArchiveFixture.TIMEOUT;
import static dev.tierlock.testkit.ArchiveFixture.archive;
import static dev.tierlock.testkit.ArchiveFixture.inParallel;
import static dev.tierlock.testkit.ArchiveFixture.keyOf;
import static dev.tierlock.testkit.ArchiveFixture.noise;
import static dev.tierlock.testkit.ArchiveFixture.objectKey;
import static dev.tierlock.testkit.ArchiveFixture.sha256;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

import dev.tierlock.Namespace;
import dev.tierlock.archive.ArchiveChange;
import dev.tierlock.archive.ArchiveException;
import dev.tierlock.archive.ArchiveFile;
import dev.tierlock.archive.ArchiveLimits;
import dev.tierlock.archive.ArchiveStore;
import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.StoredObject;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

/**
 * The {@link ArchiveStoreContract} cases about storing an archive: a create-only write with the
 * verified bytes cached, an idempotent second store, bytes that do not match the key and archives
 * over the cap refused with nothing written, two checkouts storing at once (one object), a lost
 * write answer, a wrong-sized object replaced conditionally, and the namespace bound once.
 */
final class ArchiveStoreScenarios {

  private final ArchiveFixture fixture;
  private final Datastore datastore;
  private final FaultyDatastore a;
  private final FaultyDatastore b;

  ArchiveStoreScenarios(ArchiveFixture fixture) {
    this.fixture = fixture;
    this.datastore = fixture.datastore();
    this.a = fixture.a();
    this.b = fixture.b();
  }

  void store_newArchive_writesCreateOnlyAndCachesVerifiedBytes() throws IOException {
    byte[] bytes = archive("hello");
    ExtensionArchiveKey key = keyOf("@acme/tools", bytes);

    ArchiveChange change = fixture.checkoutA().store(key, fixture.file("a.tar.gz", bytes));

    assertThat(change).isEqualTo(new ArchiveChange(key, ArchiveChange.Outcome.CREATED, List.of(key.tierPath())));
    assertThat(a.log().entries()).containsExactly(
        new LoggedOperation(DatastoreOperation.WRITE, objectKey(key).value(), "mustNotExist", "WRITTEN"));
    StoredObject object = datastore.stat(objectKey(key)).orElseThrow();
    assertThat(object.size()).isEqualTo(bytes.length);
    assertThat(object.metadata().get("tierlock-sha256")).contains(key.sha256());
    assertThat(fixture.cacheFiles("a")).containsExactly("config/pulled-archives/@acme/tools/" + key.fileName());
    assertThat(Files.readAllBytes(fixture.cache("a").resolve(key.tierPath().value()))).isEqualTo(bytes);
  }

  void contains_isOneStatOfTheDatastore_neverTheCache() throws IOException {
    byte[] bytes = archive("contains");
    ExtensionArchiveKey key = keyOf("@acme/tools", bytes);
    ArchiveStore store = fixture.checkoutA();
    assertThat(store.contains(key)).isFalse();
    store.store(key, fixture.file("a.tar.gz", bytes));
    assertThat(store.contains(key)).isTrue();
    assertThat(fixture.checkoutB().contains(key)).as("a peer's store sees it too").isTrue();
    datastore.delete(objectKey(key), dev.tierlock.spi.WriteCondition.none());
    a.log().clear();

    boolean contained = store.contains(key);

    assertThat(contained).as("the cache still holds the bytes, the tier does not").isFalse();
    assertThat(a.log().entries()).extracting(LoggedOperation::operation).containsExactly(DatastoreOperation.STAT);
    assertThat(fixture.cacheFiles("a")).containsExactly("config/pulled-archives/@acme/tools/" + key.fileName());
  }

  void store_twice_secondChangesNothing() throws IOException {
    byte[] bytes = archive("twice");
    ExtensionArchiveKey key = keyOf("@acme/tools", bytes);
    ArchiveStore store = fixture.checkoutA();
    store.store(key, fixture.file("a.tar.gz", bytes));
    StoredObject first = datastore.stat(objectKey(key)).orElseThrow();

    ArchiveChange second = store.store(key, new ByteArrayInputStream(bytes));

    assertThat(second.outcome()).isEqualTo(ArchiveChange.Outcome.ALREADY_PRESENT);
    assertThat(second.paths()).containsExactly(key.tierPath());
    assertThat(a.log().writtenKeys()).containsExactly(objectKey(key));
    assertThat(a.log().entries()).as("the stored object is hashed before it counts as the archive").last()
        .extracting(LoggedOperation::operation).isEqualTo(DatastoreOperation.OPEN_STREAM);
    assertThat(datastore.stat(objectKey(key)).orElseThrow().version()).isEqualTo(first.version());
  }

  void store_bytesNotMatchingTheKey_refusedWithNothingCachedOrWritten() throws IOException {
    byte[] bytes = archive("real");
    ExtensionArchiveKey key = keyOf("@acme/tools", archive("other"));
    String actual = sha256(bytes);

    assertThatThrownBy(() -> fixture.checkoutA().store(key, fixture.file("a.tar.gz", bytes)))
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.TAMPERED))
        .hasMessageStartingWith("Cannot store archive " + key + ": the bytes from ")
        .hasMessageContaining("have SHA-256 " + actual + ", expected " + key.sha256())
        .satisfies(e -> {
          ArchiveException t = (ArchiveException) e;
          assertThat(t.code()).isEqualTo("archive_tampered");
          assertThat(t.key().orElseThrow()).isEqualTo(key);
          assertThat(t.expected().orElseThrow()).isEqualTo(key.sha256());
          assertThat(t.actual().orElseThrow()).isEqualTo(actual);
        });
    assertThat(a.log().entries()).isEmpty();
    assertThat(fixture.cacheFiles("a")).isEmpty();
    assertThat(datastore.list("")).isEmpty();
  }

  void store_overTheCompressedCap_refusedWithNothingCachedOrWritten() throws IOException {
    byte[] bytes = noise(4000);
    ExtensionArchiveKey key = keyOf("@acme/tools", bytes);
    ArchiveStore small = fixture.store("a", a, ArchiveLimits.DEFAULTS.withMaxCompressedBytes(100), Namespace.NONE);

    assertThatThrownBy(() -> small.store(key, new ByteArrayInputStream(bytes)))
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.LIMIT))
        .hasMessageStartingWith("Cannot accept archive " + key + ": its compressed size exceeds the cap")
        .satisfies(e -> assertThat(((ArchiveException) e).code()).isEqualTo("archive_limit"));
    assertThat(a.log().entries()).isEmpty();
    assertThat(fixture.cacheFiles("a")).isEmpty();
  }

  void store_concurrentlyFromTwoCheckouts_bothSucceedWithOneObject() throws Exception {
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
    a.faults().beforeNext(DatastoreOperation.WRITE, k -> true, meet);
    b.faults().beforeNext(DatastoreOperation.WRITE, k -> true, meet);
    ArchiveStore storeA = fixture.checkoutA();
    ArchiveStore storeB = fixture.checkoutB();

    List<ArchiveChange> changes = inParallel(
        () -> storeA.store(key, new ByteArrayInputStream(bytes)),
        () -> storeB.store(key, new ByteArrayInputStream(bytes)));

    assertThat(changes).extracting(ArchiveChange::outcome)
        .containsExactlyInAnyOrder(ArchiveChange.Outcome.CREATED, ArchiveChange.Outcome.ALREADY_PRESENT);
    assertThat(datastore.list("")).extracting(StoredObject::key).containsExactly(objectKey(key));
    assertThat(a.log().writtenKeys().size() + b.log().writtenKeys().size()).isEqualTo(1);
    assertThat(fixture.checkoutB().read(key).orElseThrow().origin()).isEqualTo(ArchiveFile.Origin.CACHE);
  }

  void store_whenTheWriteAnswerIsLost_resolvesByStat() throws IOException {
    byte[] bytes = archive("lost answer");
    ExtensionArchiveKey key = keyOf("@acme/tools", bytes);
    a.faults().failNext(DatastoreOperation.WRITE, 1, Fault.LOSE_RESPONSE);

    ArchiveChange change = fixture.checkoutA().store(key, new ByteArrayInputStream(bytes));

    assertThat(change.outcome()).isEqualTo(ArchiveChange.Outcome.ALREADY_PRESENT);
    assertThat(a.log().writtenKeys()).containsExactly(objectKey(key));
    assertThat(a.log().count(DatastoreOperation.WRITE)).isEqualTo(1);
    assertThat(datastore.stat(objectKey(key)).orElseThrow().size()).isEqualTo(bytes.length);
  }

  void store_overAnObjectOfAnotherSize_replacesItConditionally() throws IOException {
    byte[] bytes = archive("right bytes");
    ExtensionArchiveKey key = keyOf("@acme/tools", bytes);
    fixture.plant(key, "wrong bytes of another size".getBytes(StandardCharsets.UTF_8));

    ArchiveChange change = fixture.checkoutA().store(key, new ByteArrayInputStream(bytes));

    assertThat(change.outcome()).isEqualTo(ArchiveChange.Outcome.REPLACED);
    assertThat(a.log().entries()).extracting(LoggedOperation::operation, LoggedOperation::outcome).containsExactly(
        tuple(DatastoreOperation.WRITE, "PRECONDITION_FAILED"),
        tuple(DatastoreOperation.STAT, "FOUND"),
        tuple(DatastoreOperation.WRITE, "WRITTEN"));
    assertThat(a.log().entries().get(2).condition()).startsWith("mustMatch(");
    assertThat(fixture.checkoutB().read(key).orElseThrow().origin()).isEqualTo(ArchiveFile.Origin.DATASTORE);
  }

  void store_underANamespace_bindsItOnceInKeyAndCache() throws IOException {
    byte[] bytes = archive("namespaced");
    ExtensionArchiveKey key = keyOf("@acme/tools", bytes);
    Namespace team = Namespace.of("team");
    ArchiveStore store = fixture.store("a", a, ArchiveLimits.DEFAULTS, team);

    store.store(key, new ByteArrayInputStream(bytes));

    assertThat(datastore.list("")).extracting(o -> o.key().value())
        .containsExactly("team/config/pulled-archives/@acme/tools/" + key.fileName());
    assertThat(fixture.cacheFiles("a")).containsExactly("team/config/pulled-archives/@acme/tools/" + key.fileName());
    assertThat(fixture.store("b", b, ArchiveLimits.DEFAULTS, team).read(key)).isPresent();
    assertThat(fixture.checkoutB().read(key)).isEmpty();
  }
}
