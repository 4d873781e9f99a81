package dev.tierlock.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Counts the {@code FileChannel.force} calls (fsyncs of files and of directories) every thread of
 * this JVM makes between {@link #start} and {@link #stop}: a Flight Recorder recording of the
 * {@code jdk.FileForce} event with no threshold and no stack traces. Not thread-safe: one caller
 * starts and stops it.
 */
final class FileForces {

  private static final String EVENT = "jdk.FileForce";

  /**
   * The forces counted.
   *
   * @param all every thread's
   * @param allSeconds how long they took, summed over every thread
   * @param onThread those of the thread named at {@link #start}
   * @param onThreadSeconds how long that thread spent in them
   */
  record Counted(long all, double allSeconds, long onThread, double onThreadSeconds) {}

  private final Recording recording;
  private final String thread;

  private FileForces(Recording recording, String thread) {
    this.recording = recording;
    this.thread = thread;
  }

  /**
   * Starts counting, the forces of the thread named {@code thread} also apart; empty where this JVM
   * cannot record (the counts are then reported as missing).
   */
  static Optional<FileForces> start(String thread) {
    try {
      Recording recording = new Recording();
      recording.enable(EVENT).withThreshold(Duration.ZERO).withoutStackTrace();
      recording.setToDisk(true);
      recording.start();
      return Optional.of(new FileForces(recording, thread));
    } catch (RuntimeException | NoClassDefFoundError e) {
      return Optional.empty();
    }
  }

  /** Stops counting; returns the forces seen, or empty if the recording cannot be read back. */
  Optional<Counted> stop() {
    Path file = null;
    try (Recording r = recording) {
      r.stop();
      file = Files.createTempFile("tierlock-bench-forces-", ".jfr");
      r.dump(file);
      long forces = 0;
      long nanos = 0;
      long onThread = 0;
      long onThreadNanos = 0;
      try (RecordingFile events = new RecordingFile(file)) {
        while (events.hasMoreEvents()) {
          RecordedEvent event = events.readEvent();
          if (!event.getEventType().getName().equals(EVENT)) {
            continue;
          }
          forces++;
          nanos += event.getDuration().toNanos();
          RecordedThread by = event.getThread();
          if (by != null && thread.equals(by.getJavaName())) {
            onThread++;
            onThreadNanos += event.getDuration().toNanos();
          }
        }
      }
      return Optional.of(new Counted(forces, nanos / 1e9, onThread, onThreadNanos / 1e9));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    } finally {
      if (file != null) {
        try {
          Files.deleteIfExists(file);
        } catch (IOException e) {
          // a recording left in the temp directory measures nothing
        }
      }
    }
  }
}
