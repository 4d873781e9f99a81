package dev.tierlock.datastore.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tierlock.DistributedLock;
import dev.tierlock.Environment;
import dev.tierlock.HostProcesses;
import dev.tierlock.LockInfo;
import dev.tierlock.LockOptions;
import dev.tierlock.LockTimeoutException;
import dev.tierlock.Namespace;
import dev.tierlock.Tierlock;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.testkit.ChildLockHolder;
import dev.tierlock.testkit.ManualHeartbeats;
import dev.tierlock.testkit.TestClock;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A live holder of the global lease in another pid namespace of this host (a container that shares
 * the host's name, as Docker's {@code --network host} or Kubernetes' {@code hostNetwork} do; here a
 * child JVM under {@code unshare --pid --fork --mount-proc}) is never taken over at first sight:
 * its pid means nothing in this process's namespace, whatever runs under that pid here. Its record
 * names this host and a process start, yet another pid namespace, so the taker waits out its ttl.
 * Skipped, with the reason, where {@code unshare} cannot make a pid namespace (not root, no user
 * namespaces, not Linux).
 */
class FileSystemLeasePidNamespaceProcessTest {

  private static final ObjectKey KEY = DistributedLock.globalKey(Namespace.NONE);
  private static final Duration TTL = Duration.ofMinutes(10);
  /** The ways to start a child in a pid namespace of its own: as root, else in a user namespace of its own. */
  private static final List<List<String>> UNSHARE = List.of(
      List.of("unshare", "--pid", "--fork", "--mount-proc", "--kill-child"),
      List.of("unshare", "--user", "--map-root-user", "--pid", "--fork", "--mount-proc", "--kill-child"));

  @TempDir
  Path temp;

  @Test
  void aLiveHolderInAnotherPidNamespaceOfThisHost_isNotTakenOverAtFirstSight() throws Exception {
    List<String> unshare = pidNamespaceWrapper();
    assumeTrue(!unshare.isEmpty(), "neither 'unshare --pid --fork --mount-proc' nor 'unshare --user --map-root-user"
        + " --pid --fork --mount-proc' can run here (they need Linux with util-linux, and root or unprivileged user"
        + " namespaces): the end-to-end case of a holder in another pid namespace is skipped; HostProcessesTest and"
        + " the lock contract (tryAcquire_liveHolderInAnotherPidNamespaceOfThisHost_waitsOutItsTtl) cover the rule");
    assumeTrue(HostProcesses.system().processNamespace().isPresent(), "this JVM cannot read its boot id and pid"
        + " namespace from /proc: it never takes a dead-pid shortcut, so there is nothing to prove here");
    FileSystemDatastore store = FileSystemDatastore.open(temp.resolve("shared"));
    try (ChildLockHolder child = ChildLockHolder.holdingLease(unshare, store.root().toUri(), temp.resolve("child"), TTL)) {
      LockInfo holder = LockInfo.parse(KEY.value(), ((ReadResult.Found) store.read(KEY, ReadCondition.always(),
          LockInfo.MAX_BYTES)).bytes());
      assertThat(holder.hostname()).as("the child shares this host's name").isEqualTo(HostProcesses.system().hostname());
      assertThat(holder.processStart()).as("its record pins a process, by a pid of its own namespace").isPresent();
      assertThat(holder.processNamespace()).as("and names that namespace, not ours").isPresent()
          .isNotEqualTo(HostProcesses.system().processNamespace());
      assertThat(holder.processNamespace().orElseThrow().bootId()).as("one kernel, one boot")
          .isEqualTo(HostProcesses.system().processNamespace().orElseThrow().bootId());
      TestClock clock = TestClock.at(holder.acquiredAt());
      Tierlock tierlock = Tierlock.builder().datastore(store).checkout(temp.resolve("taker"))
          .lockOptions(LockOptions.DEFAULTS.withTtl(TTL).withMaxWait(Duration.ZERO))
          .environment(Environment.system().withClock(clock).withSleeper(clock.sleeper())
              .withHeartbeats(ManualHeartbeats.create())).build();
      tierlock.checkDatastore();
      DistributedLock taker = tierlock.globalLock();

      assertThat(taker.tryAcquire()).as("pid %d of another namespace: its lease is live", holder.pid()).isEmpty();
      assertThatThrownBy(taker::acquire).isInstanceOf(LockTimeoutException.class)
          .hasMessageStartingWith("Cannot acquire lock \"" + KEY.value() + "\": held by " + holder.holder());

      assertThat(taker.inspect()).as("the child still holds it").hasValueSatisfying(
          now -> assertThat(now.nonce()).isEqualTo(holder.nonce()));
      child.release();
    }
    assertThat(store.stat(KEY)).as("the child released its own lease").isEmpty();
  }

  /** Returns the first of {@link #UNSHARE} that runs a command in a pid namespace of its own here, or an empty list. */
  private static List<String> pidNamespaceWrapper() throws InterruptedException {
    for (List<String> wrapper : UNSHARE) {
      try {
        Process probe = new ProcessBuilder(concat(wrapper, List.of("true"))).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!probe.waitFor(60, TimeUnit.SECONDS)) {
          probe.destroyForcibly();
        } else if (probe.exitValue() == 0) {
          return wrapper;
        }
      } catch (IOException e) {
        // no unshare on this machine: the next wrapper fails alike
      }
    }
    return List.of();
  }

  private static List<String> concat(List<String> first, List<String> second) {
    return java.util.stream.Stream.concat(first.stream(), second.stream()).toList();
  }
}
