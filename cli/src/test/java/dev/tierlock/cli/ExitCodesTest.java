package dev.tierlock.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.tierlock.spi.DatastoreAccessDeniedException;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.DatastoreUnsafeException;
import dev.tierlock.InvalidInputException;
import dev.tierlock.LockTimeoutException;
import dev.tierlock.LockfileDelta;
import dev.tierlock.LockfileFormatException;
import dev.tierlock.LockfileOutcomeUnknownException;
import dev.tierlock.ManagedConfigUnpublishedException;
import dev.tierlock.ManagedLockfileUnavailableException;
import dev.tierlock.PendingChange;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.testkit.DatastoreOperation;
import dev.tierlock.testkit.FakeRemote;
import dev.tierlock.testkit.Fault;
import dev.tierlock.testkit.TestCheckout;
import dev.tierlock.testkit.TestClock;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.io.TempDir;
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

  @TempDir
  Path temp;

  @Test
  void of_badInput_isUsage() {
    assertThat(ExitCodes.of(InvalidInputException.name("Bad"))).isEqualTo(ExitCodes.USAGE);
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
    assertThat(ExitCodes.of(new ManagedConfigUnpublishedException("s3://b/p", LockfileDelta.EMPTY,
        Path.of("/state/pending"), 3, new IOException("reset")))).isEqualTo(ExitCodes.TEMPORARY);
    assertThat(ExitCodes.of(outcomeUnknown(PendingChange.State.IN_FLIGHT))).isEqualTo(ExitCodes.TEMPORARY);
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
  void of_aChangeInDoubt_isAFailureForAPersonToResolve() {
    assertThat(ExitCodes.of(outcomeUnknown(PendingChange.State.OUTCOME_UNKNOWN))).isEqualTo(ExitCodes.FAILURE);
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

  /**
   * Returns the exception a real transaction throws when its write went unanswered: in flight (no
   * read-back worked, on its only attempt), or in doubt (another tool wrote the lockfile meanwhile).
   */
  private LockfileOutcomeUnknownException outcomeUnknown(PendingChange.State state) {
    ObjectKey lockfile = ObjectKey.of("config/upstream_extensions.json");
    try (FakeRemote remote = FakeRemote.create();
        TestCheckout a = TestCheckout.builder(remote, temp.resolve(state.name()), TestClock.create()).maxPublishAttempts(1)
            .build()) {
      remote.plant(lockfile, "{}\n".getBytes(StandardCharsets.UTF_8));
      if (state == PendingChange.State.IN_FLIGHT) {
        remote.faults().failNext(DatastoreOperation.WRITE, lockfile::equals, 1, Fault.LOSE_RESPONSE)
            .failNext(DatastoreOperation.STAT, lockfile::equals, 1, Fault.UNAVAILABLE);
      } else {
        remote.faults().failNext(DatastoreOperation.WRITE, lockfile::equals, 1, Fault.TIMEOUT_BEFORE_APPLY)
            .beforeNext(DatastoreOperation.STAT, lockfile::equals,
                () -> remote.plant(lockfile, "{ }\n".getBytes(StandardCharsets.UTF_8)));
      }
      Throwable thrown = catchThrowable(() -> a.put("@acme/web", "1.0.0"));
      assertThat(thrown).isInstanceOfSatisfying(LockfileOutcomeUnknownException.class,
          e -> assertThat(e.pending().state()).isEqualTo(state));
      return (LockfileOutcomeUnknownException) thrown;
    }
  }
}
