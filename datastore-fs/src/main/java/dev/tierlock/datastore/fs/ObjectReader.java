package dev.tierlock.datastore.fs;

import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.ObjectTooLargeException;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.StoredObject;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Reads objects without taking their lock. Writers replace a file by an atomic move, never in
 * place, so a channel opened on an object keeps seeing one content whole. The metadata sidecar is
 * read before and after the open, and so is the identity of the file at the path ({@link
 * FileIdentity}: its file key and modification time); the open is retried when either changed in
 * between, so the identity is that of the file the channel holds, and the content is paired with
 * the metadata the datastore wrote with that very file. Metadata attaches only when an entry names
 * both the bytes' digest and that identity ({@link Sidecar}): the one the file carries in its
 * extended attribute ({@link ExtendedAttributes}, read while the path held that file), else one of
 * the sidecar (written by earlier versions, or where the file system keeps no such attributes). A
 * file another writer moved in or rewrote in place has none, whatever its bytes. The version is computed from the
 * bytes read through that channel. Stateless apart from the layout; thread-safe.
 */
final class ObjectReader {

  /** Changes of the sidecar or of the file tolerated during one open before the read gives up. */
  static final int MAX_ATTEMPTS = 16;

  private static final int MAX_WHOLE_READ = Integer.MAX_VALUE - 8;

  private final RootLayout layout;

  ObjectReader(RootLayout layout) {
    this.layout = layout;
  }

  /**
   * What is known of an object from one read of its bytes.
   *
   * @param contentDigest lowercase hex SHA-256 of the bytes
   * @param size the number of bytes
   * @param file the identity of the file they were read from, or {@code null} where the file
   *     system has no file keys
   * @param metadata the metadata recorded for that file with those bytes (empty when none is)
   * @param version the version over bytes and metadata
   */
  record ObjectState(String contentDigest, long size, @Nullable FileIdentity file, ObjectMetadata metadata,
      ObjectVersion version) {

    /** Describes the object, dated by the file's modification time (the filesystem's own clock) where it is known. */
    StoredObject describe(ObjectKey key) {
      return new StoredObject(key, version, size, metadata, file == null ? null : file.modified());
    }
  }

  /**
   * The bytes of an object and what is known of it.
   *
   * @param state the object's state
   * @param bytes the bytes
   */
  record Content(ObjectState state, byte[] bytes) {}

  /**
   * Reads a whole object, or returns empty when there is none: its size is checked against {@code
   * maxBytes} before any byte is read, and at most one byte more than that is ever read.
   *
   * @throws ObjectTooLargeException if the object is larger than {@code maxBytes}
   */
  Optional<Content> readAll(ObjectKey key, Path file, long maxBytes) throws IOException {
    Optional<Opened> opened = open(key, file);
    if (opened.isEmpty()) {
      return Optional.empty();
    }
    try (Opened o = opened.get()) {
      long size = o.channel.size();
      if (size > maxBytes) {
        throw new ObjectTooLargeException("object " + key + " at " + layout.describe(), size, maxBytes, null);
      }
      if (size > MAX_WHOLE_READ) {
        throw new IOException("the object holds " + size + " bytes, too many to read whole; stream it");
      }
      byte[] bytes = Channels.newInputStream(o.channel).readNBytes((int) Math.min(maxBytes, MAX_WHOLE_READ) + 1);
      if (bytes.length > maxBytes) {
        throw new ObjectTooLargeException("object " + key + " at " + layout.describe(), -1, maxBytes, null);
      }
      if (bytes.length > MAX_WHOLE_READ) {
        throw new IOException("the object grew past " + MAX_WHOLE_READ + " bytes while it was read; stream it");
      }
      String digest = Digests.sha256Hex(bytes);
      return Optional.of(new Content(o.state(digest, bytes.length), bytes));
    }
  }

  /** Hashes an object without keeping its bytes, or returns empty when there is none. */
  Optional<ObjectState> state(ObjectKey key, Path file) throws IOException {
    Optional<Opened> opened = open(key, file);
    if (opened.isEmpty()) {
      return Optional.empty();
    }
    try (Opened o = opened.get()) {
      return Optional.of(o.hash());
    }
  }

