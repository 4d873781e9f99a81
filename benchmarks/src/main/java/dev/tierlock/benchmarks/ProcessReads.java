package dev.tierlock.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/** This process's {@code rchar}: the bytes all its threads passed to {@code read}-like calls, where Linux tells. */
final class ProcessReads {

  private static final Path IO = Path.of("/proc/self/io");

  private ProcessReads() {}

  /** Returns the bytes this process has read so far, or empty where the kernel does not tell. */
  static OptionalLong now() {
    try {
      for (String line : Files.readAllLines(IO)) {
        if (line.startsWith("rchar:")) {
          return OptionalLong.of(Long.parseLong(line.substring("rchar:".length()).trim()));
        }
      }
      return OptionalLong.empty();
    } catch (IOException | RuntimeException e) {
      return OptionalLong.empty();
    }
  }
}
