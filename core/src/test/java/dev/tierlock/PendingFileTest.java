package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pending record's file: in place, one force per write, and a torn write never loses the record before it. */
class PendingFileTest {

  private static final int MAX = 1 << 20;

  @TempDir Path dir;

  private Path path() {
    return dir.resolve("record");
  }

  private static byte[] text(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private byte[] body() throws Exception {
    PendingFile.Content content = new PendingFile(path()).read(MAX);
    assertThat(content).isInstanceOf(PendingFile.Body.class);
    return ((PendingFile.Body) content).bytes();
  }

  private Object fileKey() throws Exception {
    return Files.readAttributes(path(), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
  }

  @Test
  void writesAfterTheFirst_stayInTheSameFile_andClearingKeepsIt() throws Exception {
    PendingFile file = new PendingFile(path());
    file.write(text("first"));
    Object created = fileKey();
    for (String next : new String[] {"second, longer than the first", "3", "fourth"}) {
      file.write(text(next));
      assertThat(body()).isEqualTo(text(next));
    }
    assertThat(file.clear(false)).isTrue();
    assertThat(file.read(MAX)).isEqualTo(PendingFile.Cleared.INSTANCE);
    assertThat(file.clear(true)).isFalse();
    file.write(text("after a clear"));
    assertThat(body()).isEqualTo(text("after a clear"));
    // no rename and no new file after the first write: the same inode throughout
    assertThat(fileKey()).isNotNull().isEqualTo(created);
    try (var names = Files.list(dir)) {
      assertThat(names).containsExactly(path());
    }
  }

  @Test
  void aRecordInTheEarlierPlainForm_isReadWhole_andReplacedByTheFirstWrite() throws Exception {
    Files.writeString(path(), "{\"version\":3}");
    PendingFile file = new PendingFile(path());
    assertThat(file.read(MAX)).isInstanceOf(PendingFile.Plain.class);
    assertThat(((PendingFile.Plain) file.read(MAX)).bytes()).isEqualTo(text("{\"version\":3}"));

    file.write(text("new"));
    assertThat(body()).isEqualTo(text("new"));
    assertThat(new PendingFile(dir.resolve("missing")).clear(true)).isFalse();
  }

  @Test
  void aWriteCutShortAtAnyByte_leavesTheOldRecordOrTheNew() throws Exception {
    PendingFile file = new PendingFile(path());
    file.write(text("the old record, which a torn write must not lose"));
    file.write(text("an older one in the other slot"));
    file.write(text("the old record, which a torn write must not lose"));
    byte[] before = Files.readAllBytes(path());
    byte[] next = text("the new record");
    file.write(next);
    byte[] after = Files.readAllBytes(path());
    // a killed process leaves a prefix of the write's bytes in the order they were written: body, then header
    int[] changed = changedPositions(before, after);
    for (int cut = 0; cut <= changed.length; cut++) {
      byte[] state = Arrays.copyOf(before, after.length);
      for (int i = 0; i < cut; i++) {
        state[changed[i]] = after[changed[i]];
      }
      Files.write(path(), state);
      assertThat(new String(body(), StandardCharsets.UTF_8)).as("cut after %d bytes", cut)
          .isIn("the old record, which a torn write must not lose", "the new record");
    }
  }

  @Test
  void aWriteTornInAnyBlocks_leavesTheOldRecordOrTheNew() throws Exception {
    PendingFile file = new PendingFile(path());
    byte[] old = text("x".repeat(3000));
    file.write(old);
    file.write(text("y".repeat(5000)));
    file.write(old);
    byte[] before = Files.readAllBytes(path());
    byte[] next = text("z".repeat(4000));
    file.write(next);
    byte[] after = Files.readAllBytes(path());
    // a power loss keeps any subset of the written blocks (512 bytes and smaller pieces of the header)
    SplittableRandom random = new SplittableRandom(22);
    for (int trial = 0; trial < 500; trial++) {
      byte[] state = Arrays.copyOf(before, after.length);
      for (int block = 0; block < after.length; block += 16) {
        if (random.nextBoolean()) {
          System.arraycopy(after, block, state, block, Math.min(16, after.length - block));
        }
      }
      Files.write(path(), state);
      assertThat(body()).as("trial %d", trial).satisfiesAnyOf(b -> assertThat(b).isEqualTo(old),
          b -> assertThat(b).isEqualTo(next));
    }
  }

  @Test
  void aClearCutShort_leavesTheRecordOrNothing() throws Exception {
    PendingFile file = new PendingFile(path());
    file.write(text("settled"));
    byte[] before = Files.readAllBytes(path());
    file.clear(false);
    byte[] after = Files.readAllBytes(path());
    int[] changed = changedPositions(before, after);
    for (int cut = 0; cut <= changed.length; cut++) {
      byte[] state = Arrays.copyOf(before, after.length);
      for (int i = 0; i < cut; i++) {
        state[changed[i]] = after[changed[i]];
      }
      Files.write(path(), state);
      PendingFile.Content content = file.read(MAX);
      if (content instanceof PendingFile.Body body) {
        assertThat(body.bytes()).isEqualTo(text("settled"));
      } else {
        assertThat(content).isEqualTo(PendingFile.Cleared.INSTANCE);
      }
    }
  }

  /** The bytes a write changed, in the order it writes them: the body (after the headers), then the header. */
  private static int[] changedPositions(byte[] before, byte[] after) {
    int headers = 2 * PendingFile.SLOT;
    return java.util.stream.IntStream.concat(java.util.stream.IntStream.range(headers, after.length),
            java.util.stream.IntStream.range(0, headers))
        .filter(i -> i >= before.length || before[i] != after[i]).toArray();
  }
}
