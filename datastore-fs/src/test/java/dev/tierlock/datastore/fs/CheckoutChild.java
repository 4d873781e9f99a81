package dev.tierlock.datastore.fs;

import dev.tierlock.Environment;
import dev.tierlock.ExtensionName;
import dev.tierlock.Heartbeats;
import dev.tierlock.LockIdentity;
import dev.tierlock.LockOptions;
import dev.tierlock.LockfileConflictException;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Sleeper;
import dev.tierlock.Tierlock;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.Consumer;

/**
 * The program {@link ChildJvm} runs to play a second machine of a shared directory: a {@link
 * Tierlock} on a {@link FileSystemDatastore} of the directory, in its own checkout, taking the one
 * path every datastore takes. Modes:
 *
 * <ul>
 *   <li>{@code commit <shared> <checkout> <scope> <count>}: runs one read-only refresh (so that
 *       class loading does not delay the race), prints {@code ready}, waits for a line, runs {@link
 *       #commit} and prints each acknowledgement as it comes, then {@code done};
 *   <li>{@code hold <shared> <checkout> <instant> <ttl ms>}: on a clock fixed at {@code instant},
 *       with heartbeats that never run and a lease of that ttl, commits {@code @child/committed};
 *       then, inside a second transaction and its pulled-extensions section, puts {@code
 *       @child/inflight}, prints {@code holding <pid>} and waits for a line, forever once stdin
 *       closes (the test kills or stops it there).
 * </ul>
 */
final class CheckoutChild {

  /** The lock options of racing checkouts: real time, a backoff of 1 ms to 16 ms. */
  static final LockOptions FAST = new LockOptions(Duration.ofSeconds(30), Duration.ofMillis(1), Duration.ofMillis(16),
      Duration.ofSeconds(60));

  /** The name every racer increments. */
  static final ExtensionName COUNTER = ExtensionName.of("@shared/counter");

  private CheckoutChild() {}

  public static void main(String[] args) throws IOException {
    BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    FileSystemDatastore store = FileSystemDatastore.open(Path.of(args[1]));
    Path checkout = Path.of(args[2]);
    LockIdentity identity = LockIdentity.of("child@" + checkout.getFileName(), "child-host", ProcessHandle.current().pid());
    switch (args[0]) {
      case "commit" -> {
        Tierlock tierlock = Tierlock.builder().datastore(store).checkout(checkout).lockOptions(FAST)
            .environment(Environment.system().withLockIdentity(identity)).build();
        tierlock.transaction().refresh();
        System.out.println("ready");
        System.out.flush();
        stdin.readLine();
        commit(tierlock, args[3], Integer.parseInt(args[4]), Clock.systemUTC(), ack -> {
          System.out.println(ack);
          System.out.flush();
        }, () -> {
          try {
            stdin.readLine(); // the parent's first commit lands after ours, then both race
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
        System.out.println("done");
      }
      case "hold" -> {
        Clock fixed = Clock.fixed(Instant.parse(args[3]), ZoneOffset.UTC);
        Heartbeats never = (name, interval, beat) -> () -> { };
        Sleeper refuse = d -> {
          throw new IllegalStateException("the holding child never waits, yet was asked to wait " + d);
        };
        Tierlock tierlock = Tierlock.builder().datastore(store).checkout(checkout).environment(Environment.system()
                .withClock(fixed).withSleeper(refuse).withHeartbeats(never).withLockIdentity(identity))
                .lockOptions(LockOptions.DEFAULTS.withTtl(Duration.ofMillis(Long.parseLong(args[4])))).build();
        LockfileEntry entry = LockfileEntry.builder("1", fixed.instant()).build();
        tierlock.transaction().run(tx -> tx.put(ExtensionName.of("@child/committed"), entry));
        tierlock.transaction().run(tx -> tx.withPulledExtensionsLock(() -> {
          tx.put(ExtensionName.of("@child/inflight"), entry);
          System.out.println("holding " + ProcessHandle.current().pid());
          System.out.flush();
          try {
            String line = stdin.readLine();
            if (line == null) {
              // the parent stopped us (its end of stdin closed): the change never finishes; wait
              // on a condition nothing signals until the process is killed or stopped
              new java.util.concurrent.CountDownLatch(1).await();
            }
            return line;
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
          }
        }));
      }
      default -> throw new IllegalArgumentException("unknown mode " + args[0]);
    }
    System.out.flush();
  }

  /**
   * Commits {@code count} transactions on {@code tierlock}, one change each, and reports each
   * acknowledged one to {@code acks} in order: for {@code i % 3 == 2} it increments {@link
   * #COUNTER} (read and put in one change; {@code inc}, or {@code conflict} when a peer changed it
   * at the same time and this increment was dropped); for {@code i % 7 == 6} it removes the last
   * name of its own scope it put ({@code rm <name>}); else it puts {@code @<scope>/e<i>} at {@code
   * v<i>} ({@code put <name> v<i>}). Any other outcome is thrown. {@code afterFirst} runs once the
   * first commit is acknowledged (a step of lock-step before the race, so that the two processes'
   * commits are sure to interleave).
   */
  static void commit(Tierlock tierlock, String scope, int count, Clock clock, Consumer<String> acks,
      Runnable afterFirst) {
    Deque<ExtensionName> mine = new ArrayDeque<>();
    for (int i = 0; i < count; i++) {
      LockfileEntry entry = LockfileEntry.builder("v" + i, clock.instant()).build();
      if (i % 3 == 2) {
        try {
          published(tierlock.transaction().run(tx -> {
            int now = tx.entry(COUNTER).map(e -> Integer.parseInt(e.version())).orElse(0);
            // the scope as its channel: two writers' increments are never the same entry, which a
            // rebase would take for already there (a change is done when the lockfile holds it as it
            // wants), and the sum of acknowledged increments would then overcount
            tx.put(COUNTER, LockfileEntry.builder(Integer.toString(now + 1), clock.instant()).channel(scope).build());
          }));
          acks.accept("inc");
        } catch (LockfileConflictException e) {
          acks.accept("conflict");
        }
      } else if (i % 7 == 6 && !mine.isEmpty()) {
        ExtensionName name = mine.pop();
        published(tierlock.transaction().run(tx -> tx.remove(name)));
        acks.accept("rm " + name.value());
      } else {
        ExtensionName name = ExtensionName.of("@" + scope + "/e" + i);
        published(tierlock.transaction().run(tx -> tx.put(name, entry)));
        mine.push(name);
        acks.accept("put " + name.value() + " " + entry.version());
      }
      if (i == 0) {
        afterFirst.run();
      }
    }
  }

  private static void published(TransactionResult result) {
    if (result.status() != TransactionStatus.PUBLISHED) {
      throw new IllegalStateException("expected a published change, got " + result);
    }
  }
}
