package dev.tierlock.datastore.gcs;

import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.OutcomeUnknownException;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectMetadata;
import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Uploads one object body under an optional generation precondition: up to {@link
 * GcsDatastore#ONE_REQUEST_LIMIT} bytes in one multipart request, larger bodies as a resumable
 * upload streamed from the body. Also converts metadata read back from GCS.
 */
final class GcsUploads {

  private GcsUploads() {}

  /**
   * Uploads a body.
   *
   * @param generationMatch the {@code ifGenerationMatch} value (0 for create-only), or null for none
   * @throws com.google.cloud.storage.StorageException as the client throws it, for the caller to translate
   * @throws DatastoreUnavailableException if the body cannot be read before anything is sent
   * @throws OutcomeUnknownException if the body or the connection fails in the middle of a resumable upload
   */
  static Blob upload(Storage storage, BlobInfo info, ObjectBody body, @Nullable Long generationMatch, String action) {
    if (body.size() <= GcsDatastore.ONE_REQUEST_LIMIT) {
      byte[] bytes;
      try {
        bytes = body.readAllBytes();
      } catch (IOException e) {
        throw new DatastoreUnavailableException("Cannot " + action + ": the body cannot be read: " + e.getMessage(), e);
      }
      if (bytes.length != body.size()) {
        throw new DatastoreUnavailableException("Cannot " + action + ": the body holds " + bytes.length
            + " bytes, not the " + body.size() + " it declares", null);
      }
      return generationMatch == null ? storage.create(info, bytes)
          : storage.create(info, bytes, generationMatch == 0 ? Storage.BlobTargetOption.doesNotExist()
              : Storage.BlobTargetOption.generationMatch(generationMatch));
    }
    InputStream in;
    try {
      in = body.open();
    } catch (IOException e) {
      throw new DatastoreUnavailableException("Cannot " + action + ": the body cannot be read: " + e.getMessage(), e);
    }
    try (InputStream stream = in) {
      return generationMatch == null ? storage.createFrom(info, stream)
          : storage.createFrom(info, stream, generationMatch == 0 ? Storage.BlobWriteOption.doesNotExist()
              : Storage.BlobWriteOption.generationMatch(generationMatch));
    } catch (IOException e) {
      throw new OutcomeUnknownException("Cannot " + action + ": the resumable upload failed midway: "
          + e.getMessage(), e);
    }
  }

  /** Returns the user metadata of an object as read back, dropping entries Tierlock cannot hold. */
  static ObjectMetadata metadataOf(@Nullable Map<String, String> raw) {
    if (raw == null) {
      return ObjectMetadata.EMPTY;
    }
    Map<String, String> present = new HashMap<>();
    raw.forEach((name, value) -> {
      if (name != null && value != null) {
        present.put(name, value);
      }
    });
    return ObjectMetadata.lenient(present);
  }
}
