package dev.tierlock.datastore.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How a read of an attribute meets the file system's failures (a view that fails as told). */
class ExtendedAttributesTest {

  private static final byte[] VALUE = "{\"k\":\"v\"}".getBytes(StandardCharsets.UTF_8);

  @Test
  void aReadAnsweredTryAgain_isTriedAgain_andReturnsTheValue() throws IOException {
    FailingView view = new FailingView("Resource temporarily unavailable", "Interrupted system call",
        "Resource temporarily unavailable");

    assertThat(ExtendedAttributes.read(view, ExtendedAttributes.METADATA)).isEqualTo(VALUE);
    assertThat(view.reads).isEqualTo(4);
  }

  @Test
  void aReadAnsweredTryAgainEveryTime_failsAfterItsTries() {
    FailingView view = new FailingView("Resource temporarily unavailable", "Resource temporarily unavailable",
        "Resource temporarily unavailable", "Resource temporarily unavailable", "Resource temporarily unavailable");

    assertThatThrownBy(() -> ExtendedAttributes.read(view, ExtendedAttributes.METADATA))
        .isInstanceOf(FileSystemException.class).hasMessageContaining("Resource temporarily unavailable");
    assertThat(view.reads).isEqualTo(ExtendedAttributes.READ_TRIES);
  }

  @Test
  void anotherFailure_isNotTriedAgain() {
    FailingView view = new FailingView("Input/output error");

    assertThatThrownBy(() -> ExtendedAttributes.read(view, ExtendedAttributes.METADATA))
        .isInstanceOf(FileSystemException.class).hasMessageContaining("Input/output error");
    assertThat(view.reads).isEqualTo(1);
  }

  @Test
  void anAbsentAttribute_isNoBytes_notAFailure() throws IOException {
    assertThat(ExtendedAttributes.read(new FailingView("No data available"), ExtendedAttributes.METADATA)).isEmpty();
  }

  /** Fails its first reads with the reasons given, in order, then reads {@link #VALUE}. */
  private static final class FailingView implements UserDefinedFileAttributeView {
    private final Deque<String> failures;
    int reads;

    FailingView(String... reasons) {
      this.failures = new ArrayDeque<>(List.of(reasons));
    }

    @Override
    public int read(String name, ByteBuffer dst) throws IOException {
      reads++;
      String reason = failures.poll();
      if (reason != null) {
        throw new FileSystemException("/store/object", null, "Error reading extended attribute '" + name + "': " + reason);
      }
      dst.put(VALUE);
      return VALUE.length;
    }

    @Override
    public String name() {
      return "user";
    }

    @Override
    public List<String> list() {
      return List.of(ExtendedAttributes.METADATA);
    }

    @Override
    public int size(String name) {
      return VALUE.length;
    }

    @Override
    public int write(String name, ByteBuffer src) {
      throw new UnsupportedOperationException("read only");
    }

    @Override
    public void delete(String name) {
      throw new UnsupportedOperationException("read only");
    }
  }
}
