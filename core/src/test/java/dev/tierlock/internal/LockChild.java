package dev.tierlock.internal;

import dev.tierlock.Sleeper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * The program {@link ChildJvm} runs in a second JVM. Modes:
 *
 * <ul>
 *   <li>{@code hold <lock file> <guards>}: takes the lock through {@link OsLockRegistry#shared()},
 *       prints {@code locked}, then obeys lines: {@code append <file> <text>} appends a line to a
 *       file under the lock and prints {@code appended}; {@code release} releases, prints {@code
 *       released} and ends;
 *   <li>{@code race <lock file> <shared file> <label> <rounds>}: prints {@code ready}, waits for a
 *       line, then {@link #race races} and prints {@code done};
 *   <li>{@code probe <lock file>}: tries the OS lock once with a plain {@code FileChannel} of its
 *       own, independent of the code under test, and prints {@code free} or {@code busy}.
 * </ul>
 */
final class LockChild {

  private LockChild() {}

  public static void main(String[] args) throws IOException, InterruptedException {
    BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    Path lockFile = Path.of(args[1]);
    switch (args[0]) {
      case "hold" -> hold(lockFile, args[2], stdin);
      case "race" -> {
        System.out.println("ready");
        System.out.flush();
        stdin.readLine();
        race(OsLockRegistry.shared(), lockFile, Path.of(args[2]), args[3], Integer.parseInt(args[4]));
        System.out.println("done");
      }
      case "probe" -> {
        try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
          FileLock lock = channel.tryLock();
          System.out.println(lock == null ? "busy" : "free");
        }
      }
      default -> throw new IllegalArgumentException("unknown mode " + args[0]);
    }
    System.out.flush();
  }

  private static void hold(Path lockFile, String guards, BufferedReader stdin) throws IOException, InterruptedException {
    Clock clock = Clock.systemUTC();
    OsLockRegistry.Attempt attempt = OsLockRegistry.shared().acquire(lockFile, guards,
        OsLockRegistry.Wait.until(clock.instant().plusSeconds(ChildJvm.WAIT_SECONDS), clock, Sleeper.SYSTEM::sleep, Duration.ofMillis(5)));
    OsLockRegistry.Held held = ((OsLockRegistry.Attempt.Acquired) attempt).lock();
    System.out.println("locked");
    System.out.flush();
    for (String line = stdin.readLine(); line != null; line = stdin.readLine()) {
      if (line.startsWith("append ")) {
        String[] parts = line.split(" ", 3);
        Files.writeString(Path.of(parts[1]), parts[2] + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        System.out.println("appended");
        System.out.flush();
      } else if (line.equals("release")) {
        break;
      }
    }
    held.release();
    System.out.println("released");
  }

  /**
   * Takes the lock {@code rounds} times; each time appends {@code begin <label> <i>} to the shared
   * file, checks that it is the file's last line, and appends {@code end <label> <i>}. Fails if
   * another holder wrote in between: then the lock did not exclude it.
   */
  static void race(OsLockRegistry registry, Path lockFile, Path shared, String label, int rounds)
      throws IOException, InterruptedException {
    Clock clock = Clock.systemUTC();
    Sleeper yielding = d -> Thread.yield();
    for (int i = 0; i < rounds; i++) {
      OsLockRegistry.Attempt attempt = registry.acquire(lockFile, label + " round " + i,
          OsLockRegistry.Wait.until(clock.instant().plusSeconds(ChildJvm.WAIT_SECONDS), clock, yielding::sleep, Duration.ofMillis(1)));
      OsLockRegistry.Held held = ((OsLockRegistry.Attempt.Acquired) attempt).lock();
      try {
        String begin = "begin " + label + " " + i;
        Files.writeString(shared, begin + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        List<String> lines = Files.readAllLines(shared);
        if (!lines.get(lines.size() - 1).equals(begin)) {
          throw new IllegalStateException("Cannot trust the lock: another holder wrote after " + begin);
        }
        Files.writeString(shared, "end " + label + " " + i + "\n", StandardOpenOption.APPEND);
      } finally {
        held.release();
      }
    }
  }
}
