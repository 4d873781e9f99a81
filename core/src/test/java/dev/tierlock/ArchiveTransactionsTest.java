package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.archive.ArchiveException;
import dev.tierlock.archive.ArchiveFile;
import dev.tierlock.archive.ArchiveLimits;
import dev.tierlock.archive.ArchiveTransactions;
import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.archive.VerifiedArchive;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ArchiveTransactions} with the transaction, over the in-memory datastores (here, in {@code
 * dev.tierlock}, because they are package-private): install, update and remove, the deletion guard,
 * and the bad inputs that must change nothing. The datastore contract runs the rest on every
 * backend ({@code ArchiveStoreContract} in the testkit).
 */
class ArchiveTransactionsTest {

  private static final ExtensionName NAME = ExtensionName.of("@s/x");
  private static final Namespace TEAM = Namespace.of("team");

  @TempDir Path dir;

  private final ManualClock clock = ManualClock.create();

  @Test
  void installUpdateAndRemove_writeTheSharedStore_andDeleteNoArchive() throws IOException {
    MemoryDatastore store = new MemoryDatastore();
    byte[] one = tarGz("pkg/a.txt", "one");
    byte[] two = tarGz("pkg/a.txt", "two");
    try (Tierlock tierlock = open(store, "a")) {
      ArchiveTransactions archives = archives(tierlock);

      install(tierlock, archives, archives.verify(key(one), file("one.tar.gz", one)), entry("1"));
      assertThat(store.keys()).contains(objectKey(key(one)));
      assertThat(tierlock.snapshot().entry(NAME).flatMap(LockfileEntry::checksum)).contains(key(one).sha256());

      install(tierlock, archives, archives.verify(key(two), file("two.tar.gz", two)), entry("2"));
      assertThat(store.keys()).contains(objectKey(key(two)), objectKey(key(one)));
      assertThat(tierlock.snapshot().entry(NAME).flatMap(LockfileEntry::checksum)).contains(key(two).sha256());
      assertThat(store.writes()).filteredOn(w -> w.contains("pulled-archives")).extracting(w -> w.split(" ")[0] + " "
          + w.split(" ")[1]).containsExactly("WRITE " + objectKey(key(one)), "WRITE " + objectKey(key(two)));

      TransactionResult removed = tierlock.transaction().run(tx -> assertThat(archives.remove(tx, NAME)).contains(key(two)));
      assertThat(removed.delta().removals()).containsExactly(NAME);
      assertThat(store.keys()).as("kept for a collection").contains(objectKey(key(one)), objectKey(key(two)));
      assertThat(store.writes()).noneMatch(w -> w.startsWith("DELETE ") && w.contains("pulled-archives"));
      assertThat(tierlock.snapshot().contains(NAME)).isFalse();
    }
  }

  @Test
  void aRemovalThenAReinstallInOneChange_keepsTheArchive() throws IOException {
    MemoryDatastore store = new MemoryDatastore();
    byte[] one = tarGz("pkg/a.txt", "one");
    try (Tierlock tierlock = open(store, "a")) {
      ArchiveTransactions archives = archives(tierlock);
      VerifiedArchive verified = archives.verify(key(one), file("one.tar.gz", one));
      install(tierlock, archives, verified, entry("1"));

      TransactionResult result = tierlock.transaction().run(tx -> {
        archives.remove(tx, NAME);
        archives.install(tx, verified, entry("1-again"));
      });

      assertThat(result.warnings()).isEmpty();
      assertThat(store.keys()).contains(objectKey(key(one)));
      assertThat(store.writes()).noneMatch(w -> w.startsWith("DELETE " + objectKey(key(one))));
    }
  }

