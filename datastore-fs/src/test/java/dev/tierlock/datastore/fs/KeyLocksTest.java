package dev.tierlock.datastore.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.testkit.TestClock;
import java.net.URI;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeyLocksTest {

  @TempDir
  Path dir;

  private final TestClock clock = TestClock.create();

  @Test
  void acquire_heldInThisJvm_waitsOnTheInjectedClockUntilTheTimeout() throws Exception {
    Path file = dir.resolve("k.lock");
    KeyLocks other = new KeyLocks(FileSystemDatastoreOptions.defaults());

    KeyLocks.Held held = other.acquire(file).orElseThrow();
    try (held) {
      Optional<KeyLocks.Held> second = locks(Duration.ofMillis(200)).acquire(file);

      assertThat(second).isEmpty();
      assertThat(clock.sleeps()).startsWith(Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(4))
          .allSatisfy(d -> assertThat(d).isLessThanOrEqualTo(Duration.ofMillis(50)));
      assertThat(clock.sleeps().stream().reduce(Duration.ZERO, Duration::plus)).isEqualTo(Duration.ofMillis(200));
    }
    assertThat(KeyLocks.inUse(file)).isFalse();
  }

  @Test
  void acquire_zeroTimeout_triesOnce() throws Exception {
    Path file = dir.resolve("k.lock");
    KeyLocks other = new KeyLocks(FileSystemDatastoreOptions.defaults());

    KeyLocks.Held held = other.acquire(file).orElseThrow();
    try (held) {
      assertThat(locks(Duration.ZERO).acquire(file)).isEmpty();
      assertThat(clock.sleeps()).isEmpty();
    }
  }

  @Test
  void acquire_afterRelease_succeedsAndReleasesEverything() throws Exception {
    Path file = dir.resolve("locks/k.lock");
    KeyLocks locks = locks(Duration.ofSeconds(1));

    KeyLocks.Held first = locks.acquire(file).orElseThrow();
    assertThat(KeyLocks.inUse(file)).isTrue();
    first.close();
    first.close();
    KeyLocks.Held second = locks.acquire(file).orElseThrow();
    try (second) {
      assertThat(file).exists();
      assertThat(locks.excludesProcesses()).isTrue();
    }
    assertThat(KeyLocks.inUse(file)).isFalse();
    assertThat(clock.sleeps()).isEmpty();
  }

  @Test
  void acquire_interrupted_throwsAndReleasesEverything() throws Exception {
    Path file = dir.resolve("k.lock");
    KeyLocks other = new KeyLocks(FileSystemDatastoreOptions.defaults());

    KeyLocks.Held held = other.acquire(file).orElseThrow();
    try (held) {
      Thread.currentThread().interrupt();
      assertThatThrownBy(() -> locks(Duration.ofSeconds(1)).acquire(file))
          .isExactlyInstanceOf(InterruptedException.class)
          .hasMessageContaining("Interrupted before a test-clock sleep");
    }
    assertThat(KeyLocks.inUse(file)).isFalse();
  }

  @Test
  void acquire_onAProviderThatCannotLockFiles_fallsBackToTheInJvmPermit() throws Exception {
    // the JDK's runtime image file system is read-only: it cannot open a channel to lock
    Path file = FileSystems.getFileSystem(URI.create("jrt:/")).getPath("/modules/java.base/tierlock.lock");
    KeyLocks locks = locks(Duration.ofMillis(10));

    KeyLocks.Held held = locks.acquire(file).orElseThrow();
    try (held) {
      assertThat(locks.excludesProcesses()).isFalse();
      assertThat(locks.acquire(file)).isEmpty();
    }
    KeyLocks.Held again = locks.acquire(file).orElseThrow();
    again.close();
    assertThat(KeyLocks.inUse(file)).isFalse();
  }

  private KeyLocks locks(Duration timeout) {
    return new KeyLocks(new FileSystemDatastoreOptions(timeout, clock, clock.sleeper()));
  }
}
