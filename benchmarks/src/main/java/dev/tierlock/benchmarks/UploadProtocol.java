package dev.tierlock.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Namespace;
import dev.tierlock.Sleeper;
import dev.tierlock.TierPath;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.WriteCondition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * The original tool's way to change the shared lockfile, over the datastore SPI: (the {@linkplain
 * #baseline baseline protocol} only: take {@link BaselineLock}), GET the lockfile, edit it as a
 * Jackson tree, write the edited copy into the checkout (the original edits its cached copy), PUT it
 * unconditionally, (release the lock), each call retried as the original's SDK retries it ({@link
 * ClientRetries}). Without the lock ({@link #noLock}) concurrent writers lose
 * each other's changes, which the report counts. Not thread-safe: one per writer.
 */
final class UploadProtocol implements Committer {

  private static final ObjectKey LOCKFILE = Namespace.NONE.key(TierPath.LOCKFILE);
  private static final ObjectKey LOCK = Namespace.NONE.rootKey(".datastore.lock");

  private final Datastore store;
  private final Optional<BaselineLock> lock;
  private final Path localCopy;

  private UploadProtocol(Datastore store, Optional<BaselineLock> lock, Path directory) {
    this.store = store;
    this.lock = lock;
    this.localCopy = directory.resolve("upstream_extensions.json");
    try {
      Files.createDirectories(directory);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create checkout " + directory, e);
    }
  }

  /** Returns the baseline protocol: lock, GET, unconditional PUT, unlock; with the original's lock waits. */
  static UploadProtocol baseline(Datastore store, Path directory, String holder, long seed) {
    return new UploadProtocol(store, Optional.of(new BaselineLock(store, LOCK, holder, Clock.systemUTC(),
        Sleeper.SYSTEM, new SplittableRandom(seed))), directory);
  }

  /** Returns the no-lock protocol: GET and unconditional PUT. */
  static UploadProtocol noLock(Datastore store, Path directory) {
    return new UploadProtocol(store, Optional.empty(), directory);
  }

  @Override
  public void put(ExtensionName name, LockfileEntry entry) {
    change(tree -> tree.set(name.value(), json(entry)));
  }

  @Override
  public void remove(ExtensionName name) {
    change(tree -> tree.remove(name.value()));
  }

  private void change(Consumer<ObjectNode> edit) {
    lock.ifPresent(BaselineLock::acquire);
    try {
      ReadResult current = ClientRetries.call(() -> store.read(LOCKFILE, ReadCondition.always(), Lockfile.MAX_BYTES));
      ObjectNode tree = current instanceof ReadResult.Found found
          ? (ObjectNode) StringifyJson.read(found.bytes())
          : StringifyJson.object();
      edit.accept(tree);
      byte[] bytes = StringifyJson.write(tree);
      Files.write(localCopy, bytes);
      ClientRetries.call(() -> store.write(LOCKFILE, ObjectBody.of(bytes), WriteCondition.none(), ObjectMetadata.EMPTY));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + localCopy, e);
    } finally {
      lock.ifPresent(BaselineLock::release);
    }
  }

  /** Returns {@code entry} as the original writes it: known fields in order, {@code files} sorted, empty ones left out. */
  static JsonNode json(LockfileEntry entry) {
    ObjectNode node = StringifyJson.object();
    node.put("version", entry.version());
    node.put("pulledAt", entry.pulledAt());
    strings(node, "files", entry.files().stream().sorted().toList());
    strings(node, "include", entry.include());
    entry.checksum().ifPresent(v -> node.put("checksum", v));
    entry.filesChecksum().ifPresent(v -> node.put("filesChecksum", v));
    entry.serverUrl().ifPresent(v -> node.put("serverUrl", v));
    entry.channel().ifPresent(v -> node.put("channel", v));
    return node;
  }

  private static void strings(ObjectNode node, String field, List<String> values) {
    if (!values.isEmpty()) {
      ArrayNode array = node.putArray(field);
      values.forEach(array::add);
    }
  }
}
