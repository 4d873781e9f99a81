package dev.tierlock.datastore.fs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Which file a path names, as far as the file system can tell: the file's {@link
 * BasicFileAttributes#fileKey() file key} and its modification time. A sidecar entry records the
 * identity of the one file the datastore moved into place with that metadata, so the metadata
 * attaches to that file only, never to bytes another writer put at the path: a file another tool
 * moves in is another file (another inode), and one it rewrites in place gets a new modification
 * time. A rename keeps both, so the identity of a staged temp file, read before it is moved over
 * its target, is the identity the object then has.
 *
 * <p>The file key is reduced to what names the file within the root, which is one file system: on
 * POSIX systems the inode number alone, because the device number of one network share differs
 * between the hosts that mount it, while the inode number (the server's file id) does not. Other
 * file keys are named by the SHA-256 of their text. A provider that has no file keys (the JDK's zip
 * file system, Windows' default provider) has no identity here: there a file's metadata is bound by
 * its digest alone (see {@link Sidecar}).
 *
 * <p>The modification time carries the full precision the file system keeps. To keep a file that
 * another tool writes right after the datastore (within one tick of a coarse kernel clock) from
 * sharing the temp file's time, {@link #stamp} sets the temp file's time to its own millisecond
 * plus a random number of nanoseconds, and reads back what the file system stored. Immutable.
 *
 * @param file the file's key within the root ({@code ino:<number>} or {@code key:<sha256>})
 * @param modified the file's last modification time
 */
record FileIdentity(String file, Instant modified) {

  private static final Pattern INODE = Pattern.compile("[(,]ino=([0-9]+)[,)]");
  private static final Pattern FILE = Pattern.compile("(ino:[0-9]+|key:[0-9a-f]{64})");

  /** Returns the identity in attributes read from a file, or empty when they have no file key. */
  static Optional<FileIdentity> of(BasicFileAttributes attributes) {
    @Nullable Object key = attributes.fileKey();
    if (key == null) {
      return Optional.empty();
    }
    String text = key.toString();
    Matcher inode = INODE.matcher(text);
    String file = inode.find() ? "ino:" + inode.group(1) : "key:" + Digests.sha256Hex(text.getBytes(StandardCharsets.UTF_8));
    return Optional.of(new FileIdentity(file, attributes.lastModifiedTime().toInstant()));
  }

  /**
   * Reads the identity of the file at {@code path}, or empty when the provider has no file keys.
   *
   * @throws IOException if its attributes cannot be read (a {@link java.nio.file.NoSuchFileException}
   *     when there is no file)
   */
  static Optional<FileIdentity> read(Path path) throws IOException {
    return of(Files.readAttributes(path, BasicFileAttributes.class));
  }

  /**
   * Gives a staged temp file, already written and closed, a modification time of its own (its
   * millisecond plus random nanoseconds; best effort, a file system that refuses keeps its time),
   * then returns its identity, which the file keeps when it is moved.
   *
   * @throws IOException if its attributes cannot be read
   */
  static Optional<FileIdentity> stamp(Path temp) throws IOException {
    BasicFileAttributes attributes = Files.readAttributes(temp, BasicFileAttributes.class);
    if (attributes.fileKey() == null) {
      return Optional.empty();
    }
    Instant own = attributes.lastModifiedTime().toInstant().truncatedTo(ChronoUnit.MILLIS)
        .plusNanos(ThreadLocalRandom.current().nextInt(1, 1_000_000));
    try {
      Files.setLastModifiedTime(temp, FileTime.from(own));
    } catch (IOException | UnsupportedOperationException e) {
      // the file keeps the time the file system gave it; the identity below is still what it has
    }
    return read(temp);
  }

  /**
   * Parses the identity a sidecar recorded ({@link #fileToken()} and {@link #modifiedToken()}), or
   * returns empty when either is malformed.
   */
  static Optional<FileIdentity> parse(@Nullable String file, @Nullable String modified) {
    if (file == null || modified == null || !FILE.matcher(file).matches()) {
      return Optional.empty();
    }
    try {
      return Optional.of(new FileIdentity(file, Instant.parse(modified)));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  /** Returns the file key as a sidecar records it: no spaces, no line breaks. */
  String fileToken() {
    return file;
  }

  /** Returns the modification time as a sidecar records it: ISO-8601 in UTC, to the nanosecond. */
  String modifiedToken() {
    return modified.toString();
  }

  // equals, hashCode and toString written out: a record's own are made at their first call (a bootstrap that
  // spins classes no start-up archive holds), which every command line run pays
  @Override
  public boolean equals(@Nullable Object other) {
    return other instanceof FileIdentity identity && file.equals(identity.file) && modified.equals(identity.modified);
  }

  @Override
  public int hashCode() {
    return 31 * file.hashCode() + modified.hashCode();
  }

  @Override
  public String toString() {
    return "FileIdentity[file=" + file + ", modified=" + modified + "]";
  }
}
