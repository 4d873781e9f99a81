package dev.tierlock.testkit;

import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.StoredObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * The directory layout of a {@link FakeObjectStore}. Each object version is two files under {@code
 * objects/}: {@code v<n>.bin} (the bytes) and {@code v<n>.meta} (key, size and user metadata, one
 * {@code field=value} per line), the second written last, so it marks a complete version. {@code tmp/} holds bodies being staged,
 * {@code last-version} the version counter (written on close, so versions of deleted objects are
 * not reused after a reopen), and {@code owner.lock} an OS lock held while the directory is open.
 * Not thread-safe: the store calls it under its own lock.
 */
final class FakeObjectFiles {

  private static final String KEY = "key";
  private static final String SIZE = "size";
  private static final String VERSION = "version";
  private static final String MODIFIED = "modified";
  private static final String META = "meta.";
  private static final String DESCRIPTION = ".meta";

  private final Path root;
  private final Path objects;
  private final Path tmp;
  private final FileChannel ownerChannel;
  private final FileLock ownerLock;

  private FakeObjectFiles(Path root, FileChannel ownerChannel, FileLock ownerLock) {
    this.root = root;
    this.objects = root.resolve("objects");
    this.tmp = root.resolve("tmp");
    this.ownerChannel = ownerChannel;
    this.ownerLock = ownerLock;
  }

  /**
   * Takes ownership of {@code root}, creating it if needed.
   *
   * @throws IllegalStateException if another open store owns the directory
   * @throws IOException if the directory cannot be prepared
   */
  static FakeObjectFiles open(Path root) throws IOException {
    Files.createDirectories(root);
    FileChannel channel = FileChannel.open(root.resolve("owner.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null;
    }
    if (lock == null) {
      channel.close();
      throw new IllegalStateException("Cannot open fake remote in " + root + ": another open FakeRemote owns it");
    }
    FakeObjectFiles files = new FakeObjectFiles(root, channel, lock);
    Files.createDirectories(files.objects);
    Files.createDirectories(files.tmp);
    return files;
  }

  Path root() {
    return root;
  }

  /** Returns the path of the bytes of version {@code number}. */
  Path data(long number) {
    return objects.resolve("v" + number + ".bin");
  }

  /**
   * Reads the objects a previous instance left, keeping the newest complete version of each key and
   * deleting everything else (staged bodies, superseded and incomplete versions).
   */
  Loaded load() throws IOException {
    deleteAll(tmp, p -> true);
    long lastVersion = 0;
    Path counter = root.resolve("last-version");
    if (Files.exists(counter)) {
      lastVersion = Long.parseLong(Files.readString(counter).trim());
    }
    TreeMap<String, Entry> index = new TreeMap<>();
    List<Path> descriptions;
    try (Stream<Path> listed = Files.list(objects)) {
      descriptions = listed.filter(p -> p.getFileName().toString().endsWith(DESCRIPTION)).toList();
    }
    for (Path p : descriptions) {
      String name = p.getFileName().toString();
      long number = Long.parseLong(name.substring(1, name.length() - DESCRIPTION.length()));
      lastVersion = Math.max(lastVersion, number);
      Map<String, String> fields = parse(Files.readString(p, StandardCharsets.UTF_8));
      String key = fields.get(KEY);
      Entry previous = key == null ? null : index.get(key);
      if (key != null && Files.exists(data(number)) && (previous == null || previous.number() < number)) {
        Map<String, String> metadata = new TreeMap<>();
        fields.forEach((field, value) -> {
          if (field.startsWith(META)) {
            metadata.put(field.substring(META.length()), value);
          }
        });
        ObjectVersion version = ObjectVersion.of(fields.getOrDefault(VERSION, "v" + number));
        index.put(key, new Entry(number, Long.parseLong(fields.getOrDefault(SIZE, "0")), new ObjectMetadata(metadata),
            version, java.time.Instant.parse(fields.getOrDefault(MODIFIED, java.time.Instant.EPOCH.toString()))));
      }
    }
    Set<Path> live = new HashSet<>();
    index.values().forEach(e -> {
      live.add(data(e.number()));
      live.add(description(e.number()));
    });
    deleteAll(objects, p -> !live.contains(p));
    return new Loaded(index, lastVersion);
  }

  /** Copies a body into a fresh file under {@code tmp/}; the caller moves or deletes it. */
  Path stage(InputStream in) throws IOException {
    Path staged = Files.createTempFile(tmp, "body-", ".part");
    Files.copy(in, staged, StandardCopyOption.REPLACE_EXISTING);
    return staged;
  }

  /** Writes the description of the object written as number {@code entry.number()}, which completes it. */
  void describe(ObjectKey key, Entry entry) throws IOException {
    long number = entry.number();
    StringBuilder text = new StringBuilder();
    text.append(KEY).append('=').append(key.value()).append('\n');
    text.append(SIZE).append('=').append(entry.size()).append('\n');
    text.append(VERSION).append('=').append(entry.version().value()).append('\n');
    text.append(MODIFIED).append('=').append(entry.modified()).append('\n');
    ObjectMetadata metadata = entry.metadata();
    metadata.values().forEach((name, value) -> text.append(META).append(name).append('=').append(value).append('\n'));
    Path temp = tmp.resolve("v" + number + DESCRIPTION);
    Files.writeString(temp, text, StandardCharsets.UTF_8);
    Files.move(temp, description(number), StandardCopyOption.ATOMIC_MOVE);
  }

  /** Deletes the files of version {@code number}, as far as the platform allows. */
  void delete(long number) {
    try {
      Files.deleteIfExists(description(number));
      Files.deleteIfExists(data(number));
    } catch (IOException e) {
      // An open download may still hold the old bytes (Windows); load() or the directory's deletion removes them.
    }
  }

  /** Saves the version counter and gives up ownership of the directory. */
  void close(long lastVersion) throws IOException {
    try {
      Files.writeString(root.resolve("last-version"), Long.toString(lastVersion));
    } finally {
      ownerLock.release();
      ownerChannel.close();
    }
  }

  /** Parses a description: one {@code field=value} per line (keys and metadata hold no line break). */
  private static Map<String, String> parse(String text) {
    Map<String, String> fields = new TreeMap<>();
    for (String line : text.split("\n")) {
      int equals = line.indexOf('=');
      if (equals > 0) {
        fields.put(line.substring(0, equals), line.substring(equals + 1));
      }
    }
    return fields;
  }

  private Path description(long number) {
    return objects.resolve("v" + number + DESCRIPTION);
  }

  private static void deleteAll(Path dir, Predicate<Path> which) throws IOException {
    List<Path> doomed;
    try (Stream<Path> listed = Files.list(dir)) {
      doomed = listed.filter(which).toList();
    }
    for (Path p : doomed) {
      Files.deleteIfExists(p);
    }
  }

  /**
   * What the store knows of one current object.
   *
   * @param number the write that made it, which names its files
   * @param size its length in bytes
   * @param metadata its user metadata
   * @param version the version it reports
   * @param modified when the store wrote it, by the store's clock
   */
  record Entry(long number, long size, ObjectMetadata metadata, ObjectVersion version, java.time.Instant modified) {
    StoredObject toStored(ObjectKey key) {
      return new StoredObject(key, version(), size, metadata, modified);
    }
  }

  /** The state found in a directory: the current version of each key, and the last version number used. */
  record Loaded(TreeMap<String, Entry> index, long lastVersion) {}
}
