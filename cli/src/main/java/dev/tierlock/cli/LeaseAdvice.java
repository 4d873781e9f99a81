package dev.tierlock.cli;

import dev.tierlock.HostProcesses;
import dev.tierlock.LockInfo;
import java.time.Instant;
import java.util.Optional;

/**
 * How {@code lock status} and {@code doctor} report the global lease's holder: its state (gone,
 * not renewing, held by a stopped process, held), who it is, and what to do, offering break-glass
 * ({@code tierlock lock release --nonce N}) only when it will work: its process is gone, or the
 * lease is not renewing and its process does not also hold this checkout's transaction lock (a
 * stopped process keeps that lock, so releasing the lease alone would not unblock the checkout).
 * "Not renewing" compares the holder's last heartbeat with this process's clock: a hint for people
 * only, never a reason to take the lease over (a writer waits until it has itself seen the lease
 * unchanged for its ttl). Immutable.
 *
 * @param holder the lease record
 * @param process what this host can tell of its process
 * @param overdue whether its last heartbeat is more than a ttl old by this process's clock
 * @param checkoutLock this checkout's transaction lock holder, if its lock file names one
 */
record LeaseAdvice(LockInfo holder, HolderProcess process, boolean overdue, Optional<CheckoutLockFile> checkoutLock) {

  /** The state a report heads with, when the holder's process is gone. */
  static final String GONE = "held by a process that is gone";

  /** The state a report heads with, when the last heartbeat is more than a ttl old. */
  static final String NOT_RENEWING = "not renewing (stopped or hung?)";

  /** {@return the advice on {@code holder} at {@code now}, by this host's {@code processes}} */
  static LeaseAdvice of(LockInfo holder, Instant now, HostProcesses processes, Optional<CheckoutLockFile> checkoutLock) {
    return new LeaseAdvice(holder, HolderProcess.ofLease(holder, processes), holder.isOverdueAt(now), checkoutLock);
  }

  /** {@return whether a report warns: the holder is gone, stopped or not renewing} */
  boolean warns() {
    return process.state() == HolderProcess.State.GONE || process.state() == HolderProcess.State.STOPPED || overdue;
  }

  /** {@return the state a report heads with} */
  String state() {
    if (process.state() == HolderProcess.State.GONE) {
      return GONE;
    }
    if (overdue) {
      return NOT_RENEWING;
    }
    return process.state() == HolderProcess.State.STOPPED ? "held by a stopped process" : "held";
  }

  /** {@return the holder: {@code user@host (host h, pid N, started S, alive on this host)}} */
  String who() {
    return holder.holder() + " (host " + holder.hostname() + ", pid " + holder.pid()
        + holder.processStart().map(start -> ", started " + start).orElse("") + process.note() + ")";
  }

  /** {@return whether the lease holder's process also holds this checkout's transaction lock} */
  boolean holdsThisCheckout() {
    return checkoutLock.filter(lock -> !lock.holderGone() && lock.pid() == holder.pid()
        && lock.host().equals(holder.hostname())).isPresent();
  }

  /** {@return what to do, with the break-glass command only when it will work} */
  String advice() {
    String release = "tierlock lock release --nonce " + holder.nonce();
    if (process.state() == HolderProcess.State.GONE) {
      return "break-glass is safe (its process is gone): " + release + " (the next writer on this host takes it over"
          + " anyway)";
    }
    String blocked = "break-glass would not help: pid " + holder.pid() + " also holds this checkout's transaction lock ("
        + checkoutLock.map(lock -> lock.file().toString()).orElse("") + "), which only its end or resumption frees";
    if (process.state() == HolderProcess.State.STOPPED) {
      return "its process is stopped, so it renews nothing: " + process.resumeOrEnd() + "; " + (holdsThisCheckout()
          ? blocked : "or break-glass (its later writes are refused by the store's version checks): " + release);
    }
    if (overdue) {
      return "no heartbeat for over its ttl; the next writer takes it over once it has itself seen the lease unchanged"
          + " for its ttl; " + (holdsThisCheckout() ? blocked : "break-glass now: " + release);
    }
    if (process.state() == HolderProcess.State.ALIVE) {
      return "its process is alive: wait for it; it renews the lease while it works";
    }
    return "its lease is fresh and its process cannot be checked from here: wait, or once you know that process is"
        + " gone: " + release;
  }
}