  @Test
  void remoteMode_aRemovalThenAReinstallInOneChange_keepsTheArchive() throws IOException {
    MemoryDatastore memory = new MemoryDatastore();
    byte[] one = tarGz("pkg/a.txt", "one");
    try (Tierlock tierlock = open(memory, "a")) {
      ArchiveTransactions archives = archives(tierlock);
      VerifiedArchive verified = archives.verify(key(one), file("one.tar.gz", one));
      install(tierlock, archives, verified, entry("1"));

      TransactionResult result = tierlock.transaction().run(tx -> {
        archives.remove(tx, NAME);
        archives.install(tx, verified, entry("1-again"));
      });

      assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
      assertThat(result.warnings()).isEmpty();
      assertThat(memory.keys()).contains(objectKey(key(one)));
      assertThat(memory.writes()).noneMatch(w -> w.startsWith("DELETE " + objectKey(key(one))));
    }
  }

  @Test
  void install_overASameSizeObjectWithOtherBytes_replacesIt_neverPinsIt() throws IOException {
    MemoryDatastore memory = new MemoryDatastore();
    byte[] one = tarGz("pkg/a.txt", "one");
    byte[] impostor = one.clone();
    impostor[impostor.length - 1] ^= 0x5a;
    memory.write(objectKey(key(one)), dev.tierlock.spi.ObjectBody.of(impostor), dev.tierlock.spi.WriteCondition.none(),
        dev.tierlock.spi.ObjectMetadata.of("tierlock-sha256", key(one).sha256()));
    try (Tierlock tierlock = open(memory, "a")) {
      ArchiveTransactions archives = archives(tierlock);
      VerifiedArchive verified = archives.verify(key(one), file("one.tar.gz", one));

      TransactionResult result = tierlock.transaction().run(tx ->
          assertThat(archives.install(tx, verified, entry("1")).outcome()).isEqualTo(dev.tierlock.archive.ArchiveChange.Outcome.REPLACED));

      assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
      assertThat(((dev.tierlock.spi.ReadResult.Found) memory.read(objectKey(key(one)),
          dev.tierlock.spi.ReadCondition.always(), 1 << 20)).bytes()).as("the store holds the archive's own bytes")
          .isEqualTo(one);
    }
  }

  @Test
  void install_overTheSameArchive_isAlreadyPresent_afterHashingWhatIsStored() throws IOException {
    MemoryDatastore memory = new MemoryDatastore();
    byte[] one = tarGz("pkg/a.txt", "one");
    memory.write(objectKey(key(one)), dev.tierlock.spi.ObjectBody.of(one), dev.tierlock.spi.WriteCondition.none(),
        dev.tierlock.spi.ObjectMetadata.EMPTY);
    try (Tierlock tierlock = open(memory, "a")) {
      ArchiveTransactions archives = archives(tierlock);
      VerifiedArchive verified = archives.verify(key(one), file("one.tar.gz", one));

      tierlock.transaction().run(tx ->
          assertThat(archives.install(tx, verified, entry("1")).outcome()).isEqualTo(dev.tierlock.archive.ArchiveChange.Outcome.ALREADY_PRESENT));
    }
  }

