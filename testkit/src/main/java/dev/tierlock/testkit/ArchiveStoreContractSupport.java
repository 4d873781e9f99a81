package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.ExtensionName;
import dev.tierlock.LeaseLocks;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Namespace;
import dev.tierlock.PublishFailurePolicy;
import dev.tierlock.Sleeper;
import dev.tierlock.TierPath;
import dev.tierlock.archive.ArchiveChange;
import dev.tierlock.archive.ArchiveLimits;
import dev.tierlock.archive.ArchiveStore;
import dev.tierlock.archive.ArchiveStores;
import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.WriteCondition;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
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
import java.util.zip.GZIPOutputStream;

/**
 * The fixtures of {@link ArchiveStoreContract}: two checkouts ("a" and "b"), each with its own
 * cache and its own logged, fault-injecting wrapper over one shared datastore; whole {@link
 * ArchiveCheckout}s on those wrappers for the transaction tests; archives, digests and a download
 * byte counter. Not thread-safe.
 */
abstract class ArchiveStoreContractSupport {

  static final Duration TIMEOUT = Duration.ofSeconds(30);

  /** The shared lockfile's key (the contract runs without a namespace unless a test says so). */
  static final ObjectKey LOCKFILE_KEY = Namespace.NONE.key(TierPath.LOCKFILE);

  /** The global lock's key. */
  static final ObjectKey GLOBAL_LOCK_KEY = LeaseLocks.globalKey(Namespace.NONE);

  final TestClock clock = TestClock.create();

  private final List<ArchiveCheckout> checkouts = new ArrayList<>();

  /** Returns the shared datastore, unwrapped (calls on it are neither logged nor faulted). */
  abstract Datastore datastore();

  /** Returns checkout A's wrapper of the shared datastore. */
  abstract FaultyDatastore a();

  /** Returns checkout B's wrapper of the shared datastore. */
  abstract FaultyDatastore b();

  /** Returns this test's temp directory. */
  abstract Path temp();

  /**
   * Opens a Tierlock checkout named {@code name} on {@code store} (checkout A's or B's wrapper, or
   * the unwrapped datastore for its own mode), closed after the test; clears both operation logs.
   */
  final ArchiveCheckout checkout(String name, Datastore store, Sleeper sleeper, PublishFailurePolicy policy) {
    ArchiveCheckout checkout = ArchiveCheckout.open(store, temp().resolve("checkout-" + name), clock, sleeper, policy);
    checkouts.add(checkout);
    a().log().clear();
    b().log().clear();
    return checkout;
  }

  /** Opens a checkout that sleeps on the test clock and throws on a failed publish. */
  final ArchiveCheckout checkout(String name, Datastore store) {
    return checkout(name, store, clock.sleeper(), PublishFailurePolicy.THROW);
  }

  /** Closes every checkout opened by {@link #checkout}. */
  final void closeCheckouts() {
    checkouts.forEach(ArchiveCheckout::close);
    checkouts.clear();
  }

  /** Returns the shared lockfile as the datastore holds it now (empty when absent). */
  final Lockfile sharedLockfile() {
    return TestCheckout.sharedLockfile(datastore(), Namespace.NONE);
  }

  /** Returns the checksum the shared lockfile pins for {@code name}, if any. */
  final Optional<String> sharedChecksum(ExtensionName name) {
    return sharedLockfile().entry(name).flatMap(LockfileEntry::checksum);
  }

  /** Returns the keys of the archive objects the datastore holds, sorted. */
  final List<String> storedArchives() {
    return datastore().list(ExtensionArchiveKey.DIRECTORY + "/").stream().map(o -> o.key().value()).sorted().toList();
  }

  /** Returns a plain entry of {@code version}, pulled at the clock's instant. */
  final LockfileEntry entry(String version) {
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

  final ArchiveStore checkoutA() {
    return store("a", a(), ArchiveLimits.DEFAULTS, Namespace.NONE);
  }

  final ArchiveStore checkoutB() {
    return store("b", b(), ArchiveLimits.DEFAULTS, Namespace.NONE);
  }

  final ArchiveStore store(String checkout, Datastore datastore, ArchiveLimits limits, Namespace namespace) {
    return ArchiveStores.over(datastore, namespace, cache(checkout), limits, clock);
  }

  final Path cache(String checkout) {
    return temp().resolve("cache-" + checkout);
  }

  final List<String> cacheFiles(String checkout) {
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

  final Path file(String name, byte[] bytes) throws IOException {
    return Files.write(temp().resolve(name), bytes);
  }

  final void plant(ExtensionArchiveKey key, byte[] bytes) {
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

  private static void octal(byte[] header, int offset, int length, long value) {
    byte[] digits = String.format("%0" + (length - 1) + "o", value).getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(digits, 0, header, offset, length - 1);
    header[offset + length - 1] = 0;
  }

  /** Counts the body bytes read from downloads and the downloads left open. */
  static final class BodyCountingDatastore extends ForwardingDatastore {
    private final Datastore delegate;
    long bodyBytesRead;
    int openStreams;

    BodyCountingDatastore(Datastore delegate) {
      this.delegate = delegate;
    }

    @Override
    protected Datastore delegate() {
      return delegate;
    }

    @Override
    public Optional<ObjectStream> openStream(ObjectKey key) {
      return delegate.openStream(key).map(stream -> {
        openStreams++;
        InputStream counted = new FilterInputStream(stream.stream()) {
          @Override
          public int read() throws IOException {
            int b = super.read();
            bodyBytesRead += b < 0 ? 0 : 1;
            return b;
          }

          @Override
          public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            bodyBytesRead += Math.max(0, n);
            return n;
          }
        };
        return ObjectStream.of(stream.object(), counted, () -> {
          openStreams--;
          stream.close();
        });
      });
    }







    @Override
    public void close() {
      // the test closes the shared datastore
    }
  }
}
