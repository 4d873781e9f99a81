package dev.tierlock.datastore.s3;

import dev.tierlock.TransactionStatus;
import java.util.List;
import java.util.stream.LongStream;

/**
 * One change a peer process made to the shared lockfile in a transaction of its own, and what the
 * transaction told it. The process names its commit ids {@code <process>-<n>} with one counter, so
 * the ids of this transaction's publish attempts are {@code commitsBefore + 1} to {@code
 * commitsAfter}: a lockfile the server stored with one of them is this change's publication.
 *
 * @param process the process name
 * @param sequence the change's place among the process's changes, from 1
 * @param operation what the change did
 * @param name the extension name it changed
 * @param version the version it wrote; {@link #NO_VERSION} for a removal
 * @param status what the transaction returned
 * @param attempts how many publish attempts it made
 * @param commitsBefore the process's commit counter before the transaction
 * @param commitsAfter the process's commit counter after it
 * @param millis how long the transaction took, lock wait included
 */
record AcknowledgedChange(String process, int sequence, Operation operation, String name, String version,
    TransactionStatus status, int attempts, long commitsBefore, long commitsAfter, long millis) {

  /** The version field of a removal. */
  static final String NO_VERSION = "-";

  /** What a change did to its name. */
  enum Operation {
    /** Set the name to a version. */
    PUT,
    /** Removed the name. */
    REMOVE
  }

  AcknowledgedChange {
    if (!process.matches("[a-z]+") || sequence < 1 || name.isBlank() || version.isBlank() || attempts < 0
        || commitsAfter < commitsBefore || millis < 0) {
      throw new IllegalArgumentException("Cannot describe a change of process " + process + " #" + sequence
          + ": a value is out of range");
    }
    if ((operation == Operation.REMOVE) != version.equals(NO_VERSION)) {
      throw new IllegalArgumentException("Cannot describe change " + process + " #" + sequence
          + ": a removal has version " + NO_VERSION + " and a put has another");
    }
  }

  /** Returns the line the peer process logs for this change. */
  String line() {
    return String.join(" ", "ack", process, Integer.toString(sequence), operation.name(), name, version, status.name(),
        Integer.toString(attempts), Long.toString(commitsBefore), Long.toString(commitsAfter), Long.toString(millis));
  }

  /**
   * Parses a line written by {@link #line()}.
   *
   * @throws IllegalArgumentException if it is not one
   */
  static AcknowledgedChange parse(String line) {
    String[] f = line.trim().split(" ");
    if (f.length != 11 || !f[0].equals("ack")) {
      throw new IllegalArgumentException("Cannot parse change line \"" + line + "\": not an ack line of 11 fields");
    }
    try {
      return new AcknowledgedChange(f[1], Integer.parseInt(f[2]), Operation.valueOf(f[3]), f[4], f[5],
          TransactionStatus.valueOf(f[6]), Integer.parseInt(f[7]), Long.parseLong(f[8]), Long.parseLong(f[9]),
          Long.parseLong(f[10]));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Cannot parse change line \"" + line + "\": " + e.getMessage(), e);
    }
  }

  /** Returns the commit ids this change's publish attempts used. */
  List<String> commitIds() {
    return LongStream.rangeClosed(commitsBefore + 1, commitsAfter).mapToObj(n -> process + "-" + n).toList();
  }

  /** Returns a short form for messages: {@code alpha#12 PUT @a/b 1.0.0 PUBLISHED}. */
  String shortForm() {
    return process + "#" + sequence + " " + operation + " " + name + " " + version + " " + status;
  }
}
