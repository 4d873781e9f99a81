package dev.tierlock.datastore.fs;

import static dev.tierlock.datastore.fs.Fixtures.body;
import static dev.tierlock.datastore.fs.Fixtures.bytes;
import static dev.tierlock.datastore.fs.Fixtures.found;
import static dev.tierlock.datastore.fs.Fixtures.text;
import static dev.tierlock.datastore.fs.Fixtures.versions;
import static dev.tierlock.datastore.fs.Fixtures.written;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.entry;

import dev.tierlock.Lockfile;
import dev.tierlock.LockfileOutcomeUnknownException;
import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.OutcomeUnknownException;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.testkit.DatastoreOperation;
import dev.tierlock.testkit.FaultyDatastore;
import dev.tierlock.testkit.TestCheckout;
import dev.tierlock.testkit.TestClock;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Metadata belongs to the file the datastore moved into place, never to bytes another writer put
 * at the path. The sidecar records each file's digest and identity (file key and modification
 * time), and keeps the entry of the previous content for readers racing a write. Another tool that
 * writes the file directly (the original tool on a shared directory, or an operator restoring a
 * copy) with bytes equal to that previous content must therefore not read back as that previous
 * Tierlock version: {@code Landing} trusts "same version and same commit id" as proof that a write
 * in flight did not land, so a checkout whose write landed (and whose process died before it heard)
 * would re-apply it over the other tool's change, although a write by another tool is exactly the
 * case the design says must stay "outcome unknown".
 */
class ForeignWriteMetadataTest {

