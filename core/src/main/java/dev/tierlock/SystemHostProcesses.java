package dev.tierlock;

import java.time.Instant;
import java.util.Optional;

/**
 * {@link HostProcesses} from the operating system: {@link ProcessHandle}, under the host name of
 * {@link LockIdentity#current()}, looked up on first use. Thread-safe.
 */
final class SystemHostProcesses implements HostProcesses {

  static final SystemHostProcesses INSTANCE = new SystemHostProcesses();

  private SystemHostProcesses() {}

  @Override
  public String hostname() {
    return Host.NAME;
  }

  @Override
  public boolean isRunning(long pid) {
    return pid >= 0 && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  @Override
  public Optional<Instant> startOf(long pid) {
    return pid < 0 ? Optional.empty()
        : ProcessHandle.of(pid).filter(ProcessHandle::isAlive).flatMap(p -> p.info().startInstant());
  }

  @Override
  public String toString() {
    return "the processes of host " + hostname();
  }

  /** The host name, looked up once (the lookup may be slow). */
  private static final class Host {
    static final String NAME = LockIdentity.current().hostname();
  }
}
