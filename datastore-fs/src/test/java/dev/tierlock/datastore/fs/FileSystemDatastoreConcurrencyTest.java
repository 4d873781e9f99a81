package dev.tierlock.datastore.fs;

import static dev.tierlock.datastore.fs.Fixtures.body;
import static dev.tierlock.datastore.fs.Fixtures.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.Lockfile;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Readers that take no lock, racing a writer that replaces the bytes and the metadata. */
class FileSystemDatastoreConcurrencyTest {

  private static final ObjectKey KEY = ObjectKey.of("config/upstream_extensions.json");
  private static final int WRITES = 60;
  private static final String BYTES = "tierlock-bytes";

  @TempDir
  Path root;

  @Test
  void read_racingWrites_alwaysSeesWholeBytesPairedWithTheirOwnMetadataAndVersion() throws Exception {
    FileSystemDatastore writer = FileSystemDatastore.open(root);
    FileSystemDatastore reader = FileSystemDatastore.open(root);
    writer.write(KEY, body(payload(0)), WriteCondition.none(), metadata(0));
    ExecutorService threads = Executors.newFixedThreadPool(3);
    AtomicBoolean writing = new AtomicBoolean(true);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<Integer>> readers = new ArrayList<>();
      for (int r = 0; r < 2; r++) {
        readers.add(threads.submit(() -> {
          start.await();
          int reads = 0;
          while (writing.get() || reads == 0) {
            ReadResult.Found found = (ReadResult.Found) reader.read(KEY, ReadCondition.always(), Lockfile.MAX_BYTES);
            assertConsistent(found.object(), text(found.bytes()));
            try (ObjectStream stream = reader.openStream(KEY).orElseThrow(); InputStream in = stream.stream()) {
              assertConsistent(stream.object(), text(in.readAllBytes()));
            }
            reads++;
          }
          return reads;
        }));
      }
      start.countDown();
      for (int i = 1; i <= WRITES; i++) {
        writer.write(KEY, body(payload(i)), WriteCondition.none(), metadata(i));
      }
      writing.set(false);
      for (Future<Integer> r : readers) {
        assertThat(r.get(ChildJvm.WAIT_SECONDS, TimeUnit.SECONDS)).isPositive();
      }
    } finally {
      writing.set(false);
      threads.shutdownNow();
    }
  }

  /** Bytes cycle through three values, so the same bytes come back with other metadata. */
  private static String payload(int i) {
    return "{\"payload\":" + (i % 3) + "}\n";
  }

  private static ObjectMetadata metadata(int i) {
    return new ObjectMetadata(Map.of(ObjectMetadata.COMMIT_ID, "c-" + i, BYTES, payload(i).strip()));
  }

  private static void assertConsistent(StoredObject object, String bytes) {
    assertThat(object.metadata().get(BYTES)).as("metadata written with these bytes").contains(bytes.strip());
    assertThat(object.size()).isEqualTo(bytes.length());
    assertThat(object.version()).isEqualTo(Digests.version(Digests.sha256Hex(bytes.getBytes(
        java.nio.charset.StandardCharsets.UTF_8)), object.metadata()));
  }
}
