package dev.tierlock.cli;

import dev.tierlock.HostProcesses;
import dev.tierlock.LockInfo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What this process can tell of the process a lock names (the global lease's holder, the checkout
 * lock's): alive, stopped ({@code SIGSTOP}, a debugger), gone, or nothing, when its pid cannot be
 * read here (another host, or another pid namespace or boot of this host's name). A pid is read
 * only where it provably means the holder's process: the lease record names this host, boot and pid
 * namespace ({@link HostProcesses#sharesProcessTable}), or the checkout lock file (local to this
 * checkout) names this host and a start time the running process matches. Stopped is read from
 * {@code /proc/<pid>/stat} (state {@code T} or {@code t}); where there is none, a running process
 * reads as alive. For {@code lock status} and {@code doctor} only: no lock is ever taken over by it.
 * Immutable.
 *
 * @param state what is known of the process
 * @param pid the process id the lock names
 * @param note how a report says it, starting with {@code ", "}, or empty when nothing is known
 */
record HolderProcess(State state, long pid, String note) {

  /** What is known of a holder's process. */
  enum State {
    /** It runs here and is not stopped. */
    ALIVE,
    /** It runs here and is stopped: it renews nothing until resumed. */
    STOPPED,
    /** It no longer runs here (or its pid names another process now). */
    GONE,
    /** Its pid cannot be read here. */
    UNKNOWN
  }

  /** {@return what this host can tell of the lease holder's process} */
  static HolderProcess ofLease(LockInfo holder, HostProcesses processes) {
    if (!holder.hostname().equals(processes.hostname())) {
      return new HolderProcess(State.UNKNOWN, holder.pid(), "");
    }
    if (!processes.sharesProcessTable(holder)) {
      return new HolderProcess(State.UNKNOWN, holder.pid(), holder.processNamespace().isEmpty()
          ? ", its record names no pid namespace: its pid cannot be checked here"
          : ", another pid namespace or boot of this host name: its pid cannot be checked here");
    }
    if (!processes.isRunning(holder.pid())) {
      return new HolderProcess(State.GONE, holder.pid(), ", no such process on this host");
    }
    if (processes.isGone(holder)) {
      return new HolderProcess(State.GONE, holder.pid(), ", now another process's on this host");
    }
    return running(holder.pid());
  }

  /**
   * {@return what this host can tell of the checkout lock holder's process: {@code pid} on {@code
   * host}, started at {@code start} (null when the lock file does not say)}
   */
  static HolderProcess ofCheckoutLock(String host, long pid, @Nullable Instant start, HostProcesses processes) {
    if (!host.equals(processes.hostname())) {
      return new HolderProcess(State.UNKNOWN, pid, "");
    }
    if (!processes.isRunning(pid)) {
      return new HolderProcess(State.GONE, pid, ", no such process on this host");
    }
    Optional<Instant> now = processes.startOf(pid);
    if (start == null || now.isEmpty()) {
      return new HolderProcess(State.UNKNOWN, pid, ", its start cannot be matched: its pid cannot be checked here");
    }
    if (Duration.between(now.get(), start).abs().compareTo(HostProcesses.START_TOLERANCE) > 0) {
      return new HolderProcess(State.GONE, pid, ", now another process's on this host");
    }
    return running(pid);
  }

  private static HolderProcess running(long pid) {
    return isStopped(pid) ? new HolderProcess(State.STOPPED, pid, ", stopped on this host")
        : new HolderProcess(State.ALIVE, pid, ", alive on this host");
  }

  /** Returns whether {@code /proc/<pid>/stat} says the process is stopped; false where it cannot be read. */
  private static boolean isStopped(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
      int name = stat.lastIndexOf(')');
      if (name < 0 || name + 2 >= stat.length()) {
        return false;
      }
      char state = stat.charAt(name + 2);
      return state == 'T' || state == 't';
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /** {@return the advice for a stopped process: resume or end it} */
  String resumeOrEnd() {
    return "resume it (kill -CONT " + pid + ") or end it (kill " + pid + ")";
  }
}
