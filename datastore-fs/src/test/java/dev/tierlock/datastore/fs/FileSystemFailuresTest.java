package dev.tierlock.datastore.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.spi.DatastoreAccessDeniedException;
import dev.tierlock.spi.DatastoreBusyException;
import dev.tierlock.spi.DatastoreException;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.OutcomeUnknownException;
import dev.tierlock.datastore.fs.FileSystemFailures.Phase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileLockInterruptionException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.ReadOnlyFileSystemException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class FileSystemFailuresTest {

  private final FileSystemFailures failures = new FileSystemFailures("file:///share/tier/");

  @Test
  void isDiskFull_recognisesEveryFormOfAFullDisk() {
    assertThat(FileSystemFailures.isDiskFull(new IOException("No space left on device"))).isTrue();
    assertThat(FileSystemFailures.isDiskFull(new FileSystemException("/a", null, "No space left on device"))).isTrue();
    assertThat(FileSystemFailures.isDiskFull(new IOException("Disk quota exceeded"))).isTrue();
    assertThat(FileSystemFailures.isDiskFull(new IOException("There is not enough space on the disk"))).isTrue();
    assertThat(FileSystemFailures.isDiskFull(new UncheckedIOException(new IOException("No space left on device"))))
        .isTrue();
    assertThat(FileSystemFailures.isDiskFull(new IOException("Input/output error"))).isFalse();
    assertThat(FileSystemFailures.isDiskFull(new IOException((String) null))).isFalse();
  }

  @Test
  void reading_translatesByCause() {
    DatastoreException denied = failures.reading("read", "object a", new AccessDeniedException("/share/tier/a"));
    DatastoreException other = failures.reading("list", "prefix \"a/\"", new NoSuchFileException("/share/tier/a"));

    assertThat(denied).isExactlyInstanceOf(DatastoreAccessDeniedException.class)
        .hasMessage("Cannot read object a at file:///share/tier/: access denied (AccessDeniedException: /share/tier/a)")
        .hasCauseExactlyInstanceOf(AccessDeniedException.class);
    assertThat(denied.code()).isEqualTo("access_denied");
    assertThat(other).isExactlyInstanceOf(DatastoreUnavailableException.class)
        .hasMessage("Cannot list prefix \"a/\" at file:///share/tier/: NoSuchFileException: /share/tier/a");
    assertThat(failures.reading("read", "object a", new SecurityException("no")))
        .isExactlyInstanceOf(DatastoreAccessDeniedException.class);
  }

  @Test
  void aReadOnlyFileSystem_isAccessDenied_andChangedNothing() {
    ReadOnlyFileSystemException provider = new ReadOnlyFileSystemException();
    FileSystemException erofs = new FileSystemException("/share/tier/.tierlock/tmp/t", null, "Read-only file system");

    assertThat(failures.changing("write", "a", Phase.PREPARE, provider))
        .isExactlyInstanceOf(DatastoreAccessDeniedException.class)
        .hasMessage("Cannot write object a at file:///share/tier/: the file system is read-only"
            + " (ReadOnlyFileSystemException); nothing changed")
        .hasCause(provider);
    assertThat(failures.changing("delete", "a", Phase.COMMIT, erofs))
        .isExactlyInstanceOf(DatastoreAccessDeniedException.class)
        .hasMessage("Cannot delete object a at file:///share/tier/: the file system is read-only (FileSystemException:"
            + " /share/tier/.tierlock/tmp/t: Read-only file system); nothing changed");
    assertThat(failures.reading("open", "filesystem datastore", new UncheckedIOException(erofs)))
        .isExactlyInstanceOf(DatastoreAccessDeniedException.class)
        .hasMessageStartingWith("Cannot open filesystem datastore at file:///share/tier/: the file system is read-only");
    assertThat(failures.changing("write", "a", Phase.DURABLE, erofs)).isExactlyInstanceOf(OutcomeUnknownException.class);
    assertThat(FileSystemFailures.isReadOnly(new FileSystemException("/a", null, "Input/output error"))).isFalse();
  }

  @Test
  void changing_decidesByPhaseWhetherTheOutcomeIsKnown() {
    IOException io = new IOException("Input/output error");

    assertThat(failures.changing("write", "a", Phase.PREPARE, io)).isExactlyInstanceOf(DatastoreUnavailableException.class)
        .hasMessage("Cannot write object a at file:///share/tier/: IOException: Input/output error; nothing changed");
    assertThat(failures.changing("write", "a", Phase.COMMIT, io)).isExactlyInstanceOf(OutcomeUnknownException.class)
        .hasMessage("Cannot write object a at file:///share/tier/: the atomic move failed and may have happened"
            + " (IOException: Input/output error); read the object back before deciding");
    assertThat(failures.changing("delete", "a", Phase.COMMIT, io)).isExactlyInstanceOf(OutcomeUnknownException.class)
        .hasMessageContaining("the atomic delete failed and may have happened");
    assertThat(failures.changing("write", "a", Phase.DURABLE, io)).isExactlyInstanceOf(OutcomeUnknownException.class)
        .hasMessage("Cannot write object a at file:///share/tier/: the change is visible but forcing it to disk failed"
            + " (IOException: Input/output error); it may not survive a crash, read the object back before deciding");
  }

  @Test
  void changing_fullDiskOrDeniedAccessBeforeTheChangeLanded_changedNothing() {
    IOException full = new IOException("No space left on device");
    AccessDeniedException denied = new AccessDeniedException("/share/tier/a");

    for (Phase phase : new Phase[] {Phase.PREPARE, Phase.COMMIT}) {
      assertThat(failures.changing("write", "a", phase, full)).isExactlyInstanceOf(DatastoreUnavailableException.class)
          .hasMessage("Cannot write object a at file:///share/tier/: the disk is full (IOException: No space left on"
              + " device); nothing changed, the object is untouched; free some space and retry")
          .hasCause(full);
      assertThat(failures.changing("write", "a", phase, denied)).isExactlyInstanceOf(DatastoreAccessDeniedException.class)
          .hasMessage("Cannot write object a at file:///share/tier/: access denied (AccessDeniedException:"
              + " /share/tier/a); nothing changed");
    }
    assertThat(failures.changing("write", "a", Phase.DURABLE, full)).isExactlyInstanceOf(OutcomeUnknownException.class);
  }

  @Test
  void lockTimeout_isBusyNamingTheHolder_andInterruption_saysNothingChanged() {
    DatastoreBusyException timeout = failures.lockTimeout("write", "a", Duration.ofSeconds(10), Duration.ofSeconds(5), null);
    DatastoreBusyException named = failures.lockTimeout("delete", "a", Duration.ofSeconds(10), Duration.ofSeconds(5),
        "pid 4242 on host h since 2026-01-01T00:00:00Z; started 2025-12-31T23:00:00Z (n; guards g)");
    InterruptedException interrupt = new InterruptedException();

    assertThat(timeout).hasMessage("Cannot write object a at file:///share/tier/: its lock stayed held by another"
        + " writer for PT10S (the lock timeout; a claim seen unchanged for PT5S is taken over); nothing changed");
    assertThat(timeout.code()).isEqualTo("datastore_busy");
    assertThat(named).hasMessage("Cannot delete object a at file:///share/tier/: its lock stayed held by pid 4242 on host h"
        + " since 2026-01-01T00:00:00Z; started 2025-12-31T23:00:00Z (n; guards g) for PT10S (the lock timeout; a claim"
        + " seen unchanged for PT5S is taken over); nothing changed");
    assertThat(failures.interrupted("delete", "a", interrupt))
        .hasMessage("Cannot delete object a at file:///share/tier/: interrupted while waiting for its lock; nothing changed")
        .hasCause(interrupt);
  }

  @Test
  void interruptedChannels_sayTheThreadWasInterrupted_andKeepItsFlag() {
    ClosedByInterruptException closed = new ClosedByInterruptException();
    try {
      DatastoreException read = failures.reading("read", "object a", new UncheckedIOException(closed));
      assertThat(Thread.interrupted()).as("the flag was set again").isTrue();
      DatastoreException staged = failures.changing("write", "a", Phase.PREPARE, new FileLockInterruptionException());
      assertThat(Thread.interrupted()).isTrue();

      assertThat(read).isExactlyInstanceOf(DatastoreUnavailableException.class)
          .hasMessage("Cannot read object a at file:///share/tier/: the thread was interrupted"
              + " (UncheckedIOException: java.nio.channels.ClosedByInterruptException)")
          .hasRootCause(closed);
      assertThat(staged).isExactlyInstanceOf(DatastoreUnavailableException.class)
          .hasMessage("Cannot write object a at file:///share/tier/: the thread was interrupted"
              + " (FileLockInterruptionException); nothing changed");
      assertThat(failures.changing("write", "a", Phase.DURABLE, closed)).isExactlyInstanceOf(OutcomeUnknownException.class);
      assertThat(Thread.interrupted()).as("an interrupt after the change landed is no cancellation").isFalse();
      assertThat(FileSystemFailures.isInterruption(new IOException("Input/output error"))).isFalse();
    } finally {
      Thread.interrupted();
    }
  }
}
