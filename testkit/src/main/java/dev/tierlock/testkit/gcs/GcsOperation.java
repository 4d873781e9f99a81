package dev.tierlock.testkit.gcs;

/** What a request to the {@link GcsFakeServer} asks for, for fault targeting and the request log. */
public enum GcsOperation {
  /** {@code buckets.insert}. */
  CREATE_BUCKET,
  /** {@code buckets.get}. */
  GET_BUCKET,
  /** {@code buckets.delete}. */
  DELETE_BUCKET,
  /** {@code buckets.list}. */
  LIST_BUCKETS,
  /** {@code objects.list}. */
  LIST_OBJECTS,
  /** {@code objects.get} for the metadata. */
  GET_OBJECT,
  /** {@code objects.get} with {@code alt=media}: a download. */
  DOWNLOAD,
  /** {@code objects.insert}: a multipart or media upload, or one request of a resumable upload. */
  UPLOAD,
  /** {@code objects.patch} or {@code objects.update}: a metadata change. */
  PATCH,
  /** {@code objects.delete}. */
  DELETE_OBJECT,
  /** A request the fake server does not emulate; it answers 501. */
  OTHER;

  /** {@return whether this operation changes an object (upload, patch or delete)} */
  public boolean isWrite() {
    return this == UPLOAD || this == PATCH || this == DELETE_OBJECT;
  }
}
