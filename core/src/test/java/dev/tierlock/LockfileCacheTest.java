package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectVersion;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LockfileCacheTest {

  private static final ObjectKey KEY = ObjectKey.of("config/upstream_extensions.json");

  @TempDir
  Path dir;

  private LockfileCache cache() {
    return new LockfileCache(dir.resolve("tier-cache/config/upstream_extensions.json"), dir.resolve("state"), KEY);
  }

  private static byte[] lockfileBytes(String version) {
    return ("{\n  \"@acme/web\": {\n    \"version\": \"" + version + "\"\n  }\n}\n").getBytes(StandardCharsets.UTF_8);
  }

  private static LockfileHead head(String version, String... lineage) {
    return new LockfileHead(ObjectVersion.of(version), List.of(lineage));
  }

  private static void keep(LockfileCache cache, String entryVersion, LockfileHead head) {
    byte[] bytes = lockfileBytes(entryVersion);
    cache.keep(bytes, head, Lockfile.parse(bytes, "test"));
  }

  private static Object inode(Path file) throws IOException {
    return Files.getAttribute(file, "unix:ino");
  }

  @Test
  void keep_rewritesTheRecordInPlace_andReplacesOnlyTheCopyByARename() throws IOException {
    assumeTrue(dir.getFileSystem().supportedFileAttributeViews().contains("unix"), "a file system with inodes");
    LockfileCache cache = cache();
    Files.createDirectories(dir.resolve("state"));
    keep(cache, "1.0.0", head("v1", "c1"));
    Path record = dir.resolve("state").resolve(LockfileCache.RECORD_NAME);
    Object recordInode = inode(record);
    Object copyInode = inode(cache.file());

    keep(cache, "2.0.0", head("v2", "c2", "c1"));

    assertThat(inode(record)).as("the record is rewritten in place: no rename").isEqualTo(recordInode);
    assertThat(inode(cache.file())).as("the copy is replaced whole, by a rename").isNotEqualTo(copyInode);
    LockfileCache.Entry entry = new LockfileCache(cache.file(), dir.resolve("state"), KEY).current().orElseThrow();
    assertThat(entry.head()).isEqualTo(head("v2", "c2", "c1"));
    assertThat(entry.lockfile().bytes()).isEqualTo(lockfileBytes("2.0.0"));
  }

  @Test
  void aRecordTornOrOverlappedByAnotherWriter_isNeverBelieved() throws IOException {
    Files.createDirectories(dir.resolve("state"));
    Path record = dir.resolve("state").resolve(LockfileCache.RECORD_NAME);
    keep(cache(), "1.0.0", head("v1", "c1", "c0", "a-long-lineage-that-makes-this-record-the-longer-one"));
    String longer = Files.readString(record);
    keep(cache(), "2.0.0", head("v2", "c2"));
    String shorter = Files.readString(record);
    assertThat(longer.length()).isGreaterThan(shorter.length());

    // two writers in place: the later one's record over the earlier one's tail
    Files.writeString(record, shorter + longer.substring(shorter.length()));
    assertThat(cache().current()).as("a record with another's tail does not parse").isEmpty();
    // a crash between truncating and writing, or in the middle of the write
    Files.writeString(record, "");
    assertThat(cache().current()).isEmpty();
    Files.writeString(record, shorter.substring(0, shorter.length() - 3));
    assertThat(cache().current()).isEmpty();
    // one writer's record whole, the other's copy: the digest tells
    Files.writeString(record, longer);
    assertThat(cache().current()).as("the copy holds 2.0.0, the record stands for 1.0.0").isEmpty();

    Files.writeString(record, shorter);
    assertThat(cache().current()).map(LockfileCache.Entry::head).contains(head("v2", "c2"));
  }

  @Test
  void aRecordRewrittenByAnotherInstance_isReadAgain_notShadowedByMemory() throws IOException {
    Files.createDirectories(dir.resolve("state"));
    LockfileCache mine = cache();
    keep(mine, "1.0.0", head("v1", "c1"));
    assertThat(mine.current()).map(LockfileCache.Entry::head).contains(head("v1", "c1"));

    keep(cache(), "2.0.0", head("v2", "c2", "c1"));

    assertThat(mine.current()).map(LockfileCache.Entry::head).contains(head("v2", "c2", "c1"));
  }
}
