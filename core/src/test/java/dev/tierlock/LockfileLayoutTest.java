package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class LockfileLayoutTest {

  private static final String T = "2026-01-01T00:00:00.000Z";

  private static final String OLD_TOOL = """
      {
        "@acme/web": {
          "version": "1.0.0",
          "pulledAt": "2026-01-01T00:00:00.000Z",
          "files": [
            "z.ts",
            "a.ts"
          ]
        },
        "@acme/db": {"version": "2.0.0", "pulledAt": "2026-01-01T00:00:00.000Z", "files": ["b", "a"]}
      }
      """;

  private static Lockfile parse(String text) {
    return Lockfile.parse(text.getBytes(StandardCharsets.UTF_8), "f.json");
  }

  private static LockfileEntry entry(String version) {
    return LockfileEntry.builder(version, T).build();
  }

  @Test
  void with_fourSpaceFile_detectsTheUnit() {
    String four = "{\n    \"@a/b\": {\n        \"version\": \"1\",\n        \"pulledAt\": \"t\"\n    }\n}\n";

    String out = parse(four).with(ExtensionName.of("@a/c"), entry("2")).text();

    assertThat(out).isEqualTo("{\n    \"@a/b\": {\n        \"version\": \"1\",\n        \"pulledAt\": \"t\"\n    },\n"
        + "    \"@a/c\": {\n        \"version\": \"2\",\n        \"pulledAt\": \"" + T + "\"\n    }\n}\n");
  }

  @Test
  void layout_isDetectedFromTheFirstMemberThatStartsALine() {
    assertThat(parse(OLD_TOOL).document().layout()).isEqualTo(new LockfileLayout("\n", "  ", "  ", false, "", ": "));
    assertThat(parse(OLD_TOOL.replace("  ", "\t").replace("\n", "\r\n")).document().layout())
        .isEqualTo(new LockfileLayout("\r\n", "\t", "\t", false, "", ": "));
    assertThat(parse("{\"@a/b\": 1,\n   \"@a/c\": 2\n}").document().layout())
        .isEqualTo(new LockfileLayout("\n", "   ", "   ", false, "", ": "));
    assertThat(parse("{\n \t\"@a/b\": 1\n}").document().layout())
        .isEqualTo(new LockfileLayout("\n", " \t", "  ", false, "", ": "));
    assertThat(parse("{\"@a/b\":1, \"@a/c\" :2}\r\n").document().layout())
        .isEqualTo(new LockfileLayout("\r\n", "", "", true, " ", " :"));
  }

  @Test
  void with_whenNoMemberStartsALine_usesTwoSpaces() {
    String text = "{\"@a/b\": {\n\"version\": \"1\", \"pulledAt\": \"t\"}}\n";

    assertThat(parse(text).with(ExtensionName.of("@a/c"), entry("2")).text()).isEqualTo("{\"@a/b\": {\n\"version\": \"1\","
        + " \"pulledAt\": \"t\"},\n  \"@a/c\": {\n    \"version\": \"2\",\n    \"pulledAt\": \"" + T + "\"\n  }}\n");
  }
}
