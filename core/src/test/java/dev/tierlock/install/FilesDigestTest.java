package dev.tierlock.install;

import static dev.tierlock.install.SwapFixture.write;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FilesDigestTest {

  @TempDir
  Path dir;

  private final SwapFixture.Layout layout = new SwapFixture.Layout(Path.of("/unused"), Map.of());

  private static String sha256(String text) throws NoSuchAlgorithmException {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void of_hashesSortedPathAndDigestLinesLeavingOutNestedRootsSkillsForksAndLinks() throws Exception {
    Path root = dir.resolve("root");
    write(root.resolve("b.txt"), "bee");
    write(root.resolve("a/x.txt"), "ex");
    write(root.resolve("a-b.txt"), "dash");
    write(root.resolve("nested/y.txt"), "another extension's");
    write(root.resolve("skills/s.md"), "a skill");
    write(root.resolve("._b.txt"), "a resource fork");
    write(dir.resolve("outside.txt"), "outside");
    Files.createSymbolicLink(root.resolve("link"), dir.resolve("outside.txt"));
    String expected = sha256("a-b.txt\0" + sha256("dash") + "\na/x.txt\0" + sha256("ex") + "\nb.txt\0" + sha256("bee")
        + "\n");
    assertThat(FilesDigest.of(root, List.of("nested"), layout)).contains(expected);

    write(dir.resolve("outside.txt"), "changed outside");
    assertThat(FilesDigest.of(root, List.of("nested"), layout)).contains(expected);
    assertThat(FilesDigest.of(root, List.of(), layout)).isPresent().get().isNotEqualTo(expected);
  }

  @Test
  void of_isEmptyForAMissingRootAndTheEmptyDigestForAnEmptyOne() throws Exception {
    assertThat(FilesDigest.of(dir.resolve("absent"), List.of(), layout)).isEmpty();
    Files.createDirectories(dir.resolve("empty"));
    assertThat(FilesDigest.of(dir.resolve("empty"), List.of(), layout)).contains(sha256(""));
  }

  @Test
  void sha256_readsTheFileBytes() throws Exception {
    write(dir.resolve("f"), "content");
    assertThat(FilesDigest.sha256(dir.resolve("f"))).isEqualTo(sha256("content"));
  }

  @Test
  void of_readsNothingThroughALinkedRoot() throws IOException {
    write(dir.resolve("real/f"), "x");
    Files.createSymbolicLink(dir.resolve("linked"), dir.resolve("real"));
    assertThat(FilesDigest.of(dir.resolve("linked"), List.of(), layout)).isEmpty();
  }
}
