package dev.tierlock.datastore.s3;

import dev.tierlock.DatastoreUnavailableException;
import dev.tierlock.spi.ObjectKey;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Object;

/** Lists the keys under a prefix through every ListObjectsV2 page. */
final class S3KeyListing {

  private S3KeyListing() {}

  /**
   * Returns the keys, relative to the datastore's prefix, of every object whose key starts with
   * {@code prefix}, sorted; keys that are not valid {@link ObjectKey}s (such as {@code folder/}
   * markers written by other tools) are left out.
   *
   * @throws DatastoreUnavailableException if a page cannot be read, or the store repeats a
   *     continuation token (which would otherwise page forever)
   * @throws dev.tierlock.DatastoreAccessDeniedException if listing is refused
   */
  static List<ObjectKey> keys(
      S3Client client, S3DatastoreConfig config, AwsRequestOverrideConfiguration override, String prefix) {
    String s3Prefix = config.prefix() + prefix;
    String where = "s3://" + config.bucket() + "/" + s3Prefix;
    List<ObjectKey> keys = new ArrayList<>();
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
      } catch (SdkException e) {
        S3ExceptionTranslator.ReadOutcome outcome = S3ExceptionTranslator.translateRead(e, "list", where);
        throw new DatastoreUnavailableException("Cannot list " + where + ": the store answered " + outcome, e);
      }
      for (S3Object object : page.contents()) {
        String relative = object.key().substring(config.prefix().length());
        if (ObjectKey.isValid(relative)) {
          keys.add(ObjectKey.of(relative));
        }
      }
      @Nullable String next = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
      if (next != null && next.equals(token)) {
        throw new DatastoreUnavailableException(
            "Cannot list " + where + ": the store repeated continuation token " + next, null);
      }
      token = next;
    } while (token != null);
    keys.sort(Comparator.naturalOrder());
    return keys;
  }
}
