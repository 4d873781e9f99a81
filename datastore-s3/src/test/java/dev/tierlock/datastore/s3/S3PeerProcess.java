package dev.tierlock.datastore.s3;

import dev.tierlock.CommitMode;
import dev.tierlock.Environment;
import dev.tierlock.ExtensionName;
import dev.tierlock.LockOptions;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Tierlock;
import dev.tierlock.TransactionContext;
import dev.tierlock.TransactionResult;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * One peer of {@link S3TwoProcessTest}: a separate JVM with its own checkout (state directory and
 * cache inside it) on the shared bucket, committing one change per transaction and printing each
 * acknowledged change as an {@link AcknowledgedChange#line()}.
 *
 * <p>Arguments: {@code <name> <uri|client> <endpoint> <bucket> <prefix> <checkout> <own> <shared>}.
 * With {@code uri} it opens the datastore through the {@code s3://} provider (credentials from the
 * {@code aws.accessKeyId} and {@code aws.secretAccessKey} system properties); with {@code client}
 * it builds the test client itself. It prints {@code peer ready} once its datastore passed the
 * self-check, waits for a {@code go} line on its standard input, puts {@code own} names of its own
 * ({@code @<name>/ext-000} ...), prints {@code peer own-done}, waits for {@code go} again, then removes
 * and puts back {@code shared} names every peer shares ({@code @shared/ext-000} ...) with its own
 * versions, prints {@code peer done} and exits 0. Any failure prints its stack trace and exits 1; a
 * closed standard input exits 2. The global lock retries every few milliseconds so that contention
 * resolves fast; the lock's ttl stays long enough for heartbeats.
 */
final class S3PeerProcess {

  /** The global lock's timing in the peers. */
  static final LockOptions LOCK_OPTIONS =
      new LockOptions(Duration.ofSeconds(10), Duration.ofMillis(5), Duration.ofMillis(25), Duration.ofSeconds(60));

  private final String name;
  private final Tierlock tierlock;
  private final AtomicLong commits;
  private final BufferedReader commands;
  private int sequence;

  private S3PeerProcess(String name, Tierlock tierlock, AtomicLong commits, BufferedReader commands) {
    this.name = name;
    this.tierlock = tierlock;
    this.commits = commits;
    this.commands = commands;
  }

  /** Runs one peer; see the class comment for the arguments. */
  public static void main(String[] args) {
    try {
      System.exit(run(args));
    } catch (Throwable e) {
      e.printStackTrace();
      System.out.flush();
      System.exit(1);
    }
  }

  private static int run(String[] args) throws IOException {
    if (args.length != 8) {
      throw new IllegalArgumentException("Cannot start a peer: expected 8 arguments, got " + List.of(args));
    }
    String name = args[0];
    URI endpoint = URI.create(args[2]);
    String bucket = args[3];
    String prefix = args[4];
    int own = Integer.parseInt(args[6]);
    int shared = Integer.parseInt(args[7]);
    AtomicLong commits = new AtomicLong();
    // two processes taking turns under the global lease: each removal reads what the other put
    // (without the lease, a removal made on a stale view of a name the other just changed is a
    // conflict its caller is told of, as the auto and optimistic modes document)
    Tierlock.Builder builder = Tierlock.builder()
        .commitMode(CommitMode.LOCKED)
        .checkout(Path.of(args[5]))
        .lockOptions(LOCK_OPTIONS)
        .environment(Environment.system().withCommitIds(() -> name + "-" + commits.incrementAndGet()));
    S3Client client = null;
    switch (args[1]) {
      case "uri" -> builder.datastore(URI.create(
          "s3://" + bucket + "/" + prefix + "?region=us-east-1&pathStyle=true&endpoint=" + endpoint));
      case "client" -> {
        client = S3TestServer.newClient(endpoint, List.of());
        builder.datastore(S3Datastore.of(client, S3DatastoreConfig.builder(bucket).prefix(prefix).build()));
      }
      default -> throw new IllegalArgumentException("Cannot start a peer: mode is uri or client, not " + args[1]);
    }
    BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    try (Tierlock tierlock = builder.build()) {
      tierlock.checkDatastore();
      S3PeerProcess peer = new S3PeerProcess(name, tierlock, commits, commands);
      System.out.println(PeerProcess.PROTOCOL + "ready " + tierlock.transaction().describe());
      if (!peer.awaitGo()) {
        return 2;
      }
      for (int i = 0; i < own; i++) {
        peer.put(String.format("@%s/ext-%03d", name, i), "1.0." + i);
      }
      System.out.println(PeerProcess.PROTOCOL + "own-done");
      if (!peer.awaitGo()) {
        return 2;
      }
      for (int i = 0; i < shared; i++) {
        String extension = String.format("@shared/ext-%03d", i);
        peer.remove(extension);
        peer.put(extension, name + "." + i);
      }
      System.out.println(PeerProcess.PROTOCOL + "done");
    } finally {
      if (client != null) {
        client.close();
      }
    }
    return 0;
  }

  private boolean awaitGo() throws IOException {
    System.out.flush();
    String line = commands.readLine();
    if (line == null) {
      return false;
    }
    if (!line.equals("go")) {
      throw new IllegalStateException("Cannot go on: the test sent \"" + line + "\" instead of go");
    }
    return true;
  }

  private void put(String extension, String version) {
    LockfileEntry entry = LockfileEntry.builder(version, Instant.now()).build();
    run(AcknowledgedChange.Operation.PUT, extension, version,
        tx -> tx.put(ExtensionName.of(extension), entry));
  }

  private void remove(String extension) {
    run(AcknowledgedChange.Operation.REMOVE, extension, AcknowledgedChange.NO_VERSION,
        tx -> tx.remove(ExtensionName.of(extension)));
  }

  private void run(AcknowledgedChange.Operation operation, String extension, String version,
      Consumer<TransactionContext> change) {
    long before = commits.get();
    long start = System.nanoTime();
    TransactionResult result = tierlock.transaction().run(change);
    long millis = Duration.ofNanos(System.nanoTime() - start).toMillis();
    sequence++;
    System.out.println(new AcknowledgedChange(name, sequence, operation, extension, version, result.status(),
        result.attempts(), before, commits.get(), millis).line());
  }
}
