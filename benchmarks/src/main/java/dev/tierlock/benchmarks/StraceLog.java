package dev.tierlock.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The system calls an {@code strace -f -o FILE} log holds between two marks the traced process
 * leaves in it ({@link #mark}): each mark is the {@code unlink} of a file of its own name, so the
 * calls of the work between the marks are counted exactly, whatever the process did before (its
 * start, its set-up, a self-check whose racing probes vary from run to run) or after.
 */
final class StraceLog {

  /** The name of the begin mark's file. */
  static final String BEGIN = "tierlock-strace-begin";
  /** The name of the end mark's file. */
  static final String END = "tierlock-strace-end";

  /** A call line: an optional pid, the call's name, its opening parenthesis. */
  private static final Pattern CALL = Pattern.compile("^(?:\\[pid\\s+)?(?:\\d+\\]?\\s+)?([a-z_0-9]+)\\(");

  private StraceLog() {}

  /**
   * Leaves the mark {@code name} in the trace of this process: creates the file in
   * {@code directory} and unlinks it, so the log holds one successful {@code unlink} naming it.
   *
   * @param directory where the mark's file is made and removed
   * @param name {@link #BEGIN} or {@link #END}
   * @throws IOException if the file cannot be made or removed
   */
  static void mark(Path directory, String name) throws IOException {
    Path file = directory.resolve(name);
    Files.deleteIfExists(file);
    Files.createFile(file);
    Files.delete(file);
  }

  /**
   * Counts the calls between the begin and the end mark, by name. A call strace splits across two
   * lines (another thread's call came between) is counted once, at its {@code <unfinished ...>}
   * line; signals and exits are not calls.
   *
   * @param lines the log, as {@code strace -f -o} writes it
   * @return calls by system call name, the marks' own unlinks not counted
   * @throws IllegalArgumentException if the log lacks a mark, or holds the end before the begin
   */
  static Map<String, Long> between(List<String> lines) {
    int begin = markLine(lines, BEGIN, 0);
    int end = markLine(lines, END, begin + 1);
    Map<String, Long> calls = new TreeMap<>();
    for (String line : lines.subList(begin + 1, end)) {
      Matcher m = CALL.matcher(line.strip());
      if (m.find()) {
        calls.merge(m.group(1), 1L, Long::sum);
      }
    }
    return calls;
  }

  /** Reads the log at {@code file} and counts as {@link #between(List)} does. */
  static Map<String, Long> between(Path file) throws IOException {
    return between(Files.readAllLines(file));
  }

  private static int markLine(List<String> lines, String name, int from) {
    for (int i = from; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.contains(name + "\"") && CALL.matcher(line.strip()).find() && line.contains("unlink")) {
        return i;
      }
    }
    throw new IllegalArgumentException("Cannot count the traced work: the log holds no " + name + " mark"
        + (from > 0 ? " after its begin mark" : ""));
  }
}
