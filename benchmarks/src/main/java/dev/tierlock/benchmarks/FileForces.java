package dev.tierlock.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordingFile;

/**
 * Counts the {@code FileChannel.force} calls (fsyncs of files and of directories) every thread of
 * this JVM makes between {@link #start} and {@link #stop}: a Flight Recorder recording of the
 * {@code jdk.FileForce} event with no threshold and no stack traces. Not thread-safe: one caller
 * starts and stops it.
 */
final class FileForces {

  private static final String EVENT = "jdk.FileForce";

  private final Recording recording;

  private FileForces(Recording recording) {
    this.recording = recording;
  }

  /** Starts counting; empty where this JVM cannot record (the counts are then reported as missing). */
  static Optional<FileForces> start() {
    try {
      Recording recording = new Recording();
      recording.enable(EVENT).withThreshold(Duration.ZERO).withoutStackTrace();
      recording.setToDisk(true);
      recording.start();
      return Optional.of(new FileForces(recording));
    } catch (RuntimeException | NoClassDefFoundError e) {
      return Optional.empty();
    }
  }

  /** Stops counting; returns the forces seen, or empty if the recording cannot be read back. */
  OptionalLong stop() {
    Path file = null;
    try (Recording r = recording) {
      r.stop();
      file = Files.createTempFile("tierlock-bench-forces-", ".jfr");
      r.dump(file);
      long forces = 0;
      try (RecordingFile events = new RecordingFile(file)) {
        while (events.hasMoreEvents()) {
          if (events.readEvent().getEventType().getName().equals(EVENT)) {
            forces++;
          }
        }
      }
      return OptionalLong.of(forces);
    } catch (IOException | RuntimeException e) {
      return OptionalLong.empty();
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
