package dev.tierlock.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class VerifyingCopyTest {

  private static final long SIZE = 64L * 1024 * 1024;

  @Test
  void copy_64MiB_hashesInConstantMemory() throws Exception {
    String expected = sha256(new PatternInputStream(SIZE));
    CountingChannel sink = new CountingChannel();
    VerifyingCopy.copy(new PatternInputStream(1024 * 1024), sink, Long.MAX_VALUE, "warm-up", () -> { });
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    assertThat(threads.isThreadAllocatedMemorySupported()).isTrue();
    threads.setThreadAllocatedMemoryEnabled(true);

    long before = threads.getCurrentThreadAllocatedBytes();
    VerifyingCopy.Result result = VerifyingCopy.copy(new PatternInputStream(SIZE), sink, Long.MAX_VALUE, "big",
        () -> { });
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;

    assertThat(result).isEqualTo(new VerifyingCopy.Result(SIZE, expected));
    assertThat(sink.written).isEqualTo(SIZE + 1024 * 1024);
    assertThat(sink.largestWrite).isLessThanOrEqualTo(VerifyingCopy.BUFFER_SIZE);
    // a copy that held the input, or allocated per buffer, would allocate at least 64 MiB
    assertThat(allocated).isLessThan(1024 * 1024);
  }

  @Test
  void copy_overCap_stopsOneBytePastIt() {
    CountingInputStream in = new CountingInputStream(new PatternInputStream(SIZE));

    assertThatThrownBy(() -> VerifyingCopy.copy(in, null, 1000, "@a/b@x", () -> { }))
        .isInstanceOfSatisfying(ArchiveException.class, e -> assertThat(e.code()).isEqualTo(ArchiveException.LIMIT))
        .hasMessage("Cannot accept archive @a/b@x: its compressed size exceeds the cap COMPRESSED_BYTES of 1000 bytes"
            + " (1001 bytes seen)")
        .satisfies(e -> assertThat(((ArchiveException) e).code()).isEqualTo("archive_limit"));
    assertThat(in.count).isEqualTo(1001);
  }

  @Test
  void copy_checkpointThrowing_stopsBeforeTheNextRead() {
    CountingInputStream in = new CountingInputStream(new PatternInputStream(SIZE));
    int[] calls = {0};

    assertThatThrownBy(() -> VerifyingCopy.copy(in, null, Long.MAX_VALUE, "src", () -> {
      if (++calls[0] == 3) {
        throw new IllegalStateException("stop");
      }
    })).isInstanceOf(IllegalStateException.class).hasMessage("stop");
    assertThat(in.count).isEqualTo(2L * VerifyingCopy.BUFFER_SIZE);
  }

  @Test
  void copy_sourceFailure_isReportedAsSourceException() {
    InputStream broken = new InputStream() {
      @Override
      public int read() throws IOException {
        throw new IOException("connection reset");
      }
    };

    assertThatThrownBy(() -> VerifyingCopy.copy(broken, null, 10, "src", () -> { }))
        .isInstanceOf(VerifyingCopy.SourceException.class)
        .hasMessage("connection reset")
        .hasCauseInstanceOf(IOException.class);
  }

  @Test
  void copy_empty_hashesTheEmptyString() throws IOException {
    assertThat(VerifyingCopy.copy(new ByteArrayInputStream(new byte[0]), null, 10, "src", () -> { }).sha256())
        .isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  }

  static String sha256(InputStream in) throws Exception {
    MessageDigest digest = MessageDigest.getInstance("SHA-256");
    byte[] buffer = new byte[8192];
    int n;
    while ((n = in.read(buffer)) >= 0) {
      digest.update(buffer, 0, n);
    }
    return HexFormat.of().formatHex(digest.digest());
  }

  private static final class CountingChannel implements WritableByteChannel {
    long written;
    int largestWrite;

    @Override
    public int write(ByteBuffer source) {
      int n = source.remaining();
      source.position(source.limit());
      written += n;
      largestWrite = Math.max(largestWrite, n);
      return n;
    }

    @Override
    public boolean isOpen() {
      return true;
    }

    @Override
    public void close() {
      // nothing held
    }
  }

  private static final class CountingInputStream extends InputStream {
    private final InputStream in;
    long count;

    CountingInputStream(InputStream in) {
      this.in = in;
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b >= 0) {
        count++;
      }
      return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      int n = in.read(buffer, offset, length);
      if (n > 0) {
        count += n;
      }
      return n;
    }
  }
}
