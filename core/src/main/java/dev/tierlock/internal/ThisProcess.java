package dev.tierlock.internal;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * This process as every lock record names it, looked up once (the host name lookup may be slow):
 * the user from {@code user.name}, else {@code USER}/{@code USERNAME}, else {@code unknown}; the
 * local host name, else {@code HOSTNAME}, else {@code localhost}; the process's start, when the OS
 * tells it. The one place both the checkout's OS-lock records and {@code LockIdentity.current()}
 * take them from. Thread-safe.
 */
public final class ThisProcess {

  /** The user name; never blank. */
  public static final String USER = userName();

  /** The local host name; never blank. */
  public static final String HOST = hostName();

  /** When this process started; null when the OS does not tell. */
  public static final @Nullable Instant START = ProcessHandle.current().info().startInstant().orElse(null);

  private ThisProcess() {
  }

  private static String userName() {
    String user = System.getProperty("user.name", "");
    if (user.isBlank()) {
      user = System.getenv().getOrDefault("USER", System.getenv().getOrDefault("USERNAME", ""));
    }
    return user.isBlank() ? "unknown" : user.strip();
  }

  private static String hostName() {
    try {
      String name = InetAddress.getLocalHost().getHostName();
      if (!name.isBlank()) {
        return name;
      }
    } catch (UnknownHostException e) {
      // fall through to the environment
    }
    String env = System.getenv().getOrDefault("HOSTNAME", "");
    return env.isBlank() ? "localhost" : env.strip();
  }
}
