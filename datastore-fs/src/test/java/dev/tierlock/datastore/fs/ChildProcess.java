package dev.tierlock.datastore.fs;

import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import dev.tierlock.TierlockException;
import dev.tierlock.internal.OsLockRegistry;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * The program {@link ChildJvm} runs in a second JVM, so that tests can race, crash and hold locks
 * from another process. Modes:
 *
 * <ul>
 *   <li>{@code race <root> <label> <keys> <increments>}: prints {@code ready}, waits for a line,
 *       then runs {@link #createAll} and {@link #increment}, printing {@code won <i>} per key won
 *       and {@code increments <n>};
 *   <li>{@code crash <root> <key> <content> <commit id> object|meta [sidecar]}: writes the object and
 *       halts the JVM (exit code 42) just before it moves the object file, or the metadata file, in
 *       (a metadata crash, or {@code sidecar}, writes as where there are no extended attributes);
 *   <li>{@code park <root> <key> <content> <commit id> object|meta}: writes the object and, just
 *       before it moves the object file (or the metadata file) in, prints {@code parked <temp
 *       file>} and waits forever (the test kills it there);
 *   <li>{@code hold <root> <key>}: takes the key's OS lock as an earlier version's writer does (no
 *       claim), prints {@code locked}, then appends {@code
 *       <text>} to {@code <file>} for each line {@code append <file> <text>} (printing {@code
 *       appended}) until another line comes, releases it and prints {@code released};
 *   <li>{@code stall <root> <key> <commit id> match|none}: reads the lockfile at the key, then
 *       writes it back with {@code @child/stale} added and that commit id, conditional on the
 *       version read ({@code match}) or unconditionally ({@code none}); just before it moves the
 *       object file in (inside the write's exclusion) prints {@code inside} and waits for a line
 *       (the test stops it there), then prints the write's result: {@code written}, {@code refused}
 *       (a precondition failure) or {@code busy <code>} (an exception with that code).
 * </ul>
 */
final class ChildProcess {

  /** The exit code of a simulated crash. */
  static final int CRASHED = 42;

  /** The key every racer increments. */
  static final ObjectKey COUNTER = ObjectKey.of("race/counter");

  private ChildProcess() {}

  public static void main(String[] args) throws IOException, InterruptedException {
    BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    Path root = Path.of(args[1]);
    switch (args[0]) {
      case "race" -> {
        FileSystemDatastore store = FileSystemDatastore.open(root);
        System.out.println("ready");
        System.out.flush();
        stdin.readLine();
        for (int won : createAll(store, args[2], Integer.parseInt(args[3]))) {
          System.out.println("won " + won);
        }
        System.out.println("increments " + increment(store, args[2], Integer.parseInt(args[4])));
      }
      case "crash" -> {
        ObjectKey key = ObjectKey.of(args[2]);
        Path object = root.toRealPath().resolve(key.value());
        boolean atMeta = args[5].equals("meta");
        boolean sidecarForm = atMeta || args.length > 6 && args[6].equals("sidecar");
        FileIo crashing = new FileIo() {
          @Override
          public boolean attach(Path file, String name, byte[] value) throws IOException {
            return !sidecarForm && FileIo.STANDARD.attach(file, name, value);
          }


          @Override
          public void move(Path temp, Path target) throws IOException {
            if (atMeta ? target.getParent().getFileName().toString().equals("meta") : target.equals(object)) {
              System.out.println("crashing");
              System.out.flush();
              Runtime.getRuntime().halt(CRASHED);
            }
            FileIo.STANDARD.move(temp, target);
          }
        };
        FileSystemDatastore store = FileSystemDatastore.open(root, FileSystemDatastoreOptions.defaults(), crashing);
        store.write(key, ObjectBody.of(args[3].getBytes(StandardCharsets.UTF_8)), WriteCondition.none(),
            ObjectMetadata.of(ObjectMetadata.COMMIT_ID, args[4]));
        System.out.println("did not crash");
      }
      case "park" -> {
        ObjectKey key = ObjectKey.of(args[2]);
        Path object = root.toRealPath().resolve(key.value());
        boolean atMeta = args[5].equals("meta");
        boolean sidecarForm = atMeta || args.length > 6 && args[6].equals("sidecar");
        FileIo parking = new FileIo() {
          @Override
          public boolean attach(Path file, String name, byte[] value) throws IOException {
            return !sidecarForm && FileIo.STANDARD.attach(file, name, value);
          }


          @Override
          public void move(Path temp, Path target) throws IOException {
            if (atMeta ? target.getParent().getFileName().toString().equals("meta") : target.equals(object)) {
              System.out.println("parked " + temp);
              System.out.flush();
              try {
                new CountDownLatch(1).await(); // parked for good: the test kills the JVM here
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("parked write interrupted");
              }
            }
            FileIo.STANDARD.move(temp, target);
          }
        };
        FileSystemDatastore store = FileSystemDatastore.open(root, FileSystemDatastoreOptions.defaults(), parking);
        store.write(key, ObjectBody.of(args[3].getBytes(StandardCharsets.UTF_8)), WriteCondition.none(),
            ObjectMetadata.of(ObjectMetadata.COMMIT_ID, args[4]));
        System.out.println("did not park");
      }
      case "hold" -> {
        // as a writer of an earlier version does: the key's OS lock alone, no claim
        Path lockFile = new RootLayout(root.toRealPath()).lockFile(ObjectKey.of(args[2]));
        OsLockRegistry.Attempt attempt = OsLockRegistry.shared().tryAcquire(lockFile, "key lock " + lockFile, Clock.systemUTC());
        if (!(attempt instanceof OsLockRegistry.Attempt.Acquired acquired)) {
          throw new IllegalStateException("Cannot hold " + lockFile + ": " + attempt);
        }
        try {
          System.out.println("locked");
          System.out.flush();
          for (String line = stdin.readLine(); line != null && line.startsWith("append "); line = stdin.readLine()) {
            String[] parts = line.split(" ", 3);
            Files.writeString(Path.of(parts[1]), parts[2] + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            System.out.println("appended");
            System.out.flush();
          }
        } finally {
          acquired.lock().release();
        }
        System.out.println("released");
      }
      case "stall" -> {
        ObjectKey key = ObjectKey.of(args[2]);
        Path object = root.toRealPath().resolve(key.value());
        FileIo stalling = new FileIo() {
          @Override
          public void move(Path temp, Path target) throws IOException {
            if (target.equals(object)) {
              System.out.println("inside");
              System.out.flush();
              stdin.readLine();
            }
            FileIo.STANDARD.move(temp, target);
          }
        };
        FileSystemDatastore store = FileSystemDatastore.open(root, FileSystemDatastoreOptions.defaults(), stalling);
        ReadResult.Found found = (ReadResult.Found) store.read(key, ReadCondition.always(), Lockfile.MAX_BYTES);
        byte[] stale = Lockfile.parse(found.bytes(), key.value())
            .with(ExtensionName.of("@child/stale"), LockfileEntry.builder("1", Instant.EPOCH).build()).bytes();
        WriteCondition condition = args[4].equals("match") ? WriteCondition.mustMatch(found.object().version())
            : WriteCondition.none();
        try {
          WriteResult result = store.write(key, ObjectBody.of(stale), condition,
              ObjectMetadata.of(ObjectMetadata.COMMIT_ID, args[3]));
          System.out.println(result instanceof WriteResult.Written ? "written" : "refused");
        } catch (TierlockException e) {
          System.out.println("busy " + e.code());
        }
      }
      default -> throw new IllegalArgumentException("unknown mode " + args[0]);
    }
    System.out.flush();
  }

  /**
   * Tries to create {@code race/k<i>} for every i below {@code keys}, each holding {@code label},
   * create-only; returns the indexes this racer won.
   */
  static List<Integer> createAll(FileSystemDatastore store, String label, int keys) {
    List<Integer> won = new ArrayList<>();
    for (int i = 0; i < keys; i++) {
      WriteResult result = store.write(ObjectKey.of("race/k" + i), ObjectBody.of(label.getBytes(StandardCharsets.UTF_8)),
          WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);
      if (result instanceof WriteResult.Written) {
        won.add(i);
      }
    }
    return won;
  }

  /**
   * Adds one to the number in {@link #COUNTER} by read and compare-and-swap until {@code times}
   * additions landed (at most 100,000 attempts); returns how many landed.
   */
  static int increment(FileSystemDatastore store, String label, int times) {
    int landed = 0;
    for (int attempt = 0; landed < times && attempt < 100_000; attempt++) {
      ReadResult.Found found = (ReadResult.Found) store.read(COUNTER, ReadCondition.always(), Lockfile.MAX_BYTES);
      long next = Long.parseLong(new String(found.bytes(), StandardCharsets.UTF_8)) + 1;
      WriteResult result = store.write(COUNTER, ObjectBody.of(Long.toString(next).getBytes(StandardCharsets.UTF_8)),
          WriteCondition.mustMatch(found.object().version()), ObjectMetadata.of("tierlock-holder", label));
      if (result instanceof WriteResult.Written) {
        landed++;
      }
    }
    return landed;
  }
}
