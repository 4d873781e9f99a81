package dev.tierlock.testkit;

import static dev.tierlock.testkit.ArchiveFixture.archive;
import static dev.tierlock.testkit.ArchiveFixture.entryNames;
import static dev.tierlock.testkit.ArchiveFixture.keyOf;
import static dev.tierlock.testkit.ArchiveFixture.noise;
import static dev.tierlock.testkit.ArchiveFixture.objectKey;
import static dev.tierlock.testkit.ArchiveFixture.sha256;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.Namespace;
import dev.tierlock.archive.ArchiveChange;
import dev.tierlock.archive.ArchiveException;
import dev.tierlock.archive.ArchiveFile;
import dev.tierlock.archive.ArchiveLimits;
import dev.tierlock.archive.ArchiveStore;
import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectStream;
import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Optional;

/**
 * The {@link ArchiveStoreContract} cases about reading an archive and verifying it: a peer
 * restores the bytes from the datastore alone and the cache serves later reads; a bad cache file
 * is fetched again; tampered bytes (planted, or corrupted in flight), an oversize object, a broken
 * download, a deadline and an interrupt each fail with nothing cached.
 */
final class ArchiveReadScenarios {

  private final ArchiveFixture fixture;
  private final Datastore datastore;
  private final FaultyDatastore a;
  private final FaultyDatastore b;
  private final TestClock clock;

  ArchiveReadScenarios(ArchiveFixture fixture) {
    this.fixture = fixture;
    this.datastore = fixture.datastore();
    this.a = fixture.a();
    this.b = fixture.b();
    this.clock = fixture.clock();
  }

  void read_archiveAPeerStored_restoresTheSameBytesFromTheDatastoreAlone() throws IOException {
    byte[] bytes = archive("peer restore");
    ExtensionArchiveKey key = keyOf("@acme/tools/sub", bytes);
    fixture.checkoutA().store(key, fixture.file("a.tar.gz", bytes));

    ArchiveFile restored = fixture.checkoutB().read(key).orElseThrow();

    assertThat(restored.origin()).isEqualTo(ArchiveFile.Origin.DATASTORE);
    assertThat(restored.size()).isEqualTo(bytes.length);
    assertThat(restored.path()).isEqualTo(fixture.cache("b").resolve(key.tierPath().value()));
    assertThat(Files.readAllBytes(restored.path())).isEqualTo(bytes);
    assertThat(entryNames(restored.path())).containsExactly("pkg/readme.txt");
    // B talks to nothing but the datastore, once, for the one archive: there is no registry in the store
    assertThat(b.log().entries()).containsExactly(
        new LoggedOperation(DatastoreOperation.OPEN_STREAM, objectKey(key).value(), "always", "FOUND"));
    b.log().clear();
    assertThat(fixture.checkoutB().read(key).orElseThrow().origin()).isEqualTo(ArchiveFile.Origin.CACHE);
    assertThat(b.log().entries()).isEmpty();
  }

  void read_absentArchive_returnsEmptyAndCachesNothing() {
    ExtensionArchiveKey key = keyOf("@acme/none", archive("none"));

    assertThat(fixture.checkoutB().read(key)).isEmpty();
    assertThat(fixture.cacheFiles("b")).isEmpty();
  }

