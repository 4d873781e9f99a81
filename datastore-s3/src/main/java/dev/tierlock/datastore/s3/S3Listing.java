package dev.tierlock.datastore.s3;

import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.StoredObject;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Lists the objects under a prefix through every ListObjectsV2 page: keys, ETags and sizes as the
 * pages give them. S3 listings carry no user metadata, so every object is reported with {@link
 * ObjectMetadata#EMPTY}.
 */
final class S3Listing {

  private S3Listing() {}

  /**
   * Returns every object whose key starts with {@code prefix}, keys relative to the datastore's
   * prefix, sorted by key, each with empty metadata; keys that are not valid {@link ObjectKey}s (such
   * as {@code folder/} markers written by other tools) are left out.
   *
   * @throws DatastoreUnavailableException if a page cannot be read, lists an object without an ETag
   *     or a size, or the store repeats a continuation token (which would otherwise page forever)
   * @throws dev.tierlock.spi.DatastoreAccessDeniedException if listing is refused
   */
  static List<StoredObject> objects(
      S3Client client, S3DatastoreConfig config, AwsRequestOverrideConfiguration override, String prefix) {
    String s3Prefix = config.prefix() + prefix;
    String where = "s3://" + config.bucket() + "/" + s3Prefix;
    List<StoredObject> objects = new ArrayList<>();
    ListObjectsV2Request.Builder request = ListObjectsV2Request.builder()
        .bucket(config.bucket())
        .prefix(s3Prefix)
        .maxKeys(config.listPageSize())
        .overrideConfiguration(override);
    @Nullable String token = null;
    do {
      ListObjectsV2Response page;
      try {
        page = client.listObjectsV2(request.continuationToken(token).build());
      } catch (SdkException | CancellationException | CompletionException e) {
        S3ExceptionTranslator.ReadOutcome outcome = S3ExceptionTranslator.translateRead(e, "list", where);
        throw new DatastoreUnavailableException("Cannot list " + where + ": the store answered " + outcome, e);
      }
      for (S3Object object : page.contents()) {
        String relative = object.key().substring(config.prefix().length());
        if (ObjectKey.isValid(relative)) {
          objects.add(stored(ObjectKey.of(relative), object, where));
        }
      }
      @Nullable String next = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
      if (next != null && next.equals(token)) {
        throw new DatastoreUnavailableException(
            "Cannot list " + where + ": the store repeated continuation token " + next, null);
      }
      token = next;
    } while (token != null);
    objects.sort(Comparator.comparing(StoredObject::key));
    return objects;
  }

  private static StoredObject stored(ObjectKey key, S3Object object, String where) {
    String eTag = object.eTag();
    Long size = object.size();
    if (eTag == null || eTag.isBlank() || size == null || size < 0) {
      throw new DatastoreUnavailableException("Cannot list " + where + ": the listing gives object " + key.value()
          + " no ETag or no size (ETag " + eTag + ", size " + size + ")", null);
    }
    return new StoredObject(key, ObjectVersion.of(eTag), size, ObjectMetadata.EMPTY);
  }
}
