package dev.tierlock.benchmarks;

import java.io.PrintStream;

/** Prints what the benchmark is doing, each line with the time since it started. */
final class Progress {

  private final PrintStream out;
  private final long start = System.nanoTime();

  Progress(PrintStream out) {
    this.out = out;
  }

  /** Prints {@code line}, prefixed with {@code [mm:ss]}. */
  void say(String line) {
    long seconds = elapsedSeconds();
    out.printf("[%02d:%02d] %s%n", seconds / 60, seconds % 60, line);
    out.flush();
  }

  /** Returns the seconds since the benchmark started. */
  long elapsedSeconds() {
    return (System.nanoTime() - start) / 1_000_000_000L;
  }
}