  void read_tamperedObjectInTheDatastore_failsAndCachesNothing() throws IOException {
    byte[] bytes = archive("genuine");
    ExtensionArchiveKey key = keyOf("@acme/tools", bytes);
    fixture.checkoutA().store(key, fixture.file("a.tar.gz", bytes));
    byte[] planted = archive("malicious replacement");
    fixture.plant(key, planted);

    assertThatThrownBy(() -> fixture.checkoutB().read(key))
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.TAMPERED))
        .hasMessage("Cannot read archive " + key + ": the bytes from " + datastore.describe() + " have SHA-256 "
            + sha256(planted) + ", expected " + key.sha256() + "; they were discarded")
        .satisfies(e -> {
          ArchiveException t = (ArchiveException) e;
          assertThat(t.code()).isEqualTo("archive_tampered");
          assertThat(t.actual().orElseThrow()).isEqualTo(sha256(planted));
        });
    assertThat(fixture.cacheFiles("b")).isEmpty();

    // storing the genuine bytes again repairs the tier: the planted object has another size
    assertThat(fixture.checkoutA().store(key, new ByteArrayInputStream(bytes)).outcome())
        .isEqualTo(ArchiveChange.Outcome.REPLACED);
    assertThat(Files.readAllBytes(fixture.checkoutB().read(key).orElseThrow().path())).isEqualTo(bytes);
  }

  void read_bytesCorruptedInFlight_failsAndCachesNothing() throws IOException {
    byte[] bytes = archive("flipped");
    ExtensionArchiveKey key = keyOf("@acme/tools", bytes);
    fixture.checkoutA().store(key, fixture.file("a.tar.gz", bytes));
    b.faults().corruptNextRead(k -> true);

    assertThatThrownBy(() -> fixture.checkoutB().read(key))
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.TAMPERED))
        .hasMessageContaining("expected " + key.sha256())
        .satisfies(e -> assertThat(((ArchiveException) e).code()).isEqualTo("archive_tampered"));
    assertThat(fixture.cacheFiles("b")).isEmpty();
    assertThat(fixture.checkoutB().read(key).orElseThrow().origin()).isEqualTo(ArchiveFile.Origin.DATASTORE);
  }

  void read_badCachedFile_isRemovedAndFetchedAgain() throws IOException {
    byte[] bytes = archive("cached");
    ExtensionArchiveKey key = keyOf("@acme/tools", bytes);
    fixture.checkoutA().store(key, fixture.file("a.tar.gz", bytes));
    Path cached = fixture.cache("a").resolve(key.tierPath().value());
    Files.write(cached, "bit rot".getBytes(StandardCharsets.UTF_8));
    a.log().clear();

    ArchiveFile read = fixture.checkoutA().read(key).orElseThrow();

    assertThat(read.origin()).isEqualTo(ArchiveFile.Origin.DATASTORE);
    assertThat(Files.readAllBytes(cached)).isEqualTo(bytes);
    assertThat(a.log().count(DatastoreOperation.OPEN_STREAM)).isEqualTo(1);
  }

  void read_downloadedCopyACrashCutShort_isFetchedAgain() throws IOException {
    byte[] bytes = archive("downloaded");
    ExtensionArchiveKey key = keyOf("@acme/tools", bytes);
    fixture.checkoutA().store(key, fixture.file("a.tar.gz", bytes));
    Path cached = fixture.checkoutB().read(key).orElseThrow().path();
    for (int length : new int[] {0, bytes.length / 2}) {
      // a download is moved into the cache unforced: after a crash its name may hold fewer bytes
      try (FileChannel channel = FileChannel.open(cached, StandardOpenOption.WRITE)) {
        channel.truncate(length);
      }
      b.log().clear();

      ArchiveFile read = fixture.checkoutB().read(key).orElseThrow();

      assertThat(read.origin()).as("read after the copy was cut to %d bytes", length)
          .isEqualTo(ArchiveFile.Origin.DATASTORE);
      assertThat(Files.readAllBytes(read.path())).isEqualTo(bytes);
      assertThat(b.log().count(DatastoreOperation.OPEN_STREAM)).isEqualTo(1);
    }
  }

  void read_oversizeObject_refusedBeforeAnyBodyByteIsRead() {
    byte[] bytes = noise(20_000);
    ExtensionArchiveKey key = keyOf("@acme/big", bytes);
    fixture.plant(key, bytes);
    BodyCountingDatastore counting = new BodyCountingDatastore(b);
    ArchiveStore small = fixture.store("b", counting, ArchiveLimits.DEFAULTS.withMaxCompressedBytes(1024), Namespace.NONE);

    assertThatThrownBy(() -> small.read(key))
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.LIMIT))
        .hasMessage("Cannot accept archive " + key + ": its compressed size exceeds the cap COMPRESSED_BYTES of 1024"
            + " bytes (" + bytes.length + " bytes seen)")
        .satisfies(e -> assertThat(((ArchiveException) e).code()).isEqualTo("archive_limit"));
    assertThat(b.log().entries()).extracting(LoggedOperation::operation)
        .containsExactly(DatastoreOperation.OPEN_STREAM);
    assertThat(counting.bodyBytesRead).isZero();
    assertThat(counting.openStreams).isZero();
    assertThat(fixture.cacheFiles("b")).isEmpty();
  }

  void read_downloadBreakingMidway_failsAsUnavailableAndCachesNothing() throws IOException {
    byte[] bytes = noise(5000);
    ExtensionArchiveKey key = keyOf("@acme/tools", bytes);
    fixture.checkoutA().store(key, fixture.file("a.tar.gz", bytes));
    b.faults().breakNextStream(k -> true, 10);

    assertThatThrownBy(() -> fixture.checkoutB().read(key))
        .isInstanceOf(DatastoreUnavailableException.class)
        .hasMessageStartingWith("Cannot read archive " + key + " from " + datastore.describe()
            + ": the download broke off")
        .satisfies(e -> assertThat(((DatastoreUnavailableException) e).code()).isEqualTo("datastore_unavailable"));
    assertThat(fixture.cacheFiles("b")).isEmpty();
  }

  void read_pastItsDeadline_failsAndCachesNothing() throws IOException {
    byte[] bytes = archive("slow");
    ExtensionArchiveKey key = keyOf("@acme/tools", bytes);
    fixture.checkoutA().store(key, fixture.file("a.tar.gz", bytes));
    b.faults().beforeNext(DatastoreOperation.OPEN_STREAM, k -> true, () -> clock.advance(Duration.ofSeconds(11)));

    assertThatThrownBy(() -> fixture.checkoutB().read(key, Duration.ofSeconds(10)))
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.TIMEOUT))
        .hasMessage("Cannot read archive " + key + ": the read did not finish within 10000 ms; nothing was cached")
        .satisfies(e -> {
          assertThat(((ArchiveException) e).code()).isEqualTo("archive_timeout");
          assertThat(((ArchiveException) e).timeout().orElseThrow()).isEqualTo(Duration.ofSeconds(10));
        });
    assertThat(fixture.cacheFiles("b")).isEmpty();
  }

  void read_interrupted_failsKeepsTheFlagAndCachesNothing() throws IOException {
    byte[] bytes = archive("cancel");
    ExtensionArchiveKey key = keyOf("@acme/tools", bytes);
    fixture.checkoutA().store(key, fixture.file("a.tar.gz", bytes));
    b.faults().beforeNext(DatastoreOperation.OPEN_STREAM, k -> true, () -> Thread.currentThread().interrupt());

    try {
      assertThatThrownBy(() -> fixture.checkoutB().read(key))
          .isInstanceOfSatisfying(ArchiveException.class,
              e -> assertThat(e.code()).isEqualTo(ArchiveException.CANCELLED))
          .hasMessage("Cannot read archive " + key + ": the thread was interrupted; nothing was cached")
          .satisfies(e -> assertThat(((ArchiveException) e).code()).isEqualTo("archive_cancelled"));
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
    assertThat(fixture.cacheFiles("b")).isEmpty();
  }

  /** Counts the body bytes read from downloads and the downloads left open. */
  private static final class BodyCountingDatastore extends ForwardingDatastore {
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

    /** Returns true: it only counts the bytes downloaded. */
    @Override
    protected boolean passesPreconditionsThrough() {
      return true;
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
