package dev.tierlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.LockIdentity;
import java.lang.ref.Reference;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jspecify.annotations.NullMarked;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** The registry against other processes (child JVMs) and another class loader of this JVM. */
class OsLockRegistryProcessTest {

  private static final int ROUNDS = 150;

  @TempDir Path dir;

  private final OsLockRegistry registry = OsLockRegistry.shared();
  private final ManualTime clock = new ManualTime();

  @Test
  void acquire_heldByAnotherProcess_isBusyNamingThatProcess_andExcludesThisOneUntilItReleases() throws Exception {
    Path lockFile = dir.resolve("state/transaction.lock");
    Path journal = dir.resolve("journal.txt");

    try (ChildJvm child = ChildJvm.start("hold", lockFile.toString(), "the child's transaction")) {
      assertThat(child.nextLine()).isEqualTo("locked");

      OsLockRegistry.Attempt now = registry.tryAcquire(lockFile, "the parent", clock);
      assertThat(now).isInstanceOf(OsLockRegistry.Attempt.Busy.class);
      assertThat(((OsLockRegistry.Attempt.Busy) now).waited()).isZero();
      OsLockRegistry.Attempt later = registry.acquire(lockFile, "the parent", clock.waitFor(Duration.ofSeconds(2), Duration.ofMillis(100)));
      assertThat(later).isInstanceOf(OsLockRegistry.Attempt.Busy.class);
      OsLockRegistry.Attempt.Busy busy = (OsLockRegistry.Attempt.Busy) later;
      assertThat(busy.waited()).isEqualTo(Duration.ofSeconds(2));
      assertThat(clock.sleeps()).hasSize(20).allSatisfy(d -> assertThat(d).isEqualTo(Duration.ofMillis(100)));
      assertThat(busy.lockHolder()).hasValueSatisfying(holder -> {
        assertThat(holder.pid()).isEqualTo(child.pid());
        assertThat(holder.host()).isEqualTo(LockIdentity.current().hostname());
        assertThat(holder.guards()).isEqualTo("the child's transaction");
        assertThat(holder.processStart()).isEqualTo(ProcessHandle.of(child.pid()).orElseThrow().info().startInstant());
        assertThat(holder.describe()).startsWith("pid " + child.pid() + " on host " + holder.host() + " since ");
      });
      assertThat(registry.holder(lockFile)).isEqualTo(busy.holder());
      assertThat(registry.inUse(lockFile)).isFalse();

      // the exclusion itself: a thread of this process that waits for the lock writes only once the child released
      ExecutorService threads = Executors.newSingleThreadExecutor();
      try {
        Future<Void> parent = threads.submit(() -> {
          OsLockRegistry.Held held = acquired(registry.acquire(lockFile, "the parent",
              OsLockRegistry.Wait.until(java.time.Instant.now().plusSeconds(ChildJvm.WAIT_SECONDS), java.time.Clock.systemUTC(),
                  d -> Thread.yield(), Duration.ofMillis(1))));
          try {
            Files.writeString(journal, "parent\n", java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND);
          } finally {
            held.release();
          }
          return null;
        });
        child.send("append " + journal + " child holds");
        assertThat(child.nextLine()).isEqualTo("appended");
        child.send("append " + journal + " child still holds");
        assertThat(child.nextLine()).isEqualTo("appended");
        assertThat(parent).isNotDone();
        child.send("release");
        assertThat(child.nextLine()).isEqualTo("released");
        parent.get(ChildJvm.WAIT_SECONDS, TimeUnit.SECONDS);
      } finally {
        threads.shutdownNow();
      }
      assertThat(Files.readAllLines(journal)).containsExactly("child holds", "child still holds", "parent");
      assertThat(child.awaitExit()).isZero();
    }
    OsLockRegistry.Held mine = acquired(registry.tryAcquire(lockFile, "the parent", clock));
    mine.release();
    assertThat(Files.size(mine.lockFile())).as("release empties the lock file").isZero();
  }

