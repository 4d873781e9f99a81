package dev.tierlock.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Tierlock;
import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.install.ConvergePoller;
import dev.tierlock.install.ConvergeStatus;
import dev.tierlock.install.Converger;
import dev.tierlock.install.ExtensionLayout;
import dev.tierlock.install.ExtensionManifest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's Java examples are real code: each one is a region of {@link ReadmeExamples}, which
 * compiles with the tests and runs here; the README must quote every region exactly, and hold no
 * Java block that is not such a region.
 */
class ReadmeExamplesTest {

  private static final Path README = Path.of("..", "README.md");
  private static final Path EXAMPLES = Path.of("src", "test", "java", "dev", "tierlock", "examples", "ReadmeExamples.java");

  @TempDir Path dir;

  @Test
  void everyJavaBlockOfTheReadme_isATestedRegion_quotedExactly() throws IOException {
    Map<String, String> regions = regions(Files.readString(EXAMPLES));
    List<String> blocks = javaBlocks(Files.readString(README));

    assertThat(regions).isNotEmpty();
    assertThat(blocks).as("every region is in the README").containsAll(regions.values());
    assertThat(regions.values()).as("every Java block of the README is a tested region").containsAll(blocks);
  }

  @Test
  void theExamples_run() throws Exception {
    String sha256 = "ab".repeat(32);
    URI datastore = URI.create("memory://readme");
    ReadmeExamples.putAnEntry(datastore, dir.resolve("checkout"), sha256);

    try (Tierlock tierlock = Tierlock.builder().datastore(datastore).checkout(dir.resolve("other")).build()) {
      assertThat(tierlock.snapshot().entry(ExtensionName.of("@acme/hello")).flatMap(LockfileEntry::checksum))
          .contains(sha256);
      assertThat(ReadmeExamples.readWithoutALock(tierlock).names()).contains(ExtensionName.of("@acme/hello"));
      assertThat(ReadmeExamples.resolveAChangeInDoubt(tierlock)).isEmpty();
      assertThat(ReadmeExamples.commitLocked(datastore, dir.resolve("locked")).status())
          .isEqualTo(dev.tierlock.TransactionStatus.PUBLISHED);

      byte[] archive = tarGz("pkg/readme.txt", "hello");
      ExtensionArchiveKey key = ExtensionArchiveKey.of(ExtensionName.of("@acme/tools"), sha256(archive));
      Path downloaded = Files.write(dir.resolve("tools.tar.gz"), archive);
      ReadmeExamples.installAnArchive(tierlock, key, downloaded,
          LockfileEntry.builder("2.0.0", "2026-01-01T00:00:00.000Z").build(), dir.resolve("staging"));
      assertThat(dir.resolve("staging").resolve("pkg/readme.txt")).hasContent("hello");

      ExtensionLayout layout = new ExtensionLayout() {
        @Override
        public Path pulledRoot() {
          return dir.resolve("extensions");
        }

        @Override
        public ExtensionManifest readManifest(Path file) {
          return ExtensionManifest.readJson(file);
        }
      };
      try (ConvergePoller poller = ReadmeExamples.convergeACheckout(tierlock, layout, () -> { })) {
        assertThat(Converger.builder(tierlock, layout).build().status())
            .filteredOn(s -> s.name().equals(ExtensionName.of("@acme/hello")))
            .singleElement().extracting(ConvergeStatus::state).as("the tier has no archive for its checksum")
            .isEqualTo(ConvergeStatus.State.UNRESTORABLE);
      }
    }
  }

  /** Returns the regions between {@code // README:start name} and {@code // README:end}, dedented. */
  static Map<String, String> regions(String source) {
    Map<String, String> out = new LinkedHashMap<>();
    String name = null;
    List<String> lines = new ArrayList<>();
    for (String line : source.split("\n", -1)) {
      String trimmed = line.strip();
      if (trimmed.startsWith("// README:start ")) {
        name = trimmed.substring("// README:start ".length());
        lines.clear();
      } else if (trimmed.equals("// README:end") && name != null) {
        out.put(name, dedent(lines));
        name = null;
      } else if (name != null) {
        lines.add(line);
      }
    }
    return out;
  }

  /** Returns the bodies of the README's {@code ```java} blocks. */
  static List<String> javaBlocks(String markdown) {
    List<String> out = new ArrayList<>();
    StringBuilder block = null;
    for (String line : markdown.split("\n", -1)) {
      if (block == null && line.strip().equals("```java")) {
        block = new StringBuilder();
      } else if (block != null && line.strip().equals("```")) {
        out.add(block.toString());
        block = null;
      } else if (block != null) {
        block.append(line).append('\n');
      }
    }
    return out;
  }

  private static String dedent(List<String> lines) {
    int indent = lines.stream().filter(l -> !l.isBlank()).mapToInt(l -> l.length() - l.stripLeading().length())
        .min().orElse(0);
    StringBuilder out = new StringBuilder();
    lines.forEach(l -> out.append(l.isBlank() ? "" : l.substring(indent)).append('\n'));
    return out.toString();
  }

  private static byte[] tarGz(String path, String text) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (TarArchiveOutputStream tar = new TarArchiveOutputStream(new GZIPOutputStream(bytes))) {
      byte[] content = text.getBytes(StandardCharsets.UTF_8);
      TarArchiveEntry entry = new TarArchiveEntry(path);
      entry.setSize(content.length);
      tar.putArchiveEntry(entry);
      tar.write(content);
      tar.closeArchiveEntry();
    }
    return bytes.toByteArray();
  }

  private static String sha256(byte[] bytes) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }
}
