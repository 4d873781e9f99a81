package dev.tierlock.cli;

import dev.tierlock.HostProcesses;
import dev.tierlock.LockInfo;
import dev.tierlock.Tierlock;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code tierlock lock ...}: inspect and break the datastore global lock. */
@Command(
    name = "lock",
    description = "Shows or force-releases the datastore global lock.",
    mixinStandardHelpOptions = true,
    subcommands = {LockCommand.Status.class, LockCommand.Release.class})
final class LockCommand {

  @ParentCommand TierlockCli root;

  /** {@code lock status}. */
  @Command(name = "status", description = "Shows who holds the global lock, and whether the lease is stale.", mixinStandardHelpOptions = true)
  static final class Status implements Callable<Integer> {
    @ParentCommand LockCommand parent;
    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      try (Tierlock tierlock = parent.root.open(TierlockCli.Access.READ)) {
        PrintWriter out = spec.commandLine().getOut();
        Optional<LockInfo> info = tierlock.globalLock().inspect();
        if (info.isEmpty()) {
          out.println("free: " + tierlock.globalLock().describe());
        } else {
          LockInfo holder = info.get();
          Instant now = parent.root.clock().instant();
          Duration age = Duration.between(holder.acquiredAt(), now);
          HostProcesses processes = HostProcesses.system();
          boolean here = holder.hostname().equals(processes.hostname());
          boolean running = here && processes.isRunning(holder.pid());
          boolean gone = here && (!running || processes.isGone(holder));
          boolean stale = holder.isStaleAt(now);
          out.println((gone ? "held by a process that is gone" : stale ? "stale" : "held") + ": "
              + tierlock.globalLock().describe());
          out.println("  holder:     " + holder.holder() + " (host " + holder.hostname() + ", pid " + holder.pid()
              + holder.processStart().map(start -> ", started " + start).orElse("")
              + (here ? !running ? ", no such process on this host" : gone ? ", now another process's on this host"
                  : ", alive on this host" : "") + ")");
          out.println("  heartbeat:  " + holder.acquiredAt() + " (" + age.toMillis() + " ms ago, ttl " + holder.ttl().toMillis() + " ms)");
          out.println("  nonce:      " + holder.nonce());
          if (gone || stale) {
            out.println("  break-glass is safe" + (gone ? " (its process is gone)" : " (its lease ran out; the next"
                + " writer takes it over anyway)") + ": tierlock lock release --nonce " + holder.nonce());
          } else if (here) {
            out.println("  its process is alive: wait for it; it renews the lease while it works");
          } else {
            out.println("  its lease is fresh and its host is another: wait, or once you know that process is gone:"
                + " tierlock lock release --nonce " + holder.nonce());
          }
        }
        out.flush();
        return ExitCodes.OK;
      }
    }
  }

  /** {@code lock release --nonce N}. */
  @Command(name = "release", description = "Force-releases the global lock, only if its nonce matches (break-glass for a dead holder).", mixinStandardHelpOptions = true)
  static final class Release implements Callable<Integer> {
    @ParentCommand LockCommand parent;
    @Spec CommandSpec spec;

    @Option(names = "--nonce", required = true, paramLabel = "NONCE", description = "The holder's nonce, as 'lock status' shows it.")
    String nonce;

    @Override
    public Integer call() {
      if (nonce.isBlank()) {
        throw new IllegalArgumentException("Cannot release the lock: the nonce is blank");
      }
      try (Tierlock tierlock = parent.root.open(TierlockCli.Access.WRITE)) {
        if (!tierlock.globalLock().forceRelease(nonce)) {
          throw new NotFoundException("Cannot release " + tierlock.globalLock().describe()
              + ": no holder with nonce " + nonce + " (it may have been released or taken over already)");
        }
        PrintWriter out = spec.commandLine().getOut();
        out.println("released: " + tierlock.globalLock().describe() + " (nonce " + nonce + ")");
        out.flush();
        return ExitCodes.OK;
      }
    }
  }
}
