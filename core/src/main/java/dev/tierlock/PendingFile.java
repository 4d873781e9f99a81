package dev.tierlock;

import dev.tierlock.internal.AtomicFileWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Optional;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * The pending record's file, rewritten in place: a write costs one {@code fdatasync} and no rename,
 * and only the file's creation forces its directory. The file holds two fixed {@value #SLOT}-byte
 * headers (at 0 and {@value #SLOT}) and the bodies after them. A header names its body (offset,
 * length, SHA-256), carries a sequence number and is guarded by a CRC32C of its own bytes. A write
 * puts the new body where it overlaps neither the current header nor the current body (before the
 * current body if it fits, else after it), then the new header into the other slot, then forces the
 * file once. Whatever a crash leaves of that write, the current header and body are untouched: a
 * torn new header or body fails its checks, and the reader takes the current one, the valid header
 * with the highest sequence number. So a reader always finds the old content or the new, never a
 * mix, and never nothing where there was a record.
 *
 * <p>A header may say "nothing" (no body): that is how a record is cleared, so the file, once
 * created, stays. A file without a valid header (a record of an earlier Tierlock, plain JSON, or
 * anything else) is read whole as the earlier form, and the first write replaces it atomically (temp
 * file, fsync, rename, directory fsync) in this form. Not thread-safe: the caller holds the
 * checkout's transaction lock.
 */
final class PendingFile {

  /** The size of each header slot. */
  static final int SLOT = 64;

  private static final int BODIES = 2 * SLOT;
  private static final byte[] MAGIC = "TLPR".getBytes(StandardCharsets.US_ASCII);
  private static final byte FORMAT = 1;
  private static final byte RECORD = 0;
  private static final byte NOTHING = 1;
  private static final int DIGEST_BYTES = 28;

  private final Path path;

  PendingFile(Path path) {
    this.path = path;
  }

  /** What the file holds. */
  sealed interface Content {}

  /**
   * The body of the current header: the record's bytes.
   *
   * @param bytes the body
   */
  record Body(byte[] bytes) implements Content {}

  /** The current header says nothing is recorded. */
  enum Cleared implements Content { INSTANCE }

  /**
   * The file has no valid header: its whole content, to read as the earlier plain form.
   *
   * @param bytes the file's bytes
   */
  record Plain(byte[] bytes) implements Content {}

  /** A file or record over the size the caller reads; the message says which. */
  static final class TooLarge extends IOException {
    private static final long serialVersionUID = 1L;

    TooLarge(String message) {
      super(message);
    }
  }

  /** One parsed header. */
  private record Header(int slot, long sequence, boolean nothing, long offset, long length, byte[] digest) {
    long end() {
      return nothing ? BODIES : offset + length;
    }
  }

  /**
   * Reads what the file holds, at most {@code maxBytes} of a body.
   *
   * @throws NoSuchFileException if there is no file
   * @throws TooLarge if the file (in the earlier form) or the record is over {@code maxBytes}
   * @throws IOException if it cannot be read
   */
  Content read(int maxBytes) throws IOException {
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      Optional<Header> current = current(channel);
      if (current.isEmpty()) {
        if (channel.size() > maxBytes) {
          throw new TooLarge("the file is larger than " + maxBytes + " bytes");
        }
        return new Plain(readAt(channel, 0, (int) channel.size()));
      }
      Header header = current.get();
      if (header.nothing()) {
        return Cleared.INSTANCE;
      }
      if (header.length() > maxBytes) {
        throw new TooLarge("the record is larger than " + maxBytes + " bytes");
      }
      return new Body(readAt(channel, header.offset(), (int) header.length()));
    }
  }

  /**
   * Makes {@code body} the file's record, durably: one forced write in place; the file's creation
   * (or the replacement of a file in the earlier form) also forces the directory.
   *
   * @throws IOException if it cannot be written; the old content is then still what a reader finds
   */
  void write(byte[] body) throws IOException {
    replace(body, true);
  }

  /**
   * Clears the record (the header says nothing), forced to disk when {@code durably}; without it a
   * crash may bring back the record it cleared. A missing file stays missing; a file in the earlier
   * form is deleted (its directory forced when {@code durably}).
   *
   * @return whether there was anything to clear
   * @throws IOException if it cannot be written
   */
  boolean clear(boolean durably) throws IOException {
    FileChannel channel;
    try {
      channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
    } catch (NoSuchFileException e) {
      return false;
    }
    try (channel) {
      Optional<Header> current = current(channel);
      if (current.isPresent()) {
        if (current.get().nothing()) {
          return false;
        }
        put(channel, current.get(), null, durably);
        return true;
      }
    }
    java.nio.file.Files.delete(path);
    if (durably) {
      AtomicFileWriter.forceDirectory(path.getParent());
    }
    return true;
  }

  private void replace(byte[] body, boolean durably) throws IOException {
    FileChannel channel;
    try {
      channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
    } catch (NoSuchFileException e) {
      create(body);
      return;
    }
    try (channel) {
      Optional<Header> current = current(channel);
      if (current.isPresent()) {
        put(channel, current.get(), body, durably);
        return;
      }
    }
    create(body); // the earlier form: replaced atomically, once
  }

  /** Creates the file with {@code body} as its first record: atomically, the directory forced. */
  private void create(byte[] body) throws IOException {
    byte[] file = new byte[BODIES + body.length];
    byte[] header = encode(1, false, BODIES, body);
    System.arraycopy(header, 0, file, 0, SLOT);
    System.arraycopy(body, 0, file, BODIES, body.length);
    AtomicFileWriter.write(path, file);
  }

  /** Writes {@code body} (null: nothing) beside {@code current} and its header into the other slot. */
  private static void put(FileChannel channel, Header current, byte @Nullable [] body, boolean durably)
      throws IOException {
    long offset = BODIES;
    if (body != null && !current.nothing() && BODIES + body.length > current.offset()) {
      offset = current.end(); // it does not fit before the current body: after it
    }
    if (body != null) {
      writeAt(channel, offset, body);
    }
    int slot = 1 - current.slot();
    writeAt(channel, (long) slot * SLOT, encode(current.sequence() + 1, body == null, offset, body));
    if (durably) {
      channel.force(false);
    }
  }

  /** Returns the valid header with the highest sequence number, or empty when neither is valid. */
  private static Optional<Header> current(FileChannel channel) throws IOException {
    long size = channel.size();
    if (size < BODIES) {
      return Optional.empty();
    }
    byte[] headers = readAt(channel, 0, BODIES);
    @Nullable Header best = null;
    for (int slot = 0; slot < 2; slot++) {
      @Nullable Header header = decode(slot, Arrays.copyOfRange(headers, slot * SLOT, (slot + 1) * SLOT), size);
      if (header != null && !header.nothing()
          && !Arrays.equals(header.digest(), digest(readAt(channel, header.offset(), (int) header.length())))) {
        header = null; // a torn body
      }
      if (header != null && (best == null || header.sequence() > best.sequence())) {
        best = header;
      }
    }
    return Optional.ofNullable(best);
  }

  /** Parses one slot; null when it is not a whole header of this form naming a body inside the file. */
  private static @Nullable Header decode(int slot, byte[] bytes, long fileSize) {
    ByteBuffer in = ByteBuffer.wrap(bytes);
    byte[] magic = new byte[MAGIC.length];
    in.get(magic);
    if (!Arrays.equals(magic, MAGIC) || in.get() != FORMAT) {
      return null;
    }
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, SLOT - 4);
    if ((int) crc.getValue() != ByteBuffer.wrap(bytes, SLOT - 4, 4).getInt()) {
      return null;
    }
    byte kind = in.get();
    in.getShort();
    long sequence = in.getLong();
    long offset = in.getLong();
    long length = in.getLong();
    byte[] digest = new byte[DIGEST_BYTES];
    in.get(digest);
    boolean nothing = kind == NOTHING;
    if (!nothing && (kind != RECORD || offset < BODIES || length < 0 || length > Integer.MAX_VALUE
        || offset + length > fileSize)) {
      return null;
    }
    return new Header(slot, sequence, nothing, offset, length, digest);
  }

  /** Encodes a header: magic, format, kind, 2 spare bytes, sequence, offset, length, digest, CRC32C. */
  static byte[] encode(long sequence, boolean nothing, long offset, byte @Nullable [] body) {
    ByteBuffer out = ByteBuffer.allocate(SLOT);
    out.put(MAGIC).put(FORMAT).put(nothing ? NOTHING : RECORD).putShort((short) 0).putLong(sequence);
    out.putLong(nothing ? 0 : offset).putLong(body == null ? 0 : body.length);
    out.put(body == null ? new byte[DIGEST_BYTES] : digest(body));
    CRC32C crc = new CRC32C();
    crc.update(out.array(), 0, SLOT - 4);
    out.putInt((int) crc.getValue());
    return out.array();
  }

  private static byte[] digest(byte[] bytes) {
    try {
      return Arrays.copyOf(MessageDigest.getInstance("SHA-256").digest(bytes), DIGEST_BYTES);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }

  private static byte[] readAt(FileChannel channel, long position, int length) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(length);
    while (buffer.hasRemaining()) {
      if (channel.read(buffer, position + buffer.position()) < 0) {
        break;
      }
    }
    return buffer.position() == length ? buffer.array() : Arrays.copyOf(buffer.array(), buffer.position());
  }

  private static void writeAt(FileChannel channel, long position, byte[] bytes) throws IOException {
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    while (buffer.hasRemaining()) {
      channel.write(buffer, position + buffer.position());
    }
  }
}
