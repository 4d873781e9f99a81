package dev.tierlock.datastore.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.exception.RetryableException;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/** {@link BoundedBody}: the announced size first, then a cap while reading; an oversize body is aborted. */
class BoundedBodyTest {

  @Test
  void transform_announcedOverTheBound_abortsWithoutReadingAByte() {
    Wire wire = new Wire(new byte[100]);

    assertThatThrownBy(() -> new BoundedBody(99).transform(response(100L), wire.stream()))
        .isInstanceOf(BoundedBody.TooLarge.class)
        .hasMessage("the body is 100 bytes, over the bound of 99")
        .satisfies(e -> {
          assertThat(((BoundedBody.TooLarge) e).size()).isEqualTo(100);
          assertThat(((BoundedBody.TooLarge) e).limit()).isEqualTo(99);
        });
    assertThat(wire.read).hasValue(0);
    assertThat(wire.aborted).isTrue();
  }

  @Test
  void transform_announcedHugeSize_isRefusedBeforeAnyAllocation() {
    Wire wire = new Wire(new byte[0]);

    assertThatThrownBy(() -> new BoundedBody(16 << 20).transform(response(1L << 40), wire.stream()))
        .isInstanceOf(BoundedBody.TooLarge.class)
        .satisfies(e -> assertThat(((BoundedBody.TooLarge) e).size()).isEqualTo(1L << 40));
    assertThat(wire.read).hasValue(0);
  }

  @Test
  void transform_bodyLongerThanAnnounced_isCutOneByteOverTheBound() {
    Wire wire = new Wire(new byte[10_000]);

    assertThatThrownBy(() -> new BoundedBody(50).transform(response(40L), wire.stream()))
        .isInstanceOf(BoundedBody.TooLarge.class)
        .hasMessage("the body is larger than that, over the bound of 50")
        .satisfies(e -> assertThat(((BoundedBody.TooLarge) e).size()).isEqualTo(-1));
    assertThat(wire.read).hasValue(51);
    assertThat(wire.aborted).isTrue();
  }

  @Test
  void transform_withoutAnnouncedSize_readsABodyUpToTheBound() throws Exception {
    byte[] bytes = "exactly the bound".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    Wire wire = new Wire(bytes);

    BoundedBody.Read read = new BoundedBody(bytes.length).transform(response(null), wire.stream());

    assertThat(read.bytes()).isEqualTo(bytes);
    assertThat(wire.aborted).isFalse();
  }

  @Test
  void transform_brokenBody_isRetryableForTheSdk() {
    AbortableInputStream broken = AbortableInputStream.create(new InputStream() {
      @Override
      public int read() throws IOException {
        throw new IOException("connection reset");
      }
    });

    assertThatThrownBy(() -> new BoundedBody(10).transform(response(5L), broken))
        .isInstanceOf(RetryableException.class)
        .hasMessageContaining("Cannot read the body of the answer: java.io.IOException: connection reset");
  }

  private static GetObjectResponse response(@Nullable Long contentLength) {
    return GetObjectResponse.builder().contentLength(contentLength).eTag("\"e\"").build();
  }

  /** A response body that counts the bytes read from it and remembers an abort. */
  private static final class Wire {
    final AtomicLong read = new AtomicLong();
    final AtomicBoolean aborted = new AtomicBoolean();
    private final ByteArrayInputStream bytes;

    Wire(byte[] content) {
      this.bytes = new ByteArrayInputStream(content);
    }

    AbortableInputStream stream() {
      InputStream counting = new InputStream() {
        @Override
        public int read() {
          int b = bytes.read();
          if (b >= 0) {
            read.incrementAndGet();
          }
          return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) {
          int n = bytes.read(buffer, offset, length);
          if (n > 0) {
            read.addAndGet(n);
          }
          return n;
        }
      };
      return AbortableInputStream.create(counting, () -> aborted.set(true));
    }
  }
}
