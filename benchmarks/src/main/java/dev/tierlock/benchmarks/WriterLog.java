package dev.tierlock.benchmarks;

import dev.tierlock.ExtensionName;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What one writer of a contended run did: each commit it tried, its change (a name of its own, a
 * version of its own), when it started and ended, and how it ended. Written by its writer's thread
 * alone, read once the thread has ended (or was given up on).
 */
final class WriterLog {

  /**
   * One commit.
   *
   * @param sequence the writer's count of commits, from 1; names its change
   * @param startNanos {@link System#nanoTime()} when it started
   * @param endNanos when it returned or threw
   * @param error the failure's code, null when acknowledged
   */
  record Attempt(long sequence, long startNanos, long endNanos, @Nullable String error) {
    boolean acknowledged() {
      return error == null;
    }
  }

  private final int writer;
  private final List<Attempt> attempts = new ArrayList<>();

  WriterLog(int writer) {
    this.writer = writer;
  }

  /** Returns the name writer {@code writer}'s commit {@code sequence} sets: each commit a name of its own. */
  static ExtensionName name(int writer, long sequence) {
    return ExtensionName.of("@bench/w" + writer + "-c" + sequence);
  }

  /** Returns the version commit {@code sequence} sets its name to. */
  static String version(long sequence) {
    return "1.0." + sequence;
  }

  int writer() {
    return writer;
  }

  synchronized void add(Attempt attempt) {
    attempts.add(attempt);
  }

  /** Returns a copy of the attempts so far (a writer that never returned may still be inside one). */
  synchronized List<Attempt> attempts() {
    return List.copyOf(attempts);
  }
}
