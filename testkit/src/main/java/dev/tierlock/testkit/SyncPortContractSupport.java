package dev.tierlock.testkit;

import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileCodec;
import dev.tierlock.LockfileEntry;
import dev.tierlock.LockfileHead;
import dev.tierlock.ManagedLockfileSyncPort;
import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the sync-port contract's tests share: a fresh datastore per test wrapped in a {@link
 * FaultyDatastore}, the port over it with its cache and state directory, and helpers that plant a
 * peer's lockfile behind the port's back.
 */
abstract class SyncPortContractSupport {


  static final Namespace NAMESPACE = Namespace.of("team");
  static final ObjectKey LOCKFILE_KEY = NAMESPACE.key(TierPath.LOCKFILE);
  static final TierPath ARCHIVE_A = TierPath.of("config/pulled-archives/@s/a/" + "a".repeat(64) + ".tar.gz");

  @TempDir Path temp;

  private @Nullable Datastore created;
  private @Nullable FaultyDatastore store;
  private @Nullable ManagedLockfileSyncPort port;
  private final AtomicInteger commits = new AtomicInteger();

  /**
   * Returns a fresh, empty datastore; called before each test and closed after it.
   *
   * @throws Exception if the store cannot be created (the test then fails)
   */
  protected abstract Datastore createDatastore() throws Exception;

  @BeforeEach
  final void openPort() throws Exception {
    Datastore fresh = createDatastore();
    created = fresh;
    FaultyDatastore faulty = FaultyDatastore.wrap(fresh);
    store = faulty;
    port = ManagedLockfileSyncPort.remote(faulty, NAMESPACE, temp.resolve("cache"), temp.resolve("state"),
        TestClock.create().sleeper());
  }

  @AfterEach
  final void closeStore() {
    if (created != null) {
      created.close();
    }
  }

  final FaultyDatastore store() {
    if (store == null) {
      throw new IllegalStateException("Cannot use the store: the test has not started");
    }
    return store;
  }

  final ManagedLockfileSyncPort port() {
    if (port == null) {
      throw new IllegalStateException("Cannot use the port: the test has not started");
    }
    return port;
  }

  static Lockfile lockfile(String... names) {
    Lockfile lockfile = Lockfile.EMPTY;
    for (String name : names) {
      lockfile = lockfile.with(ExtensionName.of(name), LockfileEntry.builder("1", "2026-01-01T00:00:00.000Z").build());
    }
    return lockfile;
  }

  static byte[] encode(String... names) {
    return LockfileCodec.encode(lockfile(names));
  }

  /** Returns a fresh commit id. */
  final String commit() {
    return "commit-" + commits.incrementAndGet();
  }

  /** Writes the shared lockfile behind the port's back, as a peer would; returns its version. */
  final ObjectVersion plant(byte[] bytes) {
    return plant(bytes, ObjectMetadata.EMPTY);
  }

  /** Writes the shared lockfile behind the port's back with {@code metadata}; returns its version. */
  final ObjectVersion plant(byte[] bytes, ObjectMetadata metadata) {
    WriteResult result = store().delegate().write(LOCKFILE_KEY, ObjectBody.of(bytes), WriteCondition.none(), metadata);
    return ((WriteResult.Written) result).version();
  }

  /** Returns the metadata of a peer's commit {@code id} built on the commits {@code history}, newest first. */
  static ObjectMetadata commitOf(String id, String history) {
    return history.isEmpty() ? ObjectMetadata.of(ObjectMetadata.COMMIT_ID, id)
        : new ObjectMetadata(Map.of(ObjectMetadata.COMMIT_ID, id, LockfileHead.HISTORY, history));
  }

  final ObjectMetadata sharedMetadata() {
    return store().delegate().stat(LOCKFILE_KEY).orElseThrow().metadata();
  }

  final byte[] local() throws IOException {
    return Files.readAllBytes(port().lockfilePath());
  }

  final void writeLocal(TierPath path, byte[] bytes) throws IOException {
    Path file = port().localPath(path);
    Files.createDirectories(file.getParent());
    Files.write(file, bytes);
  }

  final List<LoggedOperation> writes() {
    return store().log().entries(DatastoreOperation.WRITE);
  }
}