  @Test
  void install_entryWithAnotherChecksum_isRejectedAndChangesNothing() throws IOException {
    MemoryDatastore memory = new MemoryDatastore();
    byte[] one = tarGz("pkg/a.txt", "one");
    try (Tierlock tierlock = open(memory, "a")) {
      ArchiveTransactions archives = archives(tierlock);
      VerifiedArchive verified = archives.verify(key(one), file("one.tar.gz", one));
      LockfileEntry wrong = LockfileEntry.builder("1", clock.instant()).checksum("0".repeat(64)).build();

      assertThatThrownBy(() -> tierlock.transaction().run(tx -> archives.install(tx, verified, wrong)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("Cannot install archive " + key(one) + ": the entry's checksum " + "0".repeat(64)
              + " is not the archive's SHA-256");

      assertThat(memory.keys()).noneMatch(k -> k.value().contains("config/"));
      assertThat(memory.writes()).noneMatch(w -> w.contains("config/"));
    }
  }

  @Test
  void install_archiveVerifiedByAnotherCheckout_isRejectedAndChangesNothing() throws IOException {
    MemoryDatastore memory = new MemoryDatastore();
    byte[] one = tarGz("pkg/a.txt", "one");
    try (Tierlock a = open(memory, "a"); Tierlock b = open(memory, "b")) {
      VerifiedArchive verifiedByA = archives(a).verify(key(one), file("one.tar.gz", one));
      ArchiveTransactions archivesOfB = archives(b);

      assertThatThrownBy(() -> b.transaction().run(tx -> archivesOfB.install(tx, verifiedByA, entry("1"))))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("Cannot install archive " + key(one) + ": it was verified at " + verifiedByA.path()
              + ", not by this archive store (" + b.cacheDirectory().resolve("team").resolve(key(one).tierPath().value())
              + ")");

      assertThat(memory.writes()).noneMatch(w -> w.contains("config/"));
    }
  }

  @Test
  void install_afterTheChangeReturned_isRejectedAndChangesNothing() throws IOException {
    MemoryDatastore memory = new MemoryDatastore();
    byte[] one = tarGz("pkg/a.txt", "one");
    try (Tierlock tierlock = open(memory, "a")) {
      ArchiveTransactions archives = archives(tierlock);
      VerifiedArchive verified = archives.verify(key(one), file("one.tar.gz", one));
      AtomicReference<TransactionContext> escaped = new AtomicReference<>();
      tierlock.transaction().run(escaped::set);

      assertThatThrownBy(() -> archives.install(escaped.get(), verified, entry("1")))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("Cannot run a nested change: the transaction's change has returned");
      assertThatThrownBy(() -> archives.remove(escaped.get(), NAME))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("Cannot run a nested change: the transaction's change has returned");

      assertThat(memory.writes()).noneMatch(w -> w.contains("config/"));
      assertThat(tierlock.snapshot().contains(NAME)).isFalse();
    }
  }

  @Test
  void install_stagedCopyChangedSinceVerify_isTamperedAndNothingTravels() throws IOException {
    MemoryDatastore memory = new MemoryDatastore();
    byte[] one = tarGz("pkg/a.txt", "one");
    byte[] other = tarGz("pkg/a.txt", "other");
    try (Tierlock tierlock = open(memory, "a")) {
      ArchiveTransactions archives = archives(tierlock);
      VerifiedArchive verified = archives.verify(key(one), file("one.tar.gz", one));
      Files.write(verified.path(), other);

      assertThatThrownBy(() -> install(tierlock, archives, verified, entry("1")))
          .isInstanceOfSatisfying(ArchiveException.class,
              e -> assertThat(e.code()).isEqualTo(ArchiveException.TAMPERED))
          .hasMessage("Cannot store archive " + key(one) + ": the bytes from " + verified.path() + " have SHA-256 "
              + sha256(other) + ", expected " + key(one).sha256() + "; they were discarded")
          .extracting(e -> ((ArchiveException) e).code()).isEqualTo("archive_tampered");

      assertThat(verified.path()).doesNotExist();
      assertThat(memory.writes()).noneMatch(w -> w.contains("config/"));
      assertThat(tierlock.snapshot().contains(NAME)).isFalse();
    }
  }

  @Test
  void verify_bytesNotMatchingTheKey_areRefusedWithNothingCachedOrWritten() throws IOException {
    MemoryDatastore memory = new MemoryDatastore();
    byte[] one = tarGz("pkg/a.txt", "one");
    byte[] other = tarGz("pkg/a.txt", "other");
    try (Tierlock tierlock = open(memory, "a")) {
      ArchiveTransactions archives = archives(tierlock);

      assertThatThrownBy(() -> archives.verify(key(one), file("other.tar.gz", other)))
          .isInstanceOfSatisfying(ArchiveException.class,
              e -> assertThat(e.code()).isEqualTo(ArchiveException.TAMPERED))
          .hasMessageStartingWith("Cannot store archive " + key(one) + ": the bytes from ")
          .extracting(e -> ((ArchiveException) e).actual().orElseThrow()).isEqualTo(sha256(other));

      assertThat(cachedArchives(tierlock)).isEmpty();
      assertThat(memory.writes()).isEmpty();
    }
  }

  @Test
  void verify_hostileOrOversizeArchive_isRejectedWithNothingCachedOrWritten() throws IOException {
    MemoryDatastore memory = new MemoryDatastore();
    byte[] traversal = tarGz("../evil.txt", "escape");
    byte[] large = tarGz("pkg/big.txt", "0".repeat(8192));
    try (Tierlock tierlock = open(memory, "a")) {
      ArchiveTransactions archives = ArchiveTransactions.of(tierlock,
          ArchiveLimits.DEFAULTS.withMaxDecompressedBytes(4096), clock);

      assertThatThrownBy(() -> archives.verify(key(traversal), file("evil.tar.gz", traversal)))
          .isInstanceOfSatisfying(ArchiveException.class,
              e -> assertThat(e.code()).isEqualTo(ArchiveException.REJECTED))
          .hasMessageStartingWith("Cannot accept archive " + key(traversal) + ": entry \"../evil.txt\" breaks the rule ")
          .satisfies(e -> assertThat(((ArchiveException) e).code()).isEqualTo("archive_rejected"))
          .extracting(e -> ((ArchiveException) e).rule().orElseThrow()).isEqualTo(ArchiveException.Rule.PARENT_REFERENCE);
      assertThatThrownBy(() -> archives.verify(key(large), file("large.tar.gz", large)))
          .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.LIMIT))
          .hasMessageStartingWith("Cannot accept archive " + key(large) + ": ")
          .satisfies(e -> assertThat(((ArchiveException) e).code()).isEqualTo("archive_limit"))
          .extracting(e -> ((ArchiveException) e).limit().orElseThrow()).isEqualTo(ArchiveException.Limit.DECOMPRESSED_BYTES);

      assertThat(cachedArchives(tierlock)).isEmpty();
      assertThat(memory.writes()).isEmpty();
    }
  }

