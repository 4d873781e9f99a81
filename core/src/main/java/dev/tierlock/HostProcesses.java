package dev.tierlock;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The processes of this host, as a lease lock asks about them to tell a dead holder on its own host
 * ({@link DistributedLock}): a lock record that names this host, a process id, that process's start
 * time and the boot and pid namespace the id belongs to, the same as this process's, is taken over
 * at once when no process with that id runs here any more, or when the id now belongs to a process
 * that started at another time (the id was reused). One host name does not make one process table
 * (containers that share the host's name, as Docker's {@code --network host} or Kubernetes' {@code
 * hostNetwork} do, each see pids of their own), so the rule holds only where this process can name
 * its own boot and pid namespace ({@link #processNamespace()}) and the record names the same; a
 * record without them, or under any other, is judged by its ttl alone. The default, {@link
 * #system()}, asks the operating system; tests pass a table of their own. Implementations are
 * thread-safe.
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
   * {@return the boot and pid namespace of this process, in which {@link #isRunning} and {@link
   * #startOf} read pids; empty when they cannot be told (not Linux, {@code /proc} not readable),
   * and then no record is ever judged gone. The default is empty: an implementation that cannot
   * prove which process table it reads never takes a holder over early}
   */
  default Optional<LockInfo.ProcessNamespace> processNamespace() {
    return Optional.empty();
  }

  /**
   * Returns whether {@link #isRunning} and {@link #startOf} read the pids of {@code holder}'s
   * record: it names this host, and the same boot and pid namespace as this process's, both known.
   *
   * @param holder a lock record
   * @return whether the record's pid means the same process here as for its holder
   */
  default boolean sharesProcessTable(LockInfo holder) {
    Optional<LockInfo.ProcessNamespace> mine = processNamespace();
    return holder.hostname().equals(hostname()) && mine.isPresent() && holder.processNamespace().equals(mine);
  }

  /**
   * Returns whether {@code holder} names a process of this host that is gone: its record names this
   * host, the boot and pid namespace of this process ({@link #sharesProcessTable}) and a process
   * start time, and no process with its id runs here, or the one that does started more than {@link
   * #START_TOLERANCE} apart from it. A record without a start time or a namespace (an older
   * Tierlock's), of another pid namespace or boot, or of another host, is never judged gone: its id
   * cannot tell a reused, made-up or foreign id from its process.
   *
   * @param holder a lock record
   * @return whether its process is provably gone
   */
  default boolean isGone(LockInfo holder) {
    Optional<Instant> recorded = holder.processStart();
    if (recorded.isEmpty() || !sharesProcessTable(holder)) {
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