  /**
   * Opens a download: hashes the object through an open channel, then rewinds that channel, so
   * the stream yields exactly the bytes the version describes even if a writer replaces the file.
   */
  Optional<ObjectStream> stream(ObjectKey key, Path file) throws IOException {
    Optional<Opened> opened = open(key, file);
    if (opened.isEmpty()) {
      return Optional.empty();
    }
    Opened o = opened.get();
    try {
      ObjectState state = o.hash();
      o.channel.position(0);
      return Optional.of(ObjectStream.of(state.describe(key), Channels.newInputStream(o.channel), o.channel));
    } catch (IOException | RuntimeException e) {
      try {
        o.close();
      } catch (IOException closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
  }

  private Optional<Opened> open(ObjectKey key, Path file) throws IOException {
    Path sidecar = layout.sidecar(key);
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      byte[] before = readSidecar(sidecar);
      Observed seen = observe(file);
      @Nullable SeekableByteChannel channel = openObject(key, file);
      if (channel == null) {
        return Optional.empty();
      }
      Observed opened;
      byte[] after;
      byte[] attached;
      try {
        attached = ExtendedAttributes.read(file, ExtendedAttributes.METADATA);
        opened = observe(file);
        after = readSidecar(sidecar);
      } catch (IOException | RuntimeException e) {
        channel.close();
        throw e;
      }
      if (Arrays.equals(before, after) && seen.present && seen.equals(opened)) {
        // nothing moved a file to the path while it was opened: the channel holds the file observed
        return Optional.of(new Opened(channel, Sidecar.parse(attached), Sidecar.parse(after),
            opened.identity.orElse(null)));
      }
      channel.close();
    }
    throw new IOException("it or its metadata kept changing while it was opened (" + MAX_ATTEMPTS + " attempts)");
  }

  /**
   * Reads the identity of the file at the path; a file that is not there (or a path below a file)
   * is observed as absent, and the open then decides.
   */
  private static Observed observe(Path file) throws IOException {
    try {
      return new Observed(true, FileIdentity.read(file));
    } catch (NoSuchFileException e) {
      return Observed.ABSENT;
    } catch (FileSystemException e) {
      if (e instanceof AccessDeniedException) {
        throw e;
      }
      return Observed.ABSENT; // "not a directory" below a file, and the like
    }
  }

  /** What one look at the path saw: whether a file was there, and its identity if it has one. */
  private record Observed(boolean present, Optional<FileIdentity> identity) {
    static final Observed ABSENT = new Observed(false, Optional.empty());

    // written out: a record's own equals, hashCode and toString are made at their first call (a bootstrap that spins classes no
    // start-up archive holds), which every command line run pays
    @Override
    public boolean equals(@Nullable Object other) {
      return other instanceof Observed o && present == o.present && identity.equals(o.identity);
    }

    @Override
    public int hashCode() {
      return 31 * Boolean.hashCode(present) + identity.hashCode();
    }

    @Override
    public String toString() {
      return "Observed[present=" + present + ", identity=" + identity + "]";
    }
  }

  private @Nullable SeekableByteChannel openObject(ObjectKey key, Path file) throws IOException {
    if (Files.isDirectory(file)) {
      return null; // only a prefix of other objects
    }
    try {
      return Files.newByteChannel(file, StandardOpenOption.READ);
    } catch (NoSuchFileException e) {
      return null;
    } catch (FileSystemException e) {
      if (layout.fileAncestor(key).isPresent() || Files.isDirectory(file)) {
        return null; // "not a directory" below a file, or a directory that appeared meanwhile
      }
      throw e;
    }
  }

  private static byte[] readSidecar(Path sidecar) throws IOException {
    try {
      return Files.readAllBytes(sidecar);
    } catch (NoSuchFileException e) {
      return new byte[0];
    }
  }

  /**
   * An object channel fixed on one file, the metadata attached to that file (its extended
   * attribute, read between two looks that saw the same file), the sidecar read around its
   * opening, and the file's identity ({@code null} where the file system has no file keys).
   */
  private static final class Opened implements AutoCloseable {
    final SeekableByteChannel channel;
    final Sidecar attached;
    final Sidecar sidecar;
    final @Nullable FileIdentity file;

    Opened(SeekableByteChannel channel, Sidecar attached, Sidecar sidecar, @Nullable FileIdentity file) {
      this.channel = channel;
      this.attached = attached;
      this.sidecar = sidecar;
      this.file = file;
    }

    /** The file's own attribute first (written with it), else the sidecar (earlier versions, or no attributes). */
    ObjectState state(String digest, long size) {
      ObjectMetadata metadata = attached.metadataOf(digest, file).or(() -> sidecar.metadataOf(digest, file))
          .orElse(ObjectMetadata.EMPTY);
      return new ObjectState(digest, size, file, metadata, Digests.version(digest, metadata));
    }

    ObjectState hash() throws IOException {
      MessageDigest digest = Digests.sha256();
      ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
      long size = 0;
      for (int n = channel.read(buffer); n >= 0; n = channel.read(buffer)) {
        buffer.flip();
        size += buffer.remaining();
        digest.update(buffer);
        buffer.clear();
      }
      return state(Digests.hex(digest), size);
    }

    @Override
    public void close() throws IOException {
      channel.close();
    }
  }
}