  @Test
  void restore_whatTheLockfileDoesNotPinInTheTier_isEmptyOrMissing() throws IOException {
    MemoryDatastore memory = new MemoryDatastore();
    String digest = "ab".repeat(32);
    ExtensionName bare = ExtensionName.of("@s/bare");
    try (Tierlock tierlock = open(memory, "a")) {
      ArchiveTransactions archives = archives(tierlock);
      tierlock.transaction().run(tx -> {
        tx.put(NAME, LockfileEntry.builder("1", clock.instant()).checksum(digest).build());
        tx.put(bare, entry("1"));
      });
      Path staging = dir.resolve("staging");

      assertThat(archives.restore(ExtensionName.of("@s/absent"), staging)).isEmpty();
      assertThatThrownBy(() -> archives.restore(bare, staging))
          .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.MISSING))
          .hasMessage("Cannot restore archive @s/bare: its lockfile entry has no checksum, so it pins no archive")
          .extracting(e -> ((ArchiveException) e).code()).isEqualTo("archive_missing");
      assertThatThrownBy(() -> archives.restore(NAME, staging))
          .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.MISSING))
          .hasMessage("Cannot restore archive @s/x@" + digest + ": the lockfile pins it but the tier holds no object at "
              + "config/pulled-archives/@s/x/" + digest + ".tar.gz")
          .extracting(e -> ((ArchiveException) e).code()).isEqualTo("archive_missing");

      assertThat(staging).doesNotExist();
      assertThat(cachedArchives(tierlock)).isEmpty();
    }
  }

  @Test
  void restore_onTheInstallingCheckout_servesTheVerifiedCacheCopy() throws IOException {
    MemoryDatastore memory = new MemoryDatastore();
    byte[] one = tarGz("pkg/a.txt", "one");
    try (Tierlock tierlock = open(memory, "a")) {
      ArchiveTransactions archives = archives(tierlock);
      install(tierlock, archives, archives.verify(key(one), file("one.tar.gz", one)), entry("1"));
      Path staging = dir.resolve("staging");

      assertThat(archives.restore(NAME, staging).orElseThrow().origin()).isEqualTo(ArchiveFile.Origin.CACHE);
      assertThat(staging.resolve("pkg/a.txt")).hasContent("one");
      assertThat(memory.keys()).contains(objectKey(key(one)));
    }
  }

  @Test
  void restore_whenTheBackendFailsTheDownloadOfAnInterruptedThread_isCancelled() throws IOException {
    byte[] one = tarGz("pkg/a.txt", "one");
    MemoryDatastore interrupting = new MemoryDatastore() {
      @Override
      public synchronized Optional<ObjectStream> openStream(ObjectKey key) {
        if (key.value().contains("pulled-archives")) {
          Thread.currentThread().interrupt();
          throw new DatastoreUnavailableException("Cannot read object " + key + ": the thread was interrupted",
              new ClosedByInterruptException());
        }
        return super.openStream(key);
      }
    };
    try (Tierlock a = open(interrupting, "a"); Tierlock b = open(interrupting, "b")) {
      ArchiveTransactions archivesOfA = archives(a);
      install(a, archivesOfA, archivesOfA.verify(key(one), file("one.tar.gz", one)), entry("1"));
      Path staging = dir.resolve("staging");
      try {
        assertThatThrownBy(() -> archives(b).restore(NAME, staging))
            .isInstanceOfSatisfying(ArchiveException.class,
                e -> assertThat(e.code()).isEqualTo(ArchiveException.CANCELLED))
            .hasMessage("Cannot read archive " + key(one) + ": the thread was interrupted; nothing was cached")
            .hasCauseInstanceOf(DatastoreUnavailableException.class)
            .extracting(e -> ((ArchiveException) e).code()).isEqualTo("archive_cancelled");
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
      } finally {
        Thread.interrupted();
      }
      assertThat(staging).doesNotExist();
      assertThat(cachedArchives(b)).isEmpty();
    }
  }

  private Tierlock open(Datastore store, String checkout) {
    return Tierlock.builder().datastore(store).checkout(dir.resolve(checkout)).namespace(TEAM)
        .environment(Environment.system().withClock(clock).withSleeper(clock.sleeper()).withRandom(new SplittableRandom(1))
            .withHeartbeats((name, interval, beat) -> () -> { }))
        .build();
  }

  private ArchiveTransactions archives(Tierlock tierlock) {
    return ArchiveTransactions.of(tierlock, ArchiveLimits.DEFAULTS, clock);
  }

  private static TransactionResult install(Tierlock tierlock, ArchiveTransactions archives, VerifiedArchive archive,
      LockfileEntry entry) {
    return tierlock.transaction().run(tx -> archives.install(tx, archive, entry));
  }

  private LockfileEntry entry(String version) {
    return LockfileEntry.builder(version, clock.instant()).build();
  }

  private Path file(String name, byte[] bytes) throws IOException {
    return Files.write(dir.resolve(name), bytes);
  }

  private static List<String> cachedArchives(Tierlock tierlock) throws IOException {
    if (!Files.exists(tierlock.cacheDirectory())) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(tierlock.cacheDirectory())) {
      return files.filter(Files::isRegularFile).map(Path::toString).filter(p -> p.contains("pulled-archives")).toList();
    }
  }

  private static ObjectKey objectKey(ExtensionArchiveKey key) {
    return TEAM.key(key.tierPath());
  }

  private static ExtensionArchiveKey key(byte[] bytes) {
    return ExtensionArchiveKey.of(NAME, sha256(bytes));
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Returns a {@code .tar.gz} holding one regular file, its name kept exactly as given. */
  private static byte[] tarGz(String name, String text) {
    byte[] data = text.getBytes(StandardCharsets.UTF_8);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (TarArchiveOutputStream tar = new TarArchiveOutputStream(new GZIPOutputStream(out))) {
      TarArchiveEntry entry = new TarArchiveEntry(name, true);
      entry.setSize(data.length);
      tar.putArchiveEntry(entry);
      tar.write(data);
      tar.closeArchiveEntry();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}
