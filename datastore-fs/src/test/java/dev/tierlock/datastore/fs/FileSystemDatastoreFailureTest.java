package dev.tierlock.datastore.fs;

import static dev.tierlock.datastore.fs.Fixtures.body;
import static dev.tierlock.datastore.fs.Fixtures.found;
import static dev.tierlock.datastore.fs.Fixtures.text;
import static dev.tierlock.datastore.fs.Fixtures.written;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.Lockfile;
import dev.tierlock.spi.DatastoreAccessDeniedException;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.OutcomeUnknownException;
import dev.tierlock.TierlockException;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Failures injected through the {@link FileIo} seam, translated by the real datastore code. */
class FileSystemDatastoreFailureTest {

  private static final ObjectKey KEY = ObjectKey.of("config/upstream_extensions.json");
  private static final ObjectMetadata OLD_META = ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "old");
  private static final ObjectMetadata NEW_META = ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "new");

  @TempDir
  Path root;

  private ObjectVersion oldVersion;
  private String where;

  @BeforeEach
  void writeTheOldObject() {
    FileSystemDatastore store = FileSystemDatastore.open(root);
    oldVersion = written(store.write(KEY, body("old bytes"), WriteCondition.none(), OLD_META));
    where = store.describe();
  }

  @Test
  void readsAndWrites_onAnInterruptedThread_failSayingSo_keepTheFlag_andChangeNothing() {
    FileSystemDatastore store = FileSystemDatastore.open(root);
    try {
      Thread.currentThread().interrupt();
      assertThatThrownBy(() -> store.openStream(KEY))
          .isExactlyInstanceOf(DatastoreUnavailableException.class)
          .hasMessage("Cannot read object " + KEY + " at " + where
              + ": the thread was interrupted (ClosedByInterruptException)")
          .extracting(e -> ((TierlockException) e).code()).isEqualTo("datastore_unavailable");
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
      assertThatThrownBy(() -> store.write(KEY, body("new bytes"), WriteCondition.mustMatch(oldVersion), NEW_META))
          .isExactlyInstanceOf(DatastoreUnavailableException.class)
          .hasMessageStartingWith("Cannot write object " + KEY + " at " + where + ": ")
          .hasMessageEndingWith("; nothing changed");
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
    assertOldObjectIntact(store);
  }

  @Test
  void write_diskFullWhileStagingTheBytes_isUnavailableAndLeavesTheOldObjectIntact() {
    FileSystemDatastore store = withIo(new FileIo() {
      @Override
      public void copy(InputStream in, FileChannel temp) throws IOException {
        temp.write(ByteBuffer.wrap(in.readNBytes(3)));
        throw new IOException("No space left on device");
      }
    });

    assertThatThrownBy(() -> store.write(KEY, body("new bytes, longer"), WriteCondition.mustMatch(oldVersion), NEW_META))
        .isExactlyInstanceOf(DatastoreUnavailableException.class)
        .hasMessage("Cannot write object " + KEY + " at " + where + ": the disk is full (IOException: No space left"
            + " on device); nothing changed, the object is untouched; free some space and retry")
        .hasCauseExactlyInstanceOf(IOException.class)
        .extracting(e -> ((TierlockException) e).code()).isEqualTo("datastore_unavailable");
    assertOldObjectIntact(store);
  }

  @Test
  void write_diskFullWhileRecordingTheMetadata_isUnavailableAndLeavesTheOldObjectIntact() {
    FileSystemDatastore store = withIo(new FileIo() {
      @Override
      public void move(Path temp, Path target) throws IOException {
        throw new FileSystemException(temp.toString(), target.toString(), "No space left on device");
      }
    });

    assertThatThrownBy(() -> store.write(KEY, body("new"), WriteCondition.none(), NEW_META))
        .isExactlyInstanceOf(DatastoreUnavailableException.class)
        .hasMessageStartingWith("Cannot write object " + KEY + " at " + where + ": the disk is full (FileSystemException: ")
        .hasMessageEndingWith("No space left on device); nothing changed, the object is untouched; free some space and retry")
        .extracting(e -> ((TierlockException) e).code()).isEqualTo("datastore_unavailable");
    assertOldObjectIntact(store);
  }

  @Test
  void write_accessDeniedWhileStaging_isAccessDeniedAndChangesNothing() {
    FileSystemDatastore store = withIo(new FileIo() {
      @Override
      public void copy(InputStream in, FileChannel temp) throws IOException {
        throw new AccessDeniedException("/share/config");
      }
    });

    assertThatThrownBy(() -> store.write(KEY, body("new"), WriteCondition.none(), NEW_META))
        .isExactlyInstanceOf(DatastoreAccessDeniedException.class)
        .hasMessage("Cannot write object " + KEY + " at " + where
            + ": access denied (AccessDeniedException: /share/config); nothing changed")
        .extracting(e -> ((TierlockException) e).code()).isEqualTo("access_denied");
    assertOldObjectIntact(store);
  }

  @Test
  void write_otherFailureWhileStaging_isUnavailableAndChangesNothing() {
    FileSystemDatastore store = withIo(new FileIo() {
      @Override
      public void copy(InputStream in, FileChannel temp) throws IOException {
        throw new IOException("Input/output error");
      }
    });

    assertThatThrownBy(() -> store.write(KEY, body("new"), WriteCondition.none(), NEW_META))
        .isExactlyInstanceOf(DatastoreUnavailableException.class)
        .hasMessage("Cannot write object " + KEY + " at " + where + ": IOException: Input/output error; nothing changed")
        .extracting(e -> ((TierlockException) e).code()).isEqualTo("datastore_unavailable");
    assertOldObjectIntact(store);
  }

  @Test
  void write_moveThatFailsBeforeMoving_isOutcomeUnknownAndTheOldObjectStays() {
    FileSystemDatastore store = withIo(failingObjectMove(false));

    assertThatThrownBy(() -> store.write(KEY, body("new"), WriteCondition.none(), NEW_META))
        .isExactlyInstanceOf(OutcomeUnknownException.class)
        .hasMessage("Cannot write object " + KEY + " at " + where + ": the atomic move failed and may have happened"
            + " (IOException: Stale file handle); read the object back before deciding")
        .extracting(e -> ((TierlockException) e).code()).isEqualTo("outcome_unknown");
    assertOldObjectIntact(store);
  }

  @Test
  void write_moveThatFailsAfterMoving_isOutcomeUnknownAndReadingBackFindsTheChange() {
    FileSystemDatastore store = withIo(failingObjectMove(true));

    assertThatThrownBy(() -> store.write(KEY, body("new"), WriteCondition.none(), NEW_META))
        .isExactlyInstanceOf(OutcomeUnknownException.class)
        .extracting(e -> ((TierlockException) e).code()).isEqualTo("outcome_unknown");
    ReadResult.Found found = found(store.read(KEY, ReadCondition.always(), Lockfile.MAX_BYTES));
    assertThat(text(found.bytes())).isEqualTo("new");
    assertThat(found.object().metadata()).isEqualTo(NEW_META);
  }

  @Test
  void write_metadataOnlyChangeFailingAtItsCommit_isOutcomeUnknownAndTheOldObjectStays() {
    FileSystemDatastore store = withIo(new FileIo() {
      @Override
      public void move(Path temp, Path target) throws IOException {
        throw new IOException("Stale file handle");
      }
    });

    assertThatThrownBy(() -> store.write(KEY, body("old bytes"), WriteCondition.mustMatch(oldVersion), NEW_META))
        .isExactlyInstanceOf(OutcomeUnknownException.class)
        .hasMessageContaining("the atomic move failed and may have happened")
        .extracting(e -> ((TierlockException) e).code()).isEqualTo("outcome_unknown");
    assertOldObjectIntact(store);
  }

  @Test
  void write_onAFileSystemWithoutAtomicMoves_isUnavailableAndChangesNothing() {
    FileSystemDatastore store = withIo(new FileIo() {
      @Override
      public void move(Path temp, Path target) throws IOException {
        throw new AtomicMoveNotSupportedException(temp.toString(), target.toString(), "cross-device");
      }
    });

    assertThatThrownBy(() -> store.write(KEY, body("new"), WriteCondition.none(), NEW_META))
        .isExactlyInstanceOf(DatastoreUnavailableException.class)
        .hasMessage("Cannot write object " + KEY + " at " + where
            + ": this filesystem cannot replace a file atomically, so it cannot hold a datastore; nothing changed")
        .extracting(e -> ((TierlockException) e).code()).isEqualTo("datastore_unavailable");
    assertOldObjectIntact(store);
  }

  @Test
  void write_whoseTargetDirectoryADeletePrunedBeforeTheMove_makesItAgainAndLands() throws IOException {
    ObjectKey deep = ObjectKey.of("config/deep/x");
    Path directory = root.resolve("config/deep");
    List<Path> prunedBefore = new ArrayList<>();
    FileSystemDatastore store = withIo(new FileIo() {
      @Override
      public void move(Path temp, Path target) throws IOException {
        if (target.getParent().endsWith(Path.of("config", "deep")) && prunedBefore.isEmpty()) {
          Files.delete(directory); // what a delete of the directory's last object does, between mkdir and move
          prunedBefore.add(temp);
        }
        FileIo.STANDARD.move(temp, target);
      }
    });

    written(store.write(deep, body("deep"), WriteCondition.mustNotExist(), NEW_META));

    assertThat(prunedBefore).hasSize(1);
    assertThat(text(found(store.read(deep, ReadCondition.always(), Lockfile.MAX_BYTES)).bytes())).isEqualTo("deep");
    assertThat(Fixtures.tempFiles(root)).isEmpty();
  }

  @Test
  void write_whoseMoveFindsItsTempFileGone_isOutcomeUnknown_notRetried() {
    FileSystemDatastore store = withIo(new FileIo() {
      @Override
      public void move(Path temp, Path target) throws IOException {
        if (target.equals(root.resolve(KEY.value()))) {
          Files.delete(temp); // as if a first rename had happened and its answer was lost
          throw new NoSuchFileException(temp.toString());
        }
        FileIo.STANDARD.move(temp, target);
      }
    });

    assertThatThrownBy(() -> store.write(KEY, body("new"), WriteCondition.mustMatch(oldVersion), NEW_META))
        .isExactlyInstanceOf(OutcomeUnknownException.class)
        .hasMessageStartingWith("Cannot write object " + KEY + " at " + where + ": the atomic move failed and may have"
            + " happened (NoSuchFileException: ")
        .hasMessageEndingWith("); read the object back before deciding");
  }

  private FileSystemDatastore withIo(FileIo io) {
    return FileSystemDatastore.open(root, FileSystemDatastoreOptions.defaults(), io);
  }

  /** Fails the move of the object file (not of its metadata), after or before really moving it. */
  private FileIo failingObjectMove(boolean moveFirst) {
    Path object = root.resolve(KEY.value());
    return new FileIo() {
      @Override
      public void move(Path temp, Path target) throws IOException {
        if (!target.equals(object)) {
          FileIo.STANDARD.move(temp, target);
          return;
        }
        if (moveFirst) {
          FileIo.STANDARD.move(temp, target);
        }
        throw new IOException("Stale file handle");
      }
    };
  }

  private void assertOldObjectIntact(FileSystemDatastore store) {
    ReadResult.Found found = found(store.read(KEY, ReadCondition.always(), Lockfile.MAX_BYTES));
    assertThat(text(found.bytes())).isEqualTo("old bytes");
    assertThat(found.object()).isEqualTo(new StoredObject(KEY, oldVersion, 9, OLD_META));
    assertThat(Fixtures.keys(store.list(""))).containsExactly(KEY.value());
    try {
      assertThat(Fixtures.tempFiles(root)).as("temp files left behind").isEmpty();
      assertThat(Fixtures.filesOutsideInternal(root)).containsExactly(KEY.value());
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }
}
