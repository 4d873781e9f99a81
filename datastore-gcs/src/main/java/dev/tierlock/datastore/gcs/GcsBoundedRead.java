package dev.tierlock.datastore.gcs;

import com.google.cloud.ReadChannel;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.ObjectTooLargeException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;

/**
 * Downloads one object generation whole, within a bound: through a read channel pinned to the
 * generation and limited to one byte more than the bound (so the request asks for no more), read
 * with the same cap. The size in the generation's metadata is checked before by the caller; this
 * cap holds even if that size was wrong.
 */
final class GcsBoundedRead {

  /** The largest array the JVM reliably allocates. */
  private static final long MAX_ARRAY = Integer.MAX_VALUE - 8;

  private GcsBoundedRead() {}

  /**
   * Downloads a generation.
   *
   * @param reads the client for reads
   * @param generation the object at the generation its metadata was read at
   * @param size the size the metadata gave; 0 needs no download
   * @param maxBytes the largest body accepted, positive
   * @param target the object for messages, such as {@code object a in gs://bucket/prefix}
   * @return the bytes, at most {@code maxBytes} of them
   * @throws StorageException as the client throws it (404 when the generation was replaced)
   * @throws ObjectTooLargeException if more than {@code maxBytes} bytes arrive
   * @throws DatastoreUnavailableException if the download fails otherwise
   */
  static byte[] download(Storage reads, BlobId generation, long size, long maxBytes, String target) {
    if (size == 0) {
      return new byte[0]; // the metadata of this very generation says it is empty
    }
    int cap = (int) Math.min(maxBytes, MAX_ARRAY) + 1;
    try (ReadChannel channel = reads.reader(generation)) {
      channel.limit(cap);
      InputStream in = Channels.newInputStream(channel);
      byte[] bytes = in.readNBytes(cap);
      if (bytes.length > maxBytes) {
        throw new ObjectTooLargeException(target, -1, maxBytes, null);
      }
      return bytes;
    } catch (IOException e) {
      StorageException answer = GcsErrorTranslator.storageExceptionIn(e);
      if (answer != null) {
        throw answer;
      }
      throw new DatastoreUnavailableException("Cannot read " + target + ": the download failed (" + e + ")", e);
    }
  }
}
