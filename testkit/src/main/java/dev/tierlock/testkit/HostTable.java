package dev.tierlock.testkit;

import dev.tierlock.HostProcesses;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A {@link HostProcesses} that tests fill by hand: a host name and a table of running processes and
 * their start times, so that a lock's judgement of a holder on its own host is deterministic. A
 * process is started, ended or replaced by another with the same id, between any two calls.
 * Thread-safe.
 */
public final class HostTable implements HostProcesses {

  private final String hostname;
  private final Map<Long, Instant> running = new HashMap<>();

  private HostTable(String hostname) {
    this.hostname = hostname;
  }

  /**
   * {@return the table of host {@code hostname}, with no process running}
   *
   * @param hostname the host name lock records of this host carry
   */
  public static HostTable of(String hostname) {
    return new HostTable(hostname);
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
  public synchronized boolean isRunning(long pid) {
    return running.containsKey(pid);
  }

  @Override
  public synchronized Optional<Instant> startOf(long pid) {
    return Optional.ofNullable(running.get(pid));
  }

  @Override
  public synchronized String toString() {
    return "HostTable[" + hostname + ", " + running + "]";
  }
}
