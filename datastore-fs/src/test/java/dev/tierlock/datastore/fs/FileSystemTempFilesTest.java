package dev.tierlock.datastore.fs;

import static dev.tierlock.datastore.fs.Fixtures.body;
import static dev.tierlock.datastore.fs.Fixtures.filesOutsideInternal;
import static dev.tierlock.datastore.fs.Fixtures.found;
import static dev.tierlock.datastore.fs.Fixtures.keys;
import static dev.tierlock.datastore.fs.Fixtures.tempFiles;
import static dev.tierlock.datastore.fs.Fixtures.text;
import static dev.tierlock.datastore.fs.Fixtures.written;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.LockIdentity;
import dev.tierlock.Lockfile;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.testkit.TestClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Nothing of a write is ever left in the shared directory: staged files live only in {@code
 * .tierlock/} (a write's claim, made in {@code tmp/}), a writer killed between staging and the
 * rename leaves nothing outside the internal directory, its claim is taken over, and orphans of
 * {@code tmp/} are swept (at open when their writer is provably
 * gone, by writes when they are over an hour old by the file system's clock).
 */
class FileSystemTempFilesTest {

  private static final ObjectKey KEY = ObjectKey.of("config/upstream_extensions.json");
  private static final ObjectMetadata OLD_META = ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "old");
  private static final String HOST = LockIdentity.current().hostname();
  private static final long SELF = ProcessHandle.current().pid();
  private static final @Nullable Instant SELF_START = ProcessHandle.current().info().startInstant().orElse(null);
  /** A process id no process has: above the largest pid_max of Linux (2^22) and of the BSDs. */
  private static final long NO_SUCH_PID = Integer.MAX_VALUE;

  @TempDir
  Path dir;

  private Path root;
  private Path tmp;

  @BeforeEach
  void paths() {
    root = dir.resolve("tier");
    tmp = root.resolve(".tierlock").resolve("tmp");
  }

  @Test
  void write_stagesEveryTempFileInTheInternalDirectory_neverBesideItsTarget() throws IOException {
    written(FileSystemDatastore.open(root).write(KEY, body("old bytes"), WriteCondition.none(), OLD_META));
    List<String> seen = new ArrayList<>();
    FileSystemDatastore store = FileSystemDatastore.open(root, FileSystemDatastoreOptions.defaults(), new FileIo() {
      @Override
      public void move(Path temp, Path target) throws IOException {
        Path real = root.toRealPath();
        seen.add(real.relativize(temp.getParent()).toString().replaceAll("[0-9a-f]{64}/[0-9a-f-]{36}$", "<claim>")
            + " -> " + real.relativize(target.getParent()));
        assertThat(filesOutsideInternal(root)).as("while moving %s", temp).containsExactly(KEY.value());
        FileIo.STANDARD.move(temp, target);
      }
    });

    store.write(KEY, body("new bytes"), WriteCondition.none(), ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "new"));
    store.write(ObjectKey.of("deep/a/b"), body("x"), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);

    assertThat(seen).as("the metadata travels in the object's own file").containsExactly(
        ".tierlock/claims/<claim> -> config", ".tierlock/claims/<claim> -> deep/a");
    assertThat(tempFiles(root)).isEmpty();
    assertThat(keys(store.list(""))).containsExactly(KEY.value(), "deep/a/b");
  }

  /**
   * A second JVM is parked inside a real write, between staging its files in its claim and moving
   * the object (or the metadata sidecar) in, and killed there with {@code destroyForcibly()}. Its
   * claim stays (a dead writer cannot be told from a stopped one), and the next write takes it over
   * once it has seen it unchanged for the takeover bound on its own (test) clock.
   */
  @ParameterizedTest(name = "killed before moving the {0} in")
  @ValueSource(strings = {"object", "meta"})
  void kill_betweenStagingAndTheRename_leavesNothingOutsideTheInternalDirectory_andIsTakenOver(String parkedAt)
      throws Exception {
    ObjectVersion old = written(FileSystemDatastore.open(root).write(KEY, body("old bytes"), WriteCondition.none(),
        OLD_META));
    FileSystemDatastore early = FileSystemDatastore.open(root);

    Path orphan;
    try (ChildJvm child = ChildJvm.start("park", root.toString(), KEY.value(), "new bytes", "new", parkedAt)) {
      String parked = child.nextLine();
      assertThat(parked).startsWith("parked ");
      orphan = Path.of(parked.substring("parked ".length()));
      assertThat(tempFiles(root)).as("the parked write's staged files").contains(orphan)
          .allSatisfy(temp -> assertThat(temp).startsWith(root.toRealPath().resolve(".tierlock/claims")));
      assertThat(filesOutsideInternal(root)).containsExactly(KEY.value());

      child.kill();
    }

    assertThat(orphan).exists();
    assertThat(filesOutsideInternal(root)).as("nothing outside .tierlock/ after the kill").containsExactly(KEY.value());
    assertThat(keys(early.list(""))).containsExactly(KEY.value());
    assertThat(early.stat(KEY)).contains(new StoredObject(KEY, old, 9, OLD_META));
    FileSystemDatastore.open(root);
    assertThat(orphan).as("opening a datastore leaves a claim alone").exists();

    TestClock clock = TestClock.create();
    FileSystemDatastore next = FileSystemDatastore.open(root, FileSystemDatastoreOptions.defaults()
        .withClock(clock).withSleeper(clock.sleeper()));
    written(next.write(KEY, body("next"), WriteCondition.mustMatch(old), OLD_META));

    assertThat(clock.slept()).as("waited for the takeover bound on its own clock")
        .isGreaterThanOrEqualTo(FileSystemDatastoreOptions.DEFAULT_TAKEOVER_AFTER);
    assertThat(tempFiles(root)).as("the claim taken over is deleted").isEmpty();
    assertThat(filesOutsideInternal(root)).containsExactly(KEY.value());
  }

  @Test
  void open_sweepsTheTempFilesOfWritersProvablyGone_andKeepsEveryOther() throws IOException {
    FileSystemDatastore.open(root).write(KEY, body("x"), WriteCondition.none(), OLD_META);
    long parent = ProcessHandle.current().parent().orElseThrow().pid();
    Instant parentStart = ProcessHandle.of(parent).orElseThrow().info().startInstant().orElseThrow();
    Path reused = temp(HOST, SELF, Instant.ofEpochMilli(1));
    Path vanished = temp(HOST, NO_SUCH_PID, Instant.ofEpochMilli(1));
    Path vanishedUnknownStart = temp(HOST, NO_SUCH_PID, null);
    Path ours = temp(HOST, SELF, SELF_START);
    Path live = temp(HOST, parent, parentStart);
    Path liveUnknownStart = temp(HOST, parent, null);
    Path otherHost = temp("another-host.example", NO_SUCH_PID, Instant.ofEpochMilli(1));
    Path foreign = Files.createFile(tmp.resolve("not-a-tierlock-temp"));
    FileTime longAgo = FileTime.from(Files.getLastModifiedTime(ours).toInstant().minus(Duration.ofDays(2)));
    for (Path temp : List.of(reused, vanished, ours, live, otherHost, foreign)) {
      Files.setLastModifiedTime(temp, longAgo);
    }

    FileSystemDatastore.open(root);

    assertThat(tempFiles(root)).as("kept: not provably orphaned, and age is not judged at open")
        .containsExactlyInAnyOrder(ours, live, liveUnknownStart, otherHost, foreign);
    assertThat(List.of(reused, vanished, vanishedUnknownStart)).allSatisfy(gone -> assertThat(gone).doesNotExist());
  }

  @Test
  void write_sweepsTempFilesOverAnHourOldByTheFileSystemsClock_andKeepsYoungerOnes() throws IOException {
    FileSystemDatastore store = FileSystemDatastore.open(root);
    ObjectVersion v = written(store.write(KEY, body("x"), WriteCondition.none(), OLD_META));
    FileSystemDatastore next = FileSystemDatastore.open(root);
    Instant now = Files.getLastModifiedTime(Files.createFile(dir.resolve("now"))).toInstant();
    Path oldForeign = aged(temp("another-host.example", NO_SUCH_PID, null), now.minus(Duration.ofMinutes(61)));
    Path oldOurs = aged(temp(HOST, SELF, SELF_START), now.minus(Duration.ofMinutes(61)));
    Path oldJunk = aged(Files.createFile(tmp.resolve("junk")), now.minus(Duration.ofHours(5)));
    Path young = aged(temp("another-host.example", NO_SUCH_PID, null), now.minus(Duration.ofMinutes(50)));
    Path youngOurs = temp(HOST, SELF, SELF_START);

    written(next.write(KEY, body("y"), WriteCondition.mustMatch(v), OLD_META));

    assertThat(tempFiles(root)).containsExactlyInAnyOrder(young, youngOurs);
    assertThat(List.of(oldForeign, oldOurs, oldJunk)).allSatisfy(gone -> assertThat(gone).doesNotExist());
  }

  @Test
  void write_sweepsOnItsFirstWrite_thenOnlyOncePerIntervalOnTheInjectedClock() throws IOException {
    TestClock clock = TestClock.create();
    FileSystemDatastore store = FileSystemDatastore.open(root, FileSystemDatastoreOptions.defaults()
        .withClock(clock).withSleeper(clock.sleeper()));
    Files.createDirectories(tmp);
    Path first = temp(HOST, NO_SUCH_PID, null);

    ObjectVersion v1 = written(store.write(KEY, body("1"), WriteCondition.none(), OLD_META));
    assertThat(first).as("swept by the first write").doesNotExist();
    Path second = temp(HOST, NO_SUCH_PID, null);
    clock.advance(TempFiles.SWEEP_INTERVAL.minusSeconds(1));
    ObjectVersion v2 = written(store.write(KEY, body("2"), WriteCondition.mustMatch(v1), OLD_META));
    assertThat(second).as("not swept within the interval").exists();
    clock.advance(Duration.ofSeconds(1));
    written(store.write(KEY, body("3"), WriteCondition.mustMatch(v2), OLD_META));

    assertThat(second).as("swept once the interval passed").doesNotExist();
    assertThat(text(found(store.read(KEY, ReadCondition.always(), Lockfile.MAX_BYTES)).bytes())).isEqualTo("3");
    assertThat(tempFiles(root)).isEmpty();
  }

  private Path temp(String host, long pid, @Nullable Instant start) throws IOException {
    Files.createDirectories(tmp);
    return Files.createFile(tmp.resolve(TempFiles.nameOf(host, pid, start, UUID.randomUUID())));
  }

  private static Path aged(Path file, Instant modified) throws IOException {
    Files.setLastModifiedTime(file, FileTime.from(modified));
    return file;
  }
}
