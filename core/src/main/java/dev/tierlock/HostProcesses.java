package dev.tierlock;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The processes of this host, as a lease lock asks about them to tell a dead holder on its own host
 * ({@link DistributedLock}): a lock record that names this host, a process id and that process's start
 * time is taken over at once when no process with that id runs here any more, or when the id now
 * belongs to a process that started at another time (the id was reused). The default, {@link
 * #system()}, asks the operating system; tests pass a table of their own, and a deployment whose
 * host name does not name one process table (containers that share a host name but not their
 * process ids) passes one whose {@link #hostname()} no record carries, which turns the rule off.
 * Implementations are thread-safe.
 */
public interface HostProcesses {

  /**
   * How far two readings of one process's start time may differ and still name the same process:
   * the operating system derives the start from its boot time, which a clock adjustment can move by
   * a little.
   */
  Duration START_TOLERANCE = Duration.ofSeconds(1);

  /**
   * {@return the host name that lock records written on this host carry ({@link LockInfo#hostname()});
   * a record naming any other host is never judged by this host's processes}
   */
  String hostname();

  /**
   * {@return whether a process with id {@code pid} runs on this host now}
   *
   * @param pid a process id, not negative
   */
  boolean isRunning(long pid);

  /**
   * {@return when the process with id {@code pid} started, or empty when none runs or its start is
   * not known}
   *
   * @param pid a process id, not negative
   */
  Optional<Instant> startOf(long pid);

  /**
   * Returns whether {@code holder} names a process of this host that is gone: its record names this
   * host and a process start time, and no process with its id runs here, or the one that does
   * started more than {@link #START_TOLERANCE} apart from it. A record without a start time, or of
   * another host, is never judged gone: its id alone cannot tell a reused or made-up id.
   *
   * @param holder a lock record
   * @return whether its process is provably gone
   */
  default boolean isGone(LockInfo holder) {
    Optional<Instant> recorded = holder.processStart();
    if (recorded.isEmpty() || !holder.hostname().equals(hostname())) {
      return false;
    }
    if (!isRunning(holder.pid())) {
      return true;
    }
    return startOf(holder.pid())
        .map(now -> Duration.between(now, recorded.get()).abs().compareTo(START_TOLERANCE) > 0)
        .orElse(false);
  }

  /**
   * {@return this host's processes as the operating system reports them ({@link ProcessHandle}),
   * under this host's name as {@link LockIdentity#current()} gives it (looked up once)}
   */
  static HostProcesses system() {
    return SystemHostProcesses.INSTANCE;
  }
}