  @Test
  void acquire_racingAnotherProcess_neverInterleaves() throws Exception {
    Path lockFile = dir.resolve("race.lock");
    Path shared = dir.resolve("shared.txt");

    try (ChildJvm child = ChildJvm.start("race", lockFile.toString(), shared.toString(), "child", Integer.toString(ROUNDS))) {
      assertThat(child.nextLine()).isEqualTo("ready");
      child.send("go");
      CompletableFuture<Void> parent = CompletableFuture.runAsync(() -> {
        try {
          LockChild.race(registry, lockFile, shared, "parent", ROUNDS);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      assertThat(child.nextLine()).isEqualTo("done");
      parent.get(ChildJvm.WAIT_SECONDS, TimeUnit.SECONDS);
      assertThat(child.awaitExit()).isZero();
    }

    List<String> lines = Files.readAllLines(shared);
    assertThat(lines).hasSize(4 * ROUNDS);
    for (int i = 0; i < lines.size(); i += 2) {
      assertThat(lines.get(i)).as("line %d", i).startsWith("begin ");
      assertThat(lines.get(i + 1)).as("the line after %s", lines.get(i)).isEqualTo("end " + lines.get(i).substring(6));
    }
  }

  @Test
  void tryAcquire_fromAnotherClassLoader_isBusyAndLeavesTheLockHeld() throws Exception {
    Path lockFile = dir.resolve("shared-state/pulled-extensions.lock");
    OsLockRegistry.Held held = acquired(registry.tryAcquire(lockFile, "class loader one", clock));
    List<URL> urls = new ArrayList<>();
    for (Class<?> type : List.of(OsLockRegistry.class, LoaderProbe.class, NullMarked.class, LoggerFactory.class)) {
      urls.add(ChildJvm.location(type).toUri().toURL());
    }
    URLClassLoader second = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
    try {
      Class<?> probeClass = second.loadClass(LoaderProbe.class.getName());
      assertThat(probeClass.getClassLoader()).isSameAs(second);
      assertThat(second.loadClass(OsLockRegistry.class.getName())).isNotSameAs(OsLockRegistry.class);
      @SuppressWarnings("unchecked")
      Function<Path, String> probe = (Function<Path, String>) probeClass.getDeclaredConstructor().newInstance();

      assertThat(probe.apply(lockFile)).as("the second class loader sees the lock busy").isEqualTo("busy");
      assertThat(probe.apply(lockFile)).isEqualTo("busy");

      assertThat(ChildJvm.probe(lockFile)).as("another process still finds the lock held").isEqualTo("busy");
      held.release();
      assertThat(probe.apply(lockFile)).as("once released, the second class loader can take it").isEqualTo("acquired");
      assertThat(ChildJvm.probe(lockFile)).isEqualTo("free");
      Reference.reachabilityFence(probe);
    } finally {
      second.close();
    }
  }

  @Test
  void acquireAndRelease_onAnInterruptedThread_neverLoseTheLock() throws Exception {
    // a FileChannel is closed by an interrupted thread's read, write or truncate, and closing drops the lock
    Path lockFile = dir.resolve("interrupted.lock");
    Thread.currentThread().interrupt();
    OsLockRegistry.Held held = acquired(registry.tryAcquire(lockFile, "an interrupted holder", clock));
    assertThat(Thread.interrupted()).as("the interrupt flag is kept").isTrue();
    assertThat(ChildJvm.probe(lockFile)).as("the lock survived writing the holder").isEqualTo("busy");

    CountDownLatch queued = new CountDownLatch(1);
    ExecutorService threads = Executors.newSingleThreadExecutor();
    try {
      Future<OsLockRegistry.Held> next = threads.submit(() -> acquired(registry.acquire(lockFile, "the next holder",
          OsLockRegistry.Wait.until(java.time.Instant.now().plusSeconds(ChildJvm.WAIT_SECONDS), java.time.Clock.systemUTC(),
              d -> Thread.yield(), Duration.ofMillis(1)).withOnQueued(queued::countDown))));
      assertThat(queued.await(ChildJvm.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
      Thread.currentThread().interrupt();
      held.release();
      assertThat(Thread.interrupted()).isTrue();

      OsLockRegistry.Held nextHeld = next.get(ChildJvm.WAIT_SECONDS, TimeUnit.SECONDS);
      assertThat(registry.holder(lockFile)).contains(nextHeld.holder().describe());
      assertThat(ChildJvm.probe(lockFile)).as("the channel emptied by an interrupted thread still locks").isEqualTo("busy");
      nextHeld.release();
    } finally {
      threads.shutdownNow();
    }
    assertThat(ChildJvm.probe(lockFile)).isEqualTo("free");
  }

  static OsLockRegistry.Held acquired(OsLockRegistry.Attempt attempt) {
    assertThat(attempt).isInstanceOf(OsLockRegistry.Attempt.Acquired.class);
    return ((OsLockRegistry.Attempt.Acquired) attempt).lock();
  }
}
