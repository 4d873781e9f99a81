package dev.tierlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.spi.DatastoreAccessDeniedException;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.DatastoreUnsafeException;
import dev.tierlock.InvalidNameException;
import dev.tierlock.LockTimeoutException;
import dev.tierlock.LockfileBusyException;
import dev.tierlock.LockfileDelta;
import dev.tierlock.LockfileFormatException;
import dev.tierlock.LockfileOutcomeUnknownException;
import dev.tierlock.ManagedConfigUnpublishedException;
import dev.tierlock.ManagedLockfileUnavailableException;
import dev.tierlock.spi.DatastoreBusyException;
import dev.tierlock.spi.ObjectBodyUnreadableException;
import dev.tierlock.spi.ObjectTooLargeException;
import dev.tierlock.spi.OutcomeUnknownException;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ExitCodesTest {

  private static final Path LOCKFILE = Path.of("/tier/config/upstream_extensions.json");

  @Test
  void of_badInput_isUsage() {
    assertThat(ExitCodes.of(new InvalidNameException("Bad"))).isEqualTo(ExitCodes.USAGE);
    assertThat(ExitCodes.of(new IllegalArgumentException("Cannot use x"))).isEqualTo(ExitCodes.USAGE);
  }

  @Test
  void of_notFound_isNotFound() {
    assertThat(ExitCodes.of(new NotFoundException("Cannot remove entry @a/b"))).isEqualTo(ExitCodes.NOT_FOUND);
  }

  @Test
  void of_passingConditions_areTemporary() {
    assertThat(ExitCodes.of(new LockTimeoutException(".datastore.lock", null, Duration.ofSeconds(60))))
        .isEqualTo(ExitCodes.TEMPORARY);
    assertThat(ExitCodes.of(new LockfileBusyException(LOCKFILE, Path.of("/state/lockfile.lock"), 10)))
        .isEqualTo(ExitCodes.TEMPORARY);
    assertThat(ExitCodes.of(new ManagedConfigUnpublishedException("s3://b/p", LockfileDelta.EMPTY,
        Path.of("/state/pending"), 3, new IOException("reset")))).isEqualTo(ExitCodes.TEMPORARY);
    assertThat(ExitCodes.of(new LockfileOutcomeUnknownException("s3://b/p", LockfileDelta.EMPTY, "0123456789abcdef",
        null, null))).isEqualTo(ExitCodes.TEMPORARY);
    assertThat(ExitCodes.of(new DatastoreBusyException("Cannot write x: its lock is held by pid 7", null)))
        .isEqualTo(ExitCodes.TEMPORARY);
  }

  @Test
  void of_datastoreRefusals_areUnavailable() {
    assertThat(ExitCodes.of(new DatastoreUnavailableException("Cannot read x", null))).isEqualTo(ExitCodes.UNAVAILABLE);
    assertThat(ExitCodes.of(new DatastoreAccessDeniedException("Cannot read x", null))).isEqualTo(ExitCodes.UNAVAILABLE);
    assertThat(ExitCodes.of(new DatastoreUnsafeException("Cannot write x", null))).isEqualTo(ExitCodes.UNAVAILABLE);
    assertThat(ExitCodes.of(new ManagedLockfileUnavailableException("Cannot fetch x", new IOException("down"))))
        .isEqualTo(ExitCodes.UNAVAILABLE);
  }

  @Test
  void of_everythingElse_isFailure() {
    assertThat(ExitCodes.of(new LockfileFormatException(LOCKFILE.toString(), "unexpected end", 2, 16, null)))
        .isEqualTo(ExitCodes.FAILURE);
    assertThat(ExitCodes.of(new OutcomeUnknownException("Cannot write x", null))).isEqualTo(ExitCodes.FAILURE);
    assertThat(ExitCodes.of(new ObjectTooLargeException("s3://b/p/config/x", 20_000_000, 16 << 20, null)))
        .isEqualTo(ExitCodes.FAILURE);
    assertThat(ExitCodes.of(new ObjectBodyUnreadableException("Cannot write x: the file vanished", null)))
        .isEqualTo(ExitCodes.FAILURE);
    assertThat(ExitCodes.of(new IllegalStateException("bug"))).isEqualTo(ExitCodes.FAILURE);
  }
}
