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
    mixinStandardHelpOptions = true)
final class LockCommand {

  @ParentCommand TierlockCli root;

  /** {@code lock status}. */
  @Command(name = "status", description = "Shows who holds the global lock (whether its process is alive, stopped or"
      + " gone, and whether it is renewing the lease), who holds this checkout's transaction lock, and break-glass"
      + " when it will work.", mixinStandardHelpOptions = true)
  static final class Status implements Callable<Integer> {
    @ParentCommand LockCommand parent;
    @Spec CommandSpec spec;

    @Option(names = "--json", description = "Print the holder and the advice as JSON.")
    boolean json;

    @Override
    public Integer call() {
      try (Tierlock tierlock = parent.root.open(TierlockCli.Access.READ)) {
        PrintWriter out = spec.commandLine().getOut();
        Optional<LockInfo> info = tierlock.globalLock().inspect();
        HostProcesses processes = HostProcesses.system();
        CheckoutLockState lockState = CheckoutLockState.read(tierlock.stateDirectory(), processes);
        Optional<LeaseAdvice> advice = info.map(holder -> LeaseAdvice.of(holder, parent.root.clock().instant(),
            processes, lockState.checkoutLock()));
        if (json) {
          JsonReport.print(out, "lock status", g -> {
            g.writeStringField("lock", tierlock.globalLock().describe());
            g.writeStringField("state", advice.map(LeaseAdvice::state).orElse("free"));
            if (info.isPresent()) {
              LockInfo holder = info.get();
              g.writeObjectFieldStart("holder");
              g.writeStringField("holder", holder.holder());
              g.writeStringField("hostname", holder.hostname());
              g.writeNumberField("pid", holder.pid());
              g.writeStringField("heartbeat", holder.acquiredAt().toString());
              g.writeNumberField("ttlMillis", holder.ttl().toMillis());
              g.writeStringField("nonce", holder.nonce());
              g.writeEndObject();
              g.writeStringField("advice", advice.get().advice());
            } else {
              g.writeNullField("holder");
              g.writeNullField("advice");
            }
            g.writeStringField("checkoutLock", lockState.line());
          });
        } else if (info.isEmpty()) {
          out.println("free: " + tierlock.globalLock().describe());
          out.println("  checkout lock: " + lockState.line());
        } else {
          LockInfo holder = info.get();
          Instant now = parent.root.clock().instant();
          out.println(advice.get().state() + ": " + tierlock.globalLock().describe());
          out.println("  holder:     " + advice.get().who());
          out.println("  heartbeat:  " + holder.acquiredAt() + " (" + Duration.between(holder.acquiredAt(), now).toMillis()
              + " ms ago, ttl " + holder.ttl().toMillis() + " ms)");
          out.println("  nonce:      " + holder.nonce());
          out.println("  checkout lock: " + lockState.line());
          out.println("  " + advice.get().advice());
        }
        out.flush();
        return ExitCodes.OK;
      }
    }
  }

  /**
   * This checkout's transaction lock as {@code lock status} tells it.
   *
   * @param checkoutLock its holder, if the lock file names one
   * @param line who holds it (or that it is free), and the file
   */
  record CheckoutLockState(Optional<CheckoutLockFile> checkoutLock, String line) {
    static CheckoutLockState read(java.nio.file.Path stateDirectory, HostProcesses processes) {
      java.nio.file.Path lockFile = stateDirectory.resolve(StateDirectoryCheck.TRANSACTION_LOCK);
      try {
        Optional<CheckoutLockFile> lock = CheckoutLockFile.read(stateDirectory, processes);
        return new CheckoutLockState(lock, lock.map(l -> (l.holderGone() ? "free (its last holder is gone): "
            : "held by ") + l.describe()).orElse("free") + ", " + lockFile);
      } catch (java.io.IOException e) {
        return new CheckoutLockState(Optional.empty(), "cannot read " + lockFile + ": " + e.getMessage());
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
