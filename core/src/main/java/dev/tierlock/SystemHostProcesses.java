package dev.tierlock;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/**
 * {@link HostProcesses} from the operating system: {@link ProcessHandle}, under the host name of
 * {@link LockIdentity#current()}, in the boot ({@code /proc/sys/kernel/random/boot_id}) and pid
 * namespace ({@code /proc/self/ns/pid}'s target) of this process, each looked up on first use (none
 * where {@code /proc} does not tell them). Thread-safe.
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
  public Optional<LockInfo.ProcessNamespace> processNamespace() {
    return Namespace.OF_THIS_PROCESS;
  }

  @Override
  public String toString() {
    return "the processes of host " + hostname();
  }

  /** The host name, looked up once (the lookup may be slow). */
  private static final class Host {
    static final String NAME = LockIdentity.current().hostname();
  }

  /** The boot and pid namespace of this process, read once from {@code /proc}. */
  private static final class Namespace {
    static final Optional<LockInfo.ProcessNamespace> OF_THIS_PROCESS = read(Path.of("/proc"));

    /** Reads the boot id and this process's pid namespace under {@code proc}; empty when either is unknown. */
    static Optional<LockInfo.ProcessNamespace> read(Path proc) {
      try {
        String boot = Files.readString(proc.resolve("sys/kernel/random/boot_id"), StandardCharsets.US_ASCII).strip();
        String pids = Files.readSymbolicLink(proc.resolve("self/ns/pid")).toString().strip();
        return boot.isEmpty() || pids.isEmpty() ? Optional.empty()
            : Optional.of(new LockInfo.ProcessNamespace(boot, pids));
      } catch (IOException | UnsupportedOperationException | SecurityException e) {
        return Optional.empty();
      }
    }
  }
}
