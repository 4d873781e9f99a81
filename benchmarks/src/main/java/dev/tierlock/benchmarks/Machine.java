package dev.tierlock.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Optional;

/**
 * What the numbers were measured on.
 *
 * @param cores the processors the JVM sees
 * @param cpu the processor's model name, where the OS tells
 * @param jdk the Java runtime's vendor, name and version
 * @param os the operating system, its version and architecture
 * @param date when the run started (UTC)
 * @param load the load averages (1, 5 and 15 minutes) when the run started
 */
record Machine(int cores, String cpu, String jdk, String os, String date, String load) {

  /** Returns this machine, now. */
  static Machine current() {
    return new Machine(Runtime.getRuntime().availableProcessors(), processor().orElse("unknown"),
        System.getProperty("java.vm.vendor") + " " + System.getProperty("java.vm.name") + " "
            + System.getProperty("java.runtime.version"),
        System.getProperty("os.name") + " " + System.getProperty("os.version") + " (" + System.getProperty("os.arch")
            + ")" + distribution().map(d -> ", " + d).orElse(""),
        ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")), loadNow());
  }

  /** Returns the load averages (1, 5 and 15 minutes) now, where the OS tells. */
  static String loadNow() {
    try {
      String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return fields[0] + ", " + fields[1] + ", " + fields[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  private static Optional<String> processor() {
    return firstValue(Path.of("/proc/cpuinfo"), "model name", ':');
  }

  private static Optional<String> distribution() {
    return firstValue(Path.of("/etc/os-release"), "PRETTY_NAME", '=').map(v -> v.replace("\"", ""));
  }

  private static Optional<String> firstValue(Path file, String key, char separator) {
    try {
      return Files.readAllLines(file).stream()
          .filter(line -> line.startsWith(key))
          .map(line -> line.substring(line.indexOf(separator) + 1).trim())
          .findFirst();
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
