package dev.tierlock.testkit.gcs;

/**
 * One request the {@link GcsFakeServer} received, as seen by fault predicates and the request log.
 * Immutable.
 *
 * @param operation what the request asks for
 * @param method the HTTP method, after {@code X-HTTP-Method-Override} ({@code PATCH} for a patch)
 * @param bucket the bucket the request names, empty for requests that name none
 * @param object the object the request names, empty for requests that name none (a listing, a
 *     bucket request)
 */
public record GcsRequest(GcsOperation operation, String method, String bucket, String object) {

  /** {@return whether this request changes an object (upload, patch or delete)} */
  public boolean isWrite() {
    return operation.isWrite();
  }

  /**
   * {@return whether this request names the given object of the given bucket}
   *
   * @param bucketName the bucket's name
   * @param objectName the object's name
   */
  public boolean targets(String bucketName, String objectName) {
    return bucket.equals(bucketName) && object.equals(objectName);
  }
}
