package dev.tierlock.benchmarks;

import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.gaul.s3proxy.S3ErrorCode;
import org.gaul.s3proxy.S3ProxyException;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.blobstore.ForwardingBlobStore;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.s3.model.DeleteObjectRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;

/**
 * The blob store S3Proxy serves one request from, with conditional writes and deletes made atomic
 * per key, as the S3 module's test server does: S3Proxy emulates {@code If-Match} for its in-memory
 * store as "read, compare, then write", so two racing compare-and-swap writers can both win. This
 * takes a per-key lock around every write and delete and checks {@code If-Match} again under it;
 * for a conditional delete (which the handler checks and then passes on unconditioned) it checks
 * that the object still has the ETag the handler saw. S3Proxy asks a fresh instance per request.
 */
final class AtomicConditionsBlobStore extends ForwardingBlobStore {

  private static final int STRIPES = 256;
  private static final Object[] LOCKS = new Object[STRIPES];

  static {
    for (int i = 0; i < STRIPES; i++) {
      LOCKS[i] = new Object();
    }
  }

  /** What the handler saw of each key during this request: bucket/key to ETag (empty: absent). */
  private final Map<String, Optional<String>> seen = new HashMap<>();

  AtomicConditionsBlobStore(BlobStore delegate) {
    super(delegate);
  }

  private static Object lockFor(String bucket, String key) {
    return LOCKS[Math.floorMod((bucket + "/" + key).hashCode(), STRIPES)];
  }

  @Override
  public PutObjectResponse putBlob(PutObjectRequest request, InputStream input) {
    synchronized (lockFor(request.bucket(), request.key())) {
      if (request.ifMatch() != null) {
        requireETag(request.bucket(), request.key(), request.ifMatch());
      }
      return delegate().putBlob(request, input);
    }
  }

  @Override
  public @Nullable HeadObjectResponse blobMetadataIfPresent(HeadObjectRequest request) {
    HeadObjectResponse response = super.blobMetadataIfPresent(request);
    seen.put(request.bucket() + "/" + request.key(), Optional.ofNullable(response).map(HeadObjectResponse::eTag));
    return response;
  }

  @Override
  public DeleteObjectResponse removeBlob(DeleteObjectRequest request) {
    synchronized (lockFor(request.bucket(), request.key())) {
      String expected = request.ifMatch();
      Optional<String> handlerSaw = seen.get(request.bucket() + "/" + request.key());
      if (expected == null && handlerSaw != null) {
        // the handler looked first: this is a conditional delete, answered as AWS does
        expected = handlerSaw.orElseThrow(() -> new S3ProxyException(S3ErrorCode.NO_SUCH_KEY));
      }
      if (expected != null) {
        requireETag(request.bucket(), request.key(), expected);
      }
      return delegate().removeBlob(request.toBuilder().ifMatch(null).build());
    }
  }

  private void requireETag(String bucket, String key, String expected) {
    HeadObjectResponse current = delegate().blobMetadataIfPresent(bucket, key);
    if (current == null) {
      throw new S3ProxyException(S3ErrorCode.NO_SUCH_KEY);
    }
    if (!unquoted(current.eTag()).equals(unquoted(expected))) {
      throw new S3ProxyException(S3ErrorCode.PRECONDITION_FAILED);
    }
  }

  private static String unquoted(@Nullable String eTag) {
    if (eTag == null) {
      return "";
    }
    return eTag.length() >= 2 && eTag.startsWith("\"") && eTag.endsWith("\"") ? eTag.substring(1, eTag.length() - 1) : eTag;
  }
}
