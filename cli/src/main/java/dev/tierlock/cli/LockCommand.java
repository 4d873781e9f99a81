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
  @Command(name = "status", description = "Shows who holds the global lock (whether its process is alive, stopped or"
      + " gone, and whether it is renewing the lease), who holds this checkout's transaction lock, and break-glass"
      + " when it will work.", mixinStandardHelpOptions = true)
  static final class Status implements Callable<Integer> {
    @ParentCommand LockCommand parent;
    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      try (Tierlock tierlock = parent.root.open(TierlockCli.Access.READ)) {
        PrintWriter out = spec.commandLine().getOut();
        Optional<LockInfo> info = tierlock.globalLock().inspect();
        HostProcesses processes = HostProcesses.system();
        java.nio.file.Path lockFile = tierlock.stateDirectory().resolve(StateDirectoryCheck.TRANSACTION_LOCK);
        Optional<CheckoutLockFile> checkoutLock;
        String checkoutLine;
        try {
          checkoutLock = CheckoutLockFile.read(tierlock.stateDirectory(), processes);
          checkoutLine = checkoutLock.map(lock -> (lock.holderGone() ? "free (its last holder is gone): " : "held by ")
              + lock.describe()).orElse("free") + ", " + lockFile;
        } catch (java.io.IOException e) {
          checkoutLock = Optional.empty();
          checkoutLine = "cannot read " + lockFile + ": " + e.getMessage();
        }
        if (info.isEmpty()) {
          out.println("free: " + tierlock.globalLock().describe());
          out.println("  checkout lock: " + checkoutLine);
        } else {
          LockInfo holder = info.get();
          Instant now = parent.root.clock().instant();
          LeaseAdvice advice = LeaseAdvice.of(holder, now, processes, checkoutLock);
          out.println(advice.state() + ": " + tierlock.globalLock().describe());
          out.println("  holder:     " + advice.who());
          out.println("  heartbeat:  " + holder.acquiredAt() + " (" + Duration.between(holder.acquiredAt(), now).toMillis()
              + " ms ago, ttl " + holder.ttl().toMillis() + " ms)");
          out.println("  nonce:      " + holder.nonce());
          out.println("  checkout lock: " + checkoutLine);
          out.println("  " + advice.advice());
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
