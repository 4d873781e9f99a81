package dev.tierlock.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * The bytes the current thread has passed to {@code write(2)} and {@code pwrite(2)} since it
 * started: Linux's {@code wchar} of {@code /proc/thread-self/io}. Every local file write of the JDK
 * (streams and channels alike) goes through those calls.
 */
final class ThreadWrites {

  private static final Path IO = Path.of("/proc/thread-self/io");

  private ThreadWrites() {}

  /** Returns the current thread's written bytes, or empty where the kernel does not tell. */
  static OptionalLong now() {
    try {
      for (String line : Files.readAllLines(IO)) {
        if (line.startsWith("wchar:")) {
          return OptionalLong.of(Long.parseLong(line.substring("wchar:".length()).trim()));
        }
      }
      return OptionalLong.empty();
    } catch (IOException | RuntimeException e) {
      return OptionalLong.empty();
    }
  }
}
