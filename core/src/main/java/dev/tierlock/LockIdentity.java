package dev.tierlock;

import dev.tierlock.internal.ThisProcess;

/**
 * Who takes a lock: written into every {@link LockInfo} so that an operator can tell which process
 * holds it. Immutable.
 *
 * @param holder who holds it, conventionally {@code user@host}; never blank
 * @param hostname the host name; never blank
 * @param pid the process id; never negative
 */
public record LockIdentity(String holder, String hostname, long pid) {

  /**
   * Validates the values.
   *
   * @param holder who holds it, conventionally {@code user@host}; never blank
   * @param hostname the host name; never blank
   * @param pid the process id; never negative
   * @throws IllegalArgumentException if {@code holder} or {@code hostname} is blank or {@code pid}
   *     is negative
   */
  public LockIdentity {
    if (holder.isBlank()) {
      throw new IllegalArgumentException("Cannot use lock identity: the holder is blank");
    }
    if (hostname.isBlank()) {
      throw new IllegalArgumentException("Cannot use lock identity of " + holder + ": the hostname is blank");
    }
    if (pid < 0) {
      throw new IllegalArgumentException("Cannot use lock identity of " + holder + ": negative pid " + pid);
    }
  }

  /**
   * {@return an identity with these values}
   *
   * @param holder who holds it, conventionally {@code user@host}; never blank
   * @param hostname the host name; never blank
   * @param pid the process id; never negative
   * @throws IllegalArgumentException if a value is invalid
   */
  public static LockIdentity of(String holder, String hostname, long pid) {
    return new LockIdentity(holder, hostname, pid);
  }

  /**
   * {@return this process's identity: {@code <user>@<host>} (user from the {@code user.name} system
   * property, else {@code USER}/{@code USERNAME}, else {@code unknown}), the local host name (else
   * {@code HOSTNAME}, else {@code localhost}) and this process's id} Looks up the local host name
   * once per JVM.
   */
  public static LockIdentity current() {
    return new LockIdentity(ThisProcess.USER + "@" + ThisProcess.HOST, ThisProcess.HOST, ProcessHandle.current().pid());
  }
}
