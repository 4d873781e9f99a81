package dev.tierlock.datastore.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.DistributedLock;
import dev.tierlock.Environment;
import dev.tierlock.LockInfo;
import dev.tierlock.LockOptions;
import dev.tierlock.Namespace;
import dev.tierlock.Tierlock;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.testkit.ChildLockHolder;
import dev.tierlock.testkit.ManualHeartbeats;
import dev.tierlock.testkit.TestClock;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A holder of the global lease in another JVM on this host, killed outright (SIGKILL: no shutdown
 * hook releases its lease), is taken over at once: its record names this host, its pid and its
 * process start, and that process is gone. The lease's ttl is ten minutes and the taker may make
 * one attempt only, on a clock that stands at the record's own time, so nothing but the dead
 * process can let it in.
 */
class FileSystemLeaseTakeoverProcessTest {

  private static final ObjectKey KEY = DistributedLock.globalKey(Namespace.NONE);
  private static final Duration TTL = Duration.ofMinutes(10);

  @TempDir
  Path temp;

  @Test
  void aHolderKilledOnThisHost_isTakenOverAtOnce_notAfterItsTtl() throws Exception {
    FileSystemDatastore store = FileSystemDatastore.open(temp.resolve("shared"));
    try (ChildLockHolder child = ChildLockHolder.holdingLease(store.root().toUri(), temp.resolve("child"), TTL)) {
      LockInfo holder = LockInfo.parse(KEY.value(), ((ReadResult.Found) store.read(KEY, ReadCondition.always(),
          LockInfo.MAX_BYTES)).bytes());
      assertThat(holder.pid()).isEqualTo(child.pid());
      assertThat(holder.ttl()).isEqualTo(TTL);
      assertThat(holder.processStart()).as("the child's record pins its process")
          .isEqualTo(ProcessHandle.of(child.pid()).flatMap(p -> p.info().startInstant()));
      TestClock clock = TestClock.at(holder.acquiredAt());
      Tierlock tierlock = Tierlock.builder().datastore(store).checkout(temp.resolve("taker"))
          .lockOptions(LockOptions.DEFAULTS.withTtl(TTL).withMaxWait(Duration.ZERO))
          .environment(Environment.system().withClock(clock).withSleeper(clock.sleeper())
              .withHeartbeats(ManualHeartbeats.create())).build();
      tierlock.checkDatastore();
      DistributedLock taker = tierlock.globalLock();
      assertThat(taker.tryAcquire()).as("the child's process runs: its lease is live").isEmpty();

      child.kill();
      DistributedLock.Held lease = taker.acquire();

      assertThat(clock.sleeps()).as("no wait at all").isEmpty();
      assertThat(clock.instant()).as("the record is as fresh as it was written").isEqualTo(holder.acquiredAt());
      LockInfo now = taker.inspect().orElseThrow();
      assertThat(now.nonce()).isEqualTo(lease.info().nonce()).isNotEqualTo(holder.nonce());
      assertThat(now.pid()).isEqualTo(ProcessHandle.current().pid());
      lease.release();
    }
    assertThat(store.stat(KEY)).isEmpty();
  }
}
