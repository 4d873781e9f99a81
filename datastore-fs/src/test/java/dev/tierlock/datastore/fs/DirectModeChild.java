package dev.tierlock.datastore.fs;

import dev.tierlock.ExtensionName;
import dev.tierlock.Heartbeats;
import dev.tierlock.LockIdentity;
import dev.tierlock.LockOptions;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Sleeper;
import dev.tierlock.SyncMode;
import dev.tierlock.Tierlock;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

/**
 * The program {@link ChildJvm} runs to play a second machine of a shared directory: a {@link
 * Tierlock} in {@link SyncMode#DIRECT} on a {@link FileSystemDatastore}, in its own checkout.
 * Modes:
 *
 * <ul>
 *   <li>{@code commit <shared> <checkout> <scope> <count>}: runs one read-only transaction (so that
 *       class loading does not delay the race), prints {@code ready}, waits for a line, then puts {@code @<scope>/e<i>} for every i below {@code count}, one transaction each, on the
 *       system clock with a fast lock backoff, and prints {@code committed <count>};
 *   <li>{@code hold <shared> <checkout> <instant> <ttl ms>}: on a clock fixed at {@code instant},
 *       with heartbeats that never run and a lease of that ttl, commits {@code @child/committed};
 *       then, inside a second transaction and its pulled-extensions section, writes {@code
 *       @child/inflight}, takes the OS lock of the lockfile lock itself, prints {@code holding <pid>
 *       <nonce>} and waits for a line (the test kills it there).
 * </ul>
 */
final class DirectModeChild {

  /** The lock options of the racing checkouts: real time, a backoff of 1 ms to 16 ms. */
  static final LockOptions FAST = new LockOptions(Duration.ofSeconds(30), Duration.ofMillis(1), Duration.ofMillis(16),
      Duration.ofSeconds(60));

  private DirectModeChild() {}

  public static void main(String[] args) throws IOException {
    BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    FileSystemDatastore store = FileSystemDatastore.open(Path.of(args[1]));
    Path checkout = Path.of(args[2]);
    switch (args[0]) {
      case "commit" -> {
        Tierlock tierlock = Tierlock.builder().datastore(store).checkout(checkout).lockOptions(FAST)
            .lockIdentity(LockIdentity.of("child@" + checkout.getFileName(), "child-host", ProcessHandle.current().pid()))
            .build();
        requireDirect(tierlock);
        tierlock.transaction().refresh();
        System.out.println("ready");
        System.out.flush();
        stdin.readLine();
        int count = Integer.parseInt(args[4]);
        putAll(tierlock, args[3], count, Clock.systemUTC());
        System.out.println("committed " + count);
      }
      case "hold" -> {
        Clock fixed = Clock.fixed(Instant.parse(args[3]), ZoneOffset.UTC);
        Heartbeats never = (name, interval, beat) -> () -> { };
        Sleeper refuse = d -> {
          throw new IllegalStateException("the holding child never waits, yet was asked to wait " + d);
        };
        Tierlock tierlock = Tierlock.builder().datastore(store).checkout(checkout).clock(fixed).sleeper(refuse)
            .heartbeats(never).lockOptions(LockOptions.DEFAULTS.withTtl(Duration.ofMillis(Long.parseLong(args[4]))))
            .lockIdentity(LockIdentity.of("child@" + checkout.getFileName(), "child-host", ProcessHandle.current().pid()))
            .build();
        requireDirect(tierlock);
        LockfileEntry entry = LockfileEntry.builder("1", fixed.instant()).build();
        tierlock.transaction().run(tx -> tx.repository().writeEntry(ExtensionName.of("@child/committed"), entry));
        tierlock.transaction().run(tx -> tx.withPulledExtensionsLock(section -> {
          tx.repository().writeEntry(ExtensionName.of("@child/inflight"), entry);
          return holdLockfileLock(tx.repository().lockPath(), tierlock, stdin);
        }));
      }
      default -> throw new IllegalArgumentException("unknown mode " + args[0]);
    }
    System.out.flush();
  }

  /** Puts {@code @<scope>/e<i>} at version 1 for every i below {@code count}, one transaction each. */
  static void putAll(Tierlock tierlock, String scope, int count, Clock clock) {
    for (int i = 0; i < count; i++) {
      ExtensionName name = ExtensionName.of("@" + scope + "/e" + i);
      LockfileEntry entry = LockfileEntry.builder("1", clock.instant()).build();
      tierlock.transaction().run(tx -> tx.repository().writeEntry(name, entry));
    }
  }

  private static Object holdLockfileLock(Path lockPath, Tierlock tierlock, BufferedReader stdin) {
    try (FileChannel channel = FileChannel.open(lockPath, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock held = channel.lock()) {
      String nonce = tierlock.globalLock().inspect().orElseThrow().nonce();
      System.out.println("holding " + ProcessHandle.current().pid() + " " + nonce + " " + held.isValid());
      System.out.flush();
      return String.valueOf(stdin.readLine());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void requireDirect(Tierlock tierlock) {
    if (tierlock.mode() != SyncMode.DIRECT) {
      throw new IllegalStateException("expected direct mode, got " + tierlock.mode());
    }
  }
}