  private static final ObjectKey LOCKFILE = Namespace.NONE.key(TierPath.LOCKFILE);
  private static final ObjectKey KEY = ObjectKey.of("config/upstream_extensions.json");
  private static final ObjectMetadata FIRST = ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "first");
  private static final ObjectMetadata SECOND = ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "second");

  @TempDir Path temp;

  @Test
  void aLandedWriteWhoseProcessDied_thenAnotherToolRestoringTheParentBytes_isNotReappliedOverThatTool() throws Exception {
    TestClock clock = TestClock.create();
    Path shared = temp.resolve("shared");
    FaultyDatastore store = FaultyDatastore.wrap(FileSystemDatastore.open(shared));
    TestCheckout a = TestCheckout.builder(store, temp.resolve("a"), clock).build();
    try {
      a.put("@s/base", "1");
      Path file = shared.resolve(LOCKFILE.value());
      byte[] parent = Files.readAllBytes(file);
      StoredObject parentObject = store.stat(LOCKFILE).orElseThrow();
      store.faults().afterNext(DatastoreOperation.WRITE, LOCKFILE::equals, () -> {
        throw new IllegalStateException("the process dies right after its write landed");
      });
      assertThatThrownBy(() -> a.put("@s/x", "1")).isInstanceOf(LockfileOutcomeUnknownException.class);
      assertThat(versions(a.shared())).as("the write landed").containsExactly(entry("@s/base", "1"), entry("@s/x", "1"));

      // another tool removes @s/x by writing the file itself: its bytes are exactly the parent's again
      Files.write(file, parent);
      assertThat(versions(a.shared())).containsExactly(entry("@s/base", "1"));
      StoredObject foreign = store.stat(LOCKFILE).orElseThrow();
      assertThat(foreign.metadata()).as("the other tool's write has no metadata, so no commit id").isEqualTo(ObjectMetadata.EMPTY);
      assertThat(foreign.version()).as("nor the parent Tierlock version").isNotEqualTo(parentObject.version());

      TestCheckout restarted = a.reopen();
      Throwable outcome = catchThrowable(() -> restarted.put("@s/other", "1"));

      assertThat(versions(restarted.shared())).as("the other tool's removal of @s/x (outcome: " + outcome + ")")
          .doesNotContainKey("@s/x");
      restarted.close();
    } finally {
      a.close();
      store.close();
    }
  }

  @Test
  void theDatastoresOwnWrites_readBackWithTheirMetadata_throughEveryRead_andAnotherInstance() throws IOException {
    FileSystemDatastore store = Fixtures.sidecarForm(temp.resolve("tier"));
    ObjectVersion first = written(store.write(KEY, body("first"), WriteCondition.mustNotExist(), FIRST));
    assertHolds(store, "first", first, FIRST);

    ObjectVersion second = written(store.write(KEY, body("second"), WriteCondition.mustMatch(first), SECOND));

    assertHolds(store, "second", second, SECOND);
    assertHolds(FileSystemDatastore.open(temp.resolve("tier")), "second", second, SECOND);
    assertThat(store.list("")).containsExactly(new StoredObject(KEY, second, 6, SECOND));
    try (ObjectStream stream = store.openStream(KEY).orElseThrow(); InputStream in = stream.stream()) {
      assertThat(stream.object()).isEqualTo(new StoredObject(KEY, second, 6, SECOND));
      assertThat(text(in.readAllBytes())).isEqualTo("second");
    }
    assertThat(Files.readString(sidecar(store))).as("the sidecar names the file of each entry")
        .startsWith(Sidecar.HEADER + "\n").contains(" file=ino:", " modified=");
  }

  @Test
  void anotherToolMovingInThePreviousBytes_readsAsAVersionWithoutMetadata() throws IOException {
    FileSystemDatastore store = FileSystemDatastore.open(temp.resolve("tier"));
    ObjectVersion first = written(store.write(KEY, body("first"), WriteCondition.mustNotExist(), FIRST));
    written(store.write(KEY, body("second"), WriteCondition.mustMatch(first), SECOND));
    Path file = store.pathOf(KEY);

    Path staged = file.resolveSibling(".restore.tmp");
    Files.write(staged, bytes("first"));
    Files.move(staged, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);

    assertForeign(store, "first", first);
  }

  @Test
  void anotherToolMovingInACopyThatKeptTheEarlierFilesTime_readsAsAVersionWithoutMetadata() throws IOException {
    FileSystemDatastore store = FileSystemDatastore.open(temp.resolve("tier"));
    ObjectVersion first = written(store.write(KEY, body("first"), WriteCondition.mustNotExist(), FIRST));
    Path file = store.pathOf(KEY);
    Path backup = temp.resolve("backup");
    Files.copy(file, backup);
    Files.setLastModifiedTime(backup, Files.getLastModifiedTime(file)); // as cp -p and rsync -t do, to the nanosecond
    assertThat(Files.getLastModifiedTime(backup)).as("a copy that keeps the time").isEqualTo(Files.getLastModifiedTime(file));
    written(store.write(KEY, body("second"), WriteCondition.mustMatch(first), SECOND));

    Files.move(backup, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);

    assertForeign(store, "first", first);
  }

  @Test
  void anotherToolRewritingTheFileInPlaceWithThePreviousBytes_readsAsAVersionWithoutMetadata() throws IOException {
    FileSystemDatastore store = FileSystemDatastore.open(temp.resolve("tier"));
    ObjectVersion first = written(store.write(KEY, body("first"), WriteCondition.mustNotExist(), FIRST));
    written(store.write(KEY, body("second"), WriteCondition.mustMatch(first), SECOND));
    Path file = store.pathOf(KEY);
    Object inode = Files.readAttributes(file, BasicFileAttributes.class).fileKey();

    Files.write(file, bytes("first")); // truncates and writes the same file

    assertThat(Files.readAttributes(file, BasicFileAttributes.class).fileKey()).isEqualTo(inode);
    assertForeign(store, "first", first);
  }

  @Test
  void anotherToolRewritingTheCurrentBytesInPlace_atAnotherTime_readsAsAVersionWithoutMetadata() throws IOException {
    FileSystemDatastore store = FileSystemDatastore.open(temp.resolve("tier"));
    ObjectVersion second = written(store.write(KEY, body("second"), WriteCondition.mustNotExist(), SECOND));
    Path file = store.pathOf(KEY);
    FileTime written = Files.getLastModifiedTime(file);

    Files.write(file, bytes("second"));
    Files.setLastModifiedTime(file, FileTime.from(written.toInstant().plusSeconds(1))); // a time of its own, whatever the clock's tick

    assertForeign(store, "second", second);
  }

  @Test
  void changesThatLeaveTheFileAsTheDatastoreWroteIt_keepItsMetadata() throws IOException {
    FileSystemDatastore store = FileSystemDatastore.open(temp.resolve("tier"));
    ObjectVersion first = written(store.write(KEY, body("first"), WriteCondition.mustNotExist(), FIRST));
    Path file = store.pathOf(KEY);

    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    Files.readAllBytes(file);

    assertHolds(store, "first", first, FIRST);
  }

  @Test
  void aWriteOfTheSameBytesWithNewMetadata_bindsItToTheFileInPlace() throws IOException {
    FileSystemDatastore store = Fixtures.sidecarForm(temp.resolve("tier"));
    ObjectVersion first = written(store.write(KEY, body("same"), WriteCondition.mustNotExist(), FIRST));
    Path file = store.pathOf(KEY);
    Object inode = Files.readAttributes(file, BasicFileAttributes.class).fileKey();

    ObjectVersion second = written(store.write(KEY, body("same"), WriteCondition.mustMatch(first), SECOND));

    assertThat(second).isNotEqualTo(first);
    assertThat(Files.readAttributes(file, BasicFileAttributes.class).fileKey()).isEqualTo(inode);
    assertHolds(store, "same", second, SECOND);
    Files.write(file, bytes("same"));
    Files.setLastModifiedTime(file, FileTime.from(Instant.parse("2001-02-03T04:05:06Z")));
    assertForeign(store, "same", second);
  }

  @Test
  void aWriteOverAnotherToolsFile_putsItsOwnFileThereWithItsMetadata() throws IOException {
    FileSystemDatastore store = FileSystemDatastore.open(temp.resolve("tier"));
    ObjectVersion first = written(store.write(KEY, body("first"), WriteCondition.mustNotExist(), FIRST));
    written(store.write(KEY, body("second"), WriteCondition.mustMatch(first), SECOND));
    Files.write(store.pathOf(KEY), bytes("first"));
    ObjectVersion foreign = store.stat(KEY).orElseThrow().version();

    ObjectVersion third = written(store.write(KEY, body("first"), WriteCondition.mustMatch(foreign), FIRST));

    assertThat(third).as("the same bytes and metadata as the first write: the same version").isEqualTo(first);
    assertHolds(store, "first", first, FIRST);
  }

  @Test
  void aWriteThatStopsBetweenRecordingTheMetadataAndTheMove_leavesTheOldObjectWithItsMetadata() throws IOException {
    Path root = temp.resolve("tier");
    ObjectVersion first = written(FileSystemDatastore.open(root).write(KEY, body("first"), WriteCondition.mustNotExist(), FIRST));
    Path object = FileSystemDatastore.open(root).pathOf(KEY);
    FileSystemDatastore stopping = FileSystemDatastore.open(root, FileSystemDatastoreOptions.defaults(), new FileIo() {
      @Override
      public boolean attach(Path file, String name, byte[] value) {
        return false; // the sidecar form: the metadata is recorded before the move
      }

      @Override
      public void move(Path from, Path target) throws IOException {
        if (target.equals(object)) {
          throw new IOException("the machine stops before the object is moved in");
        }
        FileIo.STANDARD.move(from, target);
      }
    });

    assertThatThrownBy(() -> stopping.write(KEY, body("second"), WriteCondition.mustMatch(first), SECOND))
        .isExactlyInstanceOf(OutcomeUnknownException.class);

    FileSystemDatastore store = FileSystemDatastore.open(root);
    Sidecar recorded = Sidecar.parse(Files.readAllBytes(sidecar(store)));
    String secondDigest = Digests.sha256Hex(bytes("second"));
    assertThat(Files.readString(sidecar(store))).as("the sidecar learned the staged file").contains("object " + secondDigest + " file=");
    assertThat(recorded.metadataOf(secondDigest, FileIdentity.read(object).orElseThrow())).isEmpty();
    assertHolds(store, "first", first, FIRST);

    Files.write(object, bytes("second")); // another tool writes the bytes that were staged: not the staged file
    assertForeign(store, "second", Digests.version(secondDigest, SECOND));

    ObjectVersion foreign = store.stat(KEY).orElseThrow().version();
    ObjectVersion next = written(store.write(KEY, body("next"), WriteCondition.mustMatch(foreign), SECOND));
    assertHolds(store, "next", next, SECOND);
  }

  @Test
  void aProcessKilledBetweenRecordingTheMetadataAndTheMove_leavesTheOldObjectWithItsMetadata_andAnEntryForItsTempFile()
      throws Exception {
    Path root = temp.resolve("tier");
    FileSystemDatastore store = FileSystemDatastore.open(root);
    ObjectVersion first = written(store.write(KEY, body("first"), WriteCondition.mustNotExist(), FIRST));

    try (ChildJvm child = ChildJvm.start("crash", root.toString(), KEY.value(), "second", "second", "object", "sidecar")) {
      assertThat(child.nextLine()).isEqualTo("crashing");
      assertThat(child.awaitExit().code()).isEqualTo(ChildProcess.CRASHED);
    }

    assertHolds(store, "first", first, FIRST);
    Path orphan = Fixtures.tempFiles(root).stream().filter(t -> {
      try {
        return text(Files.readAllBytes(t)).equals("second");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }).findFirst().orElseThrow();
    Sidecar recorded = Sidecar.parse(Files.readAllBytes(sidecar(store)));
    assertThat(recorded.metadataOf(Digests.sha256Hex(bytes("second")), FileIdentity.read(orphan).orElseThrow()))
        .as("the entry names the staged temp file, which the move would have kept")
        .contains(SECOND);
    ObjectVersion next = written(store.write(KEY, body("next"), WriteCondition.mustMatch(first), SECOND));
    assertHolds(store, "next", next, SECOND);
  }

  @Test
  void aFormatOneSidecar_bindsOnlyItsNewestEntry_untilTheNextWriteRewritesIt() throws IOException {
    FileSystemDatastore store = Fixtures.sidecarForm(temp.resolve("tier"));
    ObjectVersion first = written(store.write(KEY, body("first"), WriteCondition.mustNotExist(), FIRST));
    ObjectVersion second = written(store.write(KEY, body("second"), WriteCondition.mustMatch(first), SECOND));
    Files.writeString(sidecar(store), Sidecar.LEGACY_HEADER + "\nkey " + KEY.value()
        + "\nobject " + Digests.sha256Hex(bytes("first")) + "\n" + ObjectMetadata.COMMIT_ID + "=first"
        + "\nobject " + Digests.sha256Hex(bytes("second")) + "\n" + ObjectMetadata.COMMIT_ID + "=second\n", StandardCharsets.UTF_8);

    assertHolds(store, "second", second, SECOND);
    Files.write(store.pathOf(KEY), bytes("first"));
    assertForeign(store, "first", first);

    ObjectVersion foreign = store.stat(KEY).orElseThrow().version();
    ObjectVersion third = written(store.write(KEY, body("third"), WriteCondition.mustMatch(foreign), FIRST));
    assertThat(Files.readString(sidecar(store))).startsWith(Sidecar.HEADER + "\n");
    assertHolds(store, "third", third, FIRST);
  }

  private static Path sidecar(FileSystemDatastore store) {
    return store.root().resolve(".tierlock/meta/" + Digests.ofKey(KEY.value()) + ".meta");
  }

  private static void assertHolds(FileSystemDatastore store, String content, ObjectVersion version, ObjectMetadata metadata) {
    StoredObject expected = new StoredObject(KEY, version, bytes(content).length, metadata);
    ReadResult.Found found = found(store.read(KEY, ReadCondition.always(), Lockfile.MAX_BYTES));
    assertThat(text(found.bytes())).isEqualTo(content);
    assertThat(found.object()).isEqualTo(expected);
    assertThat(store.stat(KEY)).contains(expected);
  }

  /** Asserts the object holds {@code content} with no metadata: a version the datastore never wrote with metadata. */
  private static void assertForeign(FileSystemDatastore store, String content, ObjectVersion earlier) {
    ObjectVersion bare = Digests.version(Digests.sha256Hex(bytes(content)), ObjectMetadata.EMPTY);
    assertThat(bare).isNotEqualTo(earlier);
    StoredObject expected = new StoredObject(KEY, bare, bytes(content).length, ObjectMetadata.EMPTY);
    ReadResult.Found found = found(store.read(KEY, ReadCondition.always(), Lockfile.MAX_BYTES));
    assertThat(text(found.bytes())).isEqualTo(content);
    assertThat(found.object()).as("bytes another writer put there carry no metadata").isEqualTo(expected);
    assertThat(store.stat(KEY)).contains(expected);
    assertThat(store.list("")).containsExactly(expected);
    assertThat(store.read(KEY, ReadCondition.ifNoneMatch(earlier), Lockfile.MAX_BYTES)).isInstanceOf(ReadResult.Found.class);
  }
}
