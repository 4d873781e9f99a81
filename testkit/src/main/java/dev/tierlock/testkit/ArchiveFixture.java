package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.DistributedLock;
import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Namespace;
import dev.tierlock.PublishFailurePolicy;
import dev.tierlock.Sleeper;
import dev.tierlock.TierPath;
import dev.tierlock.archive.ArchiveChange;
import dev.tierlock.archive.ArchiveLimits;
import dev.tierlock.archive.ArchiveStore;
import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.WriteCondition;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * The fixture of one {@link ArchiveStoreContract} test: a shared datastore and two checkouts ("a"
 * and "b"), each with its own cache and its own logged, fault-injecting wrapper over it; whole
 * {@link ArchiveCheckout}s on those wrappers for the transaction cases; archives, digests and
 * lookups in the logs. The scenario classes ({@code Archive*Scenarios}) share it. Not thread-safe.
 */
final class ArchiveFixture {

  static final Duration TIMEOUT = Duration.ofSeconds(30);

  /** The shared lockfile's key (the contract runs without a namespace unless a test says so). */
  static final ObjectKey LOCKFILE_KEY = Namespace.NONE.key(TierPath.LOCKFILE);

  /** The global lock's key. */
  static final ObjectKey GLOBAL_LOCK_KEY = DistributedLock.globalKey(Namespace.NONE);

  private final TestClock clock = TestClock.create();
  private final Datastore shared;
  private final FaultyDatastore a;
  private final FaultyDatastore b;
  private final Path temp;
  private final List<ArchiveCheckout> checkouts = new ArrayList<>();

  /** Shares {@code shared} between two checkouts whose caches and checkouts live in {@code temp}. */
  ArchiveFixture(Datastore shared, Path temp) {
    this.shared = shared;
    this.a = FaultyDatastore.wrap(shared);
    this.b = FaultyDatastore.wrap(shared);
    this.temp = temp;
  }

  /** Returns the shared datastore, unwrapped (calls on it are neither logged nor faulted). */
  Datastore datastore() {
    return shared;
  }

  /** Returns checkout A's wrapper of the shared datastore. */
  FaultyDatastore a() {
    return a;
  }

  /** Returns checkout B's wrapper of the shared datastore. */
  FaultyDatastore b() {
    return b;
  }

  /** Returns this test's temp directory. */
  Path temp() {
    return temp;
  }

  /** Returns the clock of both checkouts and their archive stores. */
  TestClock clock() {
    return clock;
  }

  /**
   * Opens a Tierlock checkout named {@code name} on {@code store} (checkout A's or B's wrapper, or
   * the unwrapped datastore), closed after the test; clears both operation logs.
   */
  ArchiveCheckout checkout(String name, Datastore store, Sleeper sleeper, PublishFailurePolicy policy) {
    ArchiveCheckout checkout = ArchiveCheckout.open(store, temp().resolve("checkout-" + name), clock, sleeper, policy);
    checkouts.add(checkout);
    a().log().clear();
    b().log().clear();
    return checkout;
  }

  /** Opens a checkout that sleeps on the test clock and throws on a failed publish. */
  ArchiveCheckout checkout(String name, Datastore store) {
    return checkout(name, store, clock.sleeper(), PublishFailurePolicy.THROW);
  }

  /** Closes every checkout opened by {@link #checkout}. */
  void closeCheckouts() {
    checkouts.forEach(ArchiveCheckout::close);
    checkouts.clear();
  }

  /** Returns the shared lockfile as the datastore holds it now (empty when absent). */
  Lockfile sharedLockfile() {
    return TestCheckout.sharedLockfile(datastore(), Namespace.NONE);
  }

  /** Returns the checksum the shared lockfile pins for {@code name}, if any. */
  Optional<String> sharedChecksum(ExtensionName name) {
    return sharedLockfile().entry(name).flatMap(LockfileEntry::checksum);
  }

  /** Returns the keys of the archive objects the datastore holds, sorted. */
  List<String> storedArchives() {
    return datastore().list(ExtensionArchiveKey.DIRECTORY + "/").stream().map(o -> o.key().value()).sorted().toList();
  }

  /** Returns a plain entry of {@code version}, pulled at the clock's instant. */
  LockfileEntry entry(String version) {
    return LockfileEntry.builder(version, clock.instant()).build();
  }

  /** Matches the object key of {@code key}'s archive. */
  static Predicate<ObjectKey> isArchive(ExtensionArchiveKey key) {
    return objectKey(key)::equals;
  }

  /** Matches the shared lockfile's key. */
  static Predicate<ObjectKey> isLockfile() {
    return LOCKFILE_KEY::equals;
  }

