package dev.tierlock.internal;

import java.time.DateTimeException;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Who holds a lock file, as its holder writes it into the file: a name ({@code user@host} and the
 * thread), the host, the process id and the process's start time (so that a reused pid is told
 * apart), when it acquired the lock, and what the lock guards. Stored as {@code key: value} lines,
 * readable by an operator with {@code cat}. Immutable.
 */
final class LockHolder {

  private static final String HEADER = "# Tierlock lock holder (rewritten by every holder, emptied on release)";

  private final String name;
  private final String host;
  private final long pid;
  private final @Nullable Instant processStart;
  private final Instant acquiredAt;
  private final String guards;

  private LockHolder(String name, String host, long pid, @Nullable Instant processStart, Instant acquiredAt,
      String guards) {
    this.name = oneLine(name);
    this.host = oneLine(host);
    this.pid = pid;
    this.processStart = processStart;
    this.acquiredAt = acquiredAt;
    this.guards = oneLine(guards);
  }

  /**
   * {@return a holder with these values; line breaks in the texts become spaces}
   *
   * @param name who holds the lock
   * @param host the holder's host name
   * @param pid the holder's process id
   * @param processStart when the holder's process started, if known
   * @param acquiredAt when the holder acquired the lock
   * @param guards what the lock guards
   */
  static LockHolder of(String name, String host, long pid, @Nullable Instant processStart, Instant acquiredAt,
      String guards) {
    return new LockHolder(name, host, pid, processStart, acquiredAt, guards);
  }

  /**
   * {@return the current thread of this process as the holder of a lock that guards {@code guards}}
   *
   * @param guards what the lock guards
   * @param acquiredAt when the holder acquired the lock
   */
  static LockHolder current(String guards, Instant acquiredAt) {
    return new LockHolder(ThisProcess.USER + "@" + ThisProcess.HOST + ", thread " + Thread.currentThread().getName(),
        ThisProcess.HOST, ProcessHandle.current().pid(), ThisProcess.START, acquiredAt, guards);
  }

  /** {@return the holder's name: {@code user@host, thread <name>}} */
  String name() {
    return name;
  }

  /** {@return the holder's host name} */
  String host() {
    return host;
  }

  /** {@return the holder's process id} */
  long pid() {
    return pid;
  }

  /** {@return when the holder's process started, if known} */
  Optional<Instant> processStart() {
    return Optional.ofNullable(processStart);
  }

  /** {@return when the holder acquired the lock, on its own clock} */
  Instant acquiredAt() {
    return acquiredAt;
  }

  /** {@return what the lock guards, as the holder put it} */
  String guards() {
    return guards;
  }

  /**
   * {@return the holder for messages: {@code pid 4242 on host h since <acquired>; started <process
   * start> (<name>; guards <what>)}}
   */
  String describe() {
    return "pid " + pid + " on host " + host + " since " + acquiredAt + "; started "
        + (processStart == null ? "at an unknown time" : processStart.toString()) + " (" + name + "; guards " + guards + ")";
  }

  /**
   * {@return what this host can tell of the holder's process now: {@code "is stopped"} (SIGSTOP, or
   * stopped by a tracer), {@code "is running"}, or empty when it cannot tell} It tells only when the
   * holder wrote this host's name, a process with the holder's pid started at the holder's
   * recorded start time (so a reused pid, or a pid of another pid namespace, is never taken for
   * it), and {@code /proc/<pid>/stat} can be read (Linux). For messages only: nothing is decided on it.
   */
  Optional<String> processState() {
    if (!host.equals(ThisProcess.HOST) || processStart == null) {
      return Optional.empty();
    }
    Optional<Instant> started = ProcessHandle.of(pid).flatMap(h -> h.info().startInstant());
    if (started.isEmpty() || !started.get().equals(processStart)) {
      return Optional.empty();
    }
    try {
      String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc", Long.toString(pid), "stat"));
      int end = stat.lastIndexOf(')');
      if (end < 0 || end + 2 >= stat.length()) {
        return Optional.empty();
      }
      char state = stat.charAt(end + 2);
      return Optional.of(state == 'T' || state == 't' ? "is stopped" : "is running");
    } catch (java.io.IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** {@return the lock file content that {@link #parse} reads back} */
  String encode() {
    return HEADER + "\nholder: " + name + "\nhost: " + host + "\npid: " + pid + "\nstarted: "
        + (processStart == null ? "unknown" : processStart.toString()) + "\nacquired: " + acquiredAt + "\nguards: " + guards
        + "\n";
  }

  /**
   * Reads a lock file's content. Lenient: unknown lines are ignored, and a content without host,
   * pid and acquired-at (an empty file, a holder caught half-way through writing, another tool's
   * content) is empty.
   *
   * @param content the lock file's text
   * @return the holder the content names, or empty when it names none
   */
  static Optional<LockHolder> parse(String content) {
    Map<String, String> fields = new HashMap<>();
    for (String line : content.split("\n", -1)) {
      int colon = line.indexOf(": ");
      if (!line.startsWith("#") && colon > 0) {
        fields.putIfAbsent(line.substring(0, colon).strip(), line.substring(colon + 2).strip());
      }
    }
    String host = fields.get("host");
    String pid = fields.get("pid");
    String acquired = fields.get("acquired");
    if (host == null || host.isEmpty() || pid == null || acquired == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(new LockHolder(fields.getOrDefault("holder", "unknown"), host, Long.parseLong(pid),
          instantOrNull(fields.get("started")), Instant.parse(acquired), fields.getOrDefault("guards", "")));
    } catch (NumberFormatException | DateTimeException e) {
      return Optional.empty();
    }
  }

  private static @Nullable Instant instantOrNull(@Nullable String text) {
    if (text == null) {
      return null;
    }
    try {
      return Instant.parse(text);
    } catch (DateTimeException e) {
      return null;
    }
  }

  private static String oneLine(String text) {
    return text.replace('\r', ' ').replace('\n', ' ');
  }

  @Override
  public boolean equals(@Nullable Object other) {
    return other instanceof LockHolder that && pid == that.pid && name.equals(that.name) && host.equals(that.host)
        && Objects.equals(processStart, that.processStart) && acquiredAt.equals(that.acquiredAt)
        && guards.equals(that.guards);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, host, pid, processStart, acquiredAt, guards);
  }

  @Override
  public String toString() {
    return "LockHolder[" + describe() + "]";
  }
}
