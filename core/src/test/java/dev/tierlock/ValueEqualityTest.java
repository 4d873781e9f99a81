package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectVersion;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The values every command reads with compare as records do, with no bootstrap at their first
 * comparison: a record's own equals, hashCode and toString are made then, spinning classes that no
 * start-up archive holds.
 */
class ValueEqualityTest {

  private record Plain(String value) {}

  /** {@return whether the class file of {@code type} refers to the records' bootstrap} */
  static boolean bootstraps(Class<?> type) throws IOException {
    String file = type.getName().substring(type.getPackageName().length() + 1) + ".class";
    try (InputStream in = type.getResourceAsStream(file)) {
      assertThat(in).as(type.getName()).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1).contains("java/lang/runtime/ObjectMethods");
    }
  }

  @Test
  void keysNamesAndVersions_compareWithoutABootstrap() throws IOException {
    assertThat(bootstraps(ObjectKey.class)).isFalse();
    assertThat(bootstraps(ExtensionName.class)).isFalse();
    assertThat(bootstraps(ObjectVersion.class)).isFalse();
    assertThat(bootstraps(Plain.class)).as("the check sees a record's own").isTrue();
  }

  @Test
  void keysNamesAndVersions_areEqualByTheirText_withItsHash() {
    assertThat(ObjectKey.of("a/b")).isEqualTo(ObjectKey.of("a/b")).isNotEqualTo(ObjectKey.of("a/c"))
        .isNotEqualTo("a/b").hasSameHashCodeAs("a/b");
    assertThat(ExtensionName.of("@acme/tool")).isEqualTo(ExtensionName.of("@acme/tool"))
        .isNotEqualTo(ExtensionName.of("@acme/other")).hasSameHashCodeAs("@acme/tool");
    assertThat(ObjectVersion.of("v1")).isEqualTo(ObjectVersion.of("v1")).isNotEqualTo(ObjectVersion.of("v2"))
        .hasSameHashCodeAs("v1");
  }
}