  /** Returns the index of the first logged call matching {@code operation}, {@code key} and {@code outcome}. */
  static int indexOf(OperationLog log, DatastoreOperation operation, ObjectKey key, String outcome) {
    List<LoggedOperation> entries = log.entries();
    for (int i = 0; i < entries.size(); i++) {
      LoggedOperation e = entries.get(i);
      if (e.operation() == operation && e.target().equals(key.value()) && e.outcome().equals(outcome)) {
        return i;
      }
    }
    throw new AssertionError("Cannot find " + operation + " " + key + " -> " + outcome + " in " + log);
  }

  ArchiveStore checkoutA() {
    return store("a", a(), ArchiveLimits.DEFAULTS, Namespace.NONE);
  }

  ArchiveStore checkoutB() {
    return store("b", b(), ArchiveLimits.DEFAULTS, Namespace.NONE);
  }

  ArchiveStore store(String checkout, Datastore datastore, ArchiveLimits limits, Namespace namespace) {
    return ArchiveStore.over(datastore, namespace, cache(checkout), limits, clock);
  }

  Path cache(String checkout) {
    return temp().resolve("cache-" + checkout);
  }

  List<String> cacheFiles(String checkout) {
    Path root = cache(checkout);
    if (!Files.exists(root)) {
      return List.of();
    }
    try (Stream<Path> paths = Files.walk(root)) {
      return paths.filter(p -> !Files.isDirectory(p)).map(p -> root.relativize(p).toString().replace('\\', '/'))
          .sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  Path file(String name, byte[] bytes) throws IOException {
    return Files.write(temp().resolve(name), bytes);
  }

  void plant(ExtensionArchiveKey key, byte[] bytes) {
    datastore().write(objectKey(key), ObjectBody.of(bytes), WriteCondition.none(), ObjectMetadata.EMPTY);
  }

  static ObjectKey objectKey(ExtensionArchiveKey key) {
    return Namespace.NONE.key(key.tierPath());
  }

  static ExtensionArchiveKey keyOf(String name, byte[] bytes) {
    return ExtensionArchiveKey.of(name, sha256(bytes));
  }

  static List<ArchiveChange> inParallel(Callable<ArchiveChange> first, Callable<ArchiveChange> second)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<ArchiveChange> one = pool.submit(first);
      Future<ArchiveChange> two = pool.submit(second);
      return List.of(one.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS), two.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    }
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Returns {@code size} incompressible bytes, the same on every run (the store never parses them). */
  static byte[] noise(int size) {
    byte[] bytes = new byte[size];
    new Random(size).nextBytes(bytes);
    return bytes;
  }

  /** Returns a {@code .tar.gz} holding one file, {@code pkg/readme.txt}, with {@code text}. */
  static byte[] archive(String text) {
    return archive("pkg/readme.txt", text);
  }

  /** Returns a {@code .tar.gz} holding one regular file named {@code entry} (ASCII, as given), with {@code text}. */
  static byte[] archive(String entry, String text) {
    byte[] data = text.getBytes(StandardCharsets.UTF_8);
    byte[] header = new byte[512];
    byte[] name = entry.getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(name, 0, header, 0, name.length);
    octal(header, 100, 8, 0644);
    octal(header, 108, 8, 0);
    octal(header, 116, 8, 0);
    octal(header, 124, 12, data.length);
    octal(header, 136, 12, 0);
    header[156] = '0';
    System.arraycopy("ustar\00000".getBytes(StandardCharsets.US_ASCII), 0, header, 257, 8);
    Arrays.fill(header, 148, 156, (byte) ' ');
    int sum = 0;
    for (byte b : header) {
      sum += b & 0xff;
    }
    octal(header, 148, 7, sum);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
      gzip.write(header);
      gzip.write(data);
      gzip.write(new byte[(512 - data.length % 512) % 512 + 1024]);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /**
   * Returns the names of the entries of a {@code .tar.gz} that {@link #archive} built (plain ustar
   * headers, no extension), in order: what a restored copy holds, read without the engine.
   */
  static List<String> entryNames(Path archive) throws IOException {
    List<String> names = new ArrayList<>();
    try (InputStream in = new GZIPInputStream(Files.newInputStream(archive))) {
      byte[] header = new byte[512];
      while (in.readNBytes(header, 0, 512) == 512 && header[0] != 0) {
        int end = 0;
        while (end < 100 && header[end] != 0) {
          end++;
        }
        names.add(new String(header, 0, end, StandardCharsets.US_ASCII));
        long size = Long.parseLong(new String(header, 124, 11, StandardCharsets.US_ASCII).trim(), 8);
        in.skipNBytes((size + 511) / 512 * 512);
      }
    }
    return names;
  }

  private static void octal(byte[] header, int offset, int length, long value) {
    byte[] digits = String.format("%0" + (length - 1) + "o", value).getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(digits, 0, header, offset, length - 1);
    header[offset + length - 1] = 0;
  }
}
