package dev.tierlock.archive;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.ThreadMXBean;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Listing and extracting a 64 MiB entry allocates far less than the entry's size on the calling
 * thread: the bytes flow through fixed buffers, never through an array the size of an entry or of
 * the archive. Measured with the thread's allocation counter, so the test does not depend on timing
 * or on the garbage collector.
 */
class TarGzReaderMemoryTest {

  private static final long SIZE = 64L * 1024 * 1024;
  private static final long BOUND = 4L * 1024 * 1024;

  private static byte[] archive;
  private static String expectedSha256;

  @TempDir
  Path temp;

  @BeforeAll
  static void generate() throws Exception {
    archive = archiveOf(SIZE);
    expectedSha256 = VerifyingCopyTest.sha256(new PatternInputStream(SIZE));
  }

  @Test
  void extract_64MiBEntry_allocatesFarLessThanItsSize() throws Exception {
    TarGzReader reader = TarGzReader.of(ArchiveLimits.DEFAULTS);
    reader.extract(new ByteArrayInputStream(archiveOf(1024 * 1024)), "warm-up", temp.resolve("warm-up"));
    ThreadMXBean threads = threads();

    long before = threads.getCurrentThreadAllocatedBytes();
    ArchiveListing listing = reader.extract(new ByteArrayInputStream(archive), "big", temp.resolve("staging"));
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;

    assertThat(listing.entries()).containsExactly(new ArchiveListing.Entry.File("big.bin", SIZE, 0644));
    assertThat(allocated).isLessThan(BOUND);
    Path extracted = temp.resolve("staging/big.bin");
    assertThat(Files.size(extracted)).isEqualTo(SIZE);
    try (InputStream in = Files.newInputStream(extracted)) {
      assertThat(VerifyingCopyTest.sha256(in)).isEqualTo(expectedSha256);
    }
  }

  @Test
  void list_64MiBEntry_allocatesFarLessThanItsSize() {
    TarGzReader reader = TarGzReader.of(ArchiveLimits.DEFAULTS);
    reader.list(new ByteArrayInputStream(archive), "warm-up");
    ThreadMXBean threads = threads();

    long before = threads.getCurrentThreadAllocatedBytes();
    ArchiveListing listing = reader.list(new ByteArrayInputStream(archive), "big");
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;

    assertThat(listing.decompressedBytes()).isGreaterThan(SIZE);
    assertThat(allocated).isLessThan(BOUND);
  }

  private static ThreadMXBean threads() {
    ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    assertThat(threads.isThreadAllocatedMemorySupported()).isTrue();
    threads.setThreadAllocatedMemoryEnabled(true);
    return threads;
  }

  private static byte[] archiveOf(long size) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (TarArchiveOutputStream tar = new TarArchiveOutputStream(new GzipCompressorOutputStream(bytes))) {
      TarArchiveEntry entry = new TarArchiveEntry("big.bin");
      entry.setSize(size);
      entry.setMode(0100644);
      tar.putArchiveEntry(entry);
      new PatternInputStream(size).transferTo(tar);
      tar.closeArchiveEntry();
    }
    return bytes.toByteArray();
  }
}
