package dev.tierlock.cli;

import dev.tierlock.HostProcesses;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The holder a checkout's transaction lock file ({@code <state>/transaction.lock}) names, as
 * {@code lock status} and {@code doctor} report it: every holder writes its name, host, pid, process
 * start and acquired-at into the file, and empties it on release. A file that names nobody is free; a
 * file that names a process gone from this host is free too (the operating system released its lock
 * when it ended). Read-only: it never takes the lock. Immutable.
 *
 * @param file the lock file
 * @param name the holder's name, or empty when the file names nobody
 * @param host the holder's host, or empty when the file names nobody
 * @param pid the holder's pid, or -1 when the file names nobody
 * @param since when it took the lock, or null when the file names nobody
 * @param process what this host can tell of its process, or null when the file names nobody
 */
record CheckoutLockFile(Path file, String name, String host, long pid, @Nullable Instant since,
    @Nullable HolderProcess process) {

  /**
   * Reads the transaction lock file of the checkout whose state directory is {@code state}.
   *
   * @return its holder, or empty when the file is missing or names nobody
   * @throws IOException if the file exists but cannot be read
   */
  static Optional<CheckoutLockFile> read(Path state, HostProcesses processes) throws IOException {
    Path file = state.resolve(StateDirectoryCheck.TRANSACTION_LOCK);
    String content;
    try {
      content = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
    Map<String, String> fields = new HashMap<>();
    for (String line : content.split("\n", -1)) {
      int colon = line.indexOf(": ");
      if (!line.startsWith("#") && colon > 0) {
        fields.putIfAbsent(line.substring(0, colon).strip(), line.substring(colon + 2).strip());
      }
    }
    String host = fields.get("host");
    Optional<Long> pid = number(fields.get("pid"));
    Instant since = instant(fields.get("acquired"));
    if (host == null || host.isEmpty() || pid.isEmpty() || since == null) {
      return Optional.empty();
    }
    HolderProcess process = HolderProcess.ofCheckoutLock(host, pid.get(), instant(fields.get("started")), processes);
    return Optional.of(new CheckoutLockFile(file, fields.getOrDefault("holder", "unknown"), host, pid.get(), since,
        process));
  }

  /** {@return whether its holder is gone, so that the lock is free} */
  boolean holderGone() {
    return process != null && process.state() == HolderProcess.State.GONE;
  }

  /** {@return whether its holder is stopped: every transaction on this checkout waits for it} */
  boolean holderStopped() {
    return process != null && process.state() == HolderProcess.State.STOPPED;
  }

  /** {@return the holder for a report: {@code pid N on host h since T (name), stopped on this host}} */
  String describe() {
    return "pid " + pid + " on host " + host + " since " + since + " (" + name + ")"
        + (process == null ? "" : process.note());
  }

  private static Optional<Long> number(@Nullable String text) {
    try {
      return text == null ? Optional.empty() : Optional.of(Long.parseLong(text));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  private static @Nullable Instant instant(@Nullable String text) {
    try {
      return text == null ? null : Instant.parse(text);
    } catch (DateTimeException e) {
      return null;
    }
  }
}
