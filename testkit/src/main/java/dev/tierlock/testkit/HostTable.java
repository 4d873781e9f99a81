package dev.tierlock.testkit;

import dev.tierlock.HostProcesses;
import dev.tierlock.LockInfo;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A {@link HostProcesses} that tests fill by hand: a host name, the boot and pid namespace its
 * table belongs to, and a table of running processes and their start times, so that a lock's
 * judgement of a holder on its own host is deterministic. A process is started, ended or replaced
 * by another with the same id, between any two calls. Thread-safe.
 */
public final class HostTable implements HostProcesses {

  /** The boot id of every table's host unless one says otherwise. */
  public static final String BOOT = "00000000-0000-4000-8000-000000000001";

  /** The pid namespace of every table unless one says otherwise (the first namespace of a Linux boot). */
  public static final String PID_NAMESPACE = "pid:[4026531836]";

  private final String hostname;
  private final Optional<LockInfo.ProcessNamespace> namespace;
  private final Map<Long, Instant> running = new HashMap<>();

  private HostTable(String hostname, Optional<LockInfo.ProcessNamespace> namespace) {
    this.hostname = hostname;
    this.namespace = namespace;
  }

  /**
   * {@return the table of host {@code hostname}, in boot {@link #BOOT} and pid namespace {@link
   * #PID_NAMESPACE}, with no process running}
   *
   * @param hostname the host name lock records of this host carry
   */
  public static HostTable of(String hostname) {
    return new HostTable(hostname, Optional.of(new LockInfo.ProcessNamespace(BOOT, PID_NAMESPACE)));
  }

  /**
   * {@return another, empty table of this table's host: the processes of another pid namespace of
   * it (another container that shares the host's name), {@code pidNamespace}, in the same boot}
   *
   * @param pidNamespace the other table's pid namespace
   */
  public HostTable otherPidNamespace(String pidNamespace) {
    return new HostTable(hostname, Optional.of(new LockInfo.ProcessNamespace(
        namespace.map(LockInfo.ProcessNamespace::bootId).orElse(BOOT), pidNamespace)));
  }

  /**
   * {@return another, empty table of this table's host that cannot tell its boot or pid namespace
   * (as on a platform without {@code /proc})}
   */
  public HostTable namespaceUnknown() {
    return new HostTable(hostname, Optional.empty());
  }

  /**
   * Starts process {@code pid} (or replaces the one with that id) as started at {@code start}.
   *
   * @param pid the process id
   * @param start when the process started
   * @return this table
   */
  public synchronized HostTable run(long pid, Instant start) {
    running.put(pid, start);
    return this;
  }

  /**
   * Ends process {@code pid}.
   *
   * @param pid the process id
   * @return this table
   */
  public synchronized HostTable end(long pid) {
    running.remove(pid);
    return this;
  }

  @Override
  public String hostname() {
    return hostname;
  }

  @Override
  public Optional<LockInfo.ProcessNamespace> processNamespace() {
    return namespace;
  }

  @Override
  public synchronized boolean isRunning(long pid) {
    return running.containsKey(pid);
  }

  @Override
  public synchronized Optional<Instant> startOf(long pid) {
    return Optional.ofNullable(running.get(pid));
  }

  @Override
  public synchronized String toString() {
    return "HostTable[" + hostname + ", " + namespace.map(n -> n.bootId() + " " + n.pidNamespace()).orElse("namespace unknown")
        + ", " + running + "]";
  }
}
