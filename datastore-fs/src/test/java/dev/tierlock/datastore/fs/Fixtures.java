package dev.tierlock.datastore.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteResult;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Small values and result checks the datastore tests share. */
final class Fixtures {

  private Fixtures() {}

  static ObjectBody body(String text) {
    return ObjectBody.of(bytes(text));
  }

  static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  static ObjectVersion written(WriteResult result) {
    assertThat(result).isInstanceOf(WriteResult.Written.class);
    return ((WriteResult.Written) result).version();
  }

  static ReadResult.Found found(ReadResult result) {
    assertThat(result).isInstanceOf(ReadResult.Found.class);
    return (ReadResult.Found) result;
  }

  static List<String> keys(List<StoredObject> objects) {
    return objects.stream().map(o -> o.key().value()).toList();
  }
}
