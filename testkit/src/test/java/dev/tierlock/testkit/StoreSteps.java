package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.spi.DatastoreException;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.WriteResult;
import java.nio.charset.StandardCharsets;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/** Short steps the testkit's own tests share. */
final class StoreSteps {

  private StoreSteps() {}

  static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  static ObjectBody body(String text) {
    return ObjectBody.of(bytes(text));
  }

  /** Asserts that {@code result} is a landed write and returns its version. */
  static ObjectVersion written(WriteResult result) {
    assertThat(result).isInstanceOf(WriteResult.Written.class);
    return ((WriteResult.Written) result).version();
  }

  /** Asserts that {@code call} throws {@code type} with {@code code} and a message holding {@code message}. */
  static void assertFails(ThrowingCallable call, Class<? extends DatastoreException> type, String code, String message) {
    assertThatThrownBy(call)
        .isInstanceOf(type)
        .hasMessageStartingWith("Cannot ")
        .hasMessageContaining(message)
        .extracting(e -> ((DatastoreException) e).code())
        .isEqualTo(code);
  }
}
