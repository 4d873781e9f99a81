package dev.tierlock.datastore.s3;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.gaul.s3proxy.S3ErrorCode;
import org.gaul.s3proxy.S3ProxyException;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.blobstore.ForwardingBlobStore;
import org.gaul.s3proxy.blobstore.domain.MultipartUpload;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CopyObjectRequest;
import software.amazon.awssdk.services.s3.model.CopyObjectResponse;
import software.amazon.awssdk.services.s3.model.DeleteObjectRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectResponse;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The blob store S3Proxy serves one request from: the shared in-memory store, with conditional
 * writes and deletes made atomic per key.
 *
 * <p>S3Proxy emulates {@code If-Match} for its in-memory store as "read, compare, then write" in
 * its request handler, so two racing compare-and-swap writers can both win. This wrapper takes a
 * per-key lock around every write and delete and checks {@code If-Match} again under it; for a
 * conditional delete (which the handler checks and then passes on unconditioned) it checks that the
 * object still has the ETag the handler saw. S3Proxy asks a fresh instance per request (through its
 * blob store locator), which is what ties the handler's look to the delete that follows it.
 *
 * <p>Per bucket it can also behave like a broken store ({@link ServerState.Mode#IGNORE_PRECONDITIONS}),
 * inject one answer ({@link ServerState#failNextWrite}), and log every object it stores, deletes,
 * refuses to change or reads ({@link ServerState#record}). Refusals S3Proxy's handler makes before the store
 * sees a request (its own {@code If-Match} pre-check) are not logged.
 */
final class AtomicConditionsBlobStore extends ForwardingBlobStore {

  private final ServerState state;
  /** What the handler saw of each key during this request: bucket/key to ETag (null: absent). */
  private final Map<String, Optional<String>> seen = new HashMap<>();

  AtomicConditionsBlobStore(BlobStore delegate, ServerState state) {
    super(delegate);
    this.state = state;
  }

  @Override
  public PutObjectResponse putBlob(PutObjectRequest request, InputStream input) {
    String bucket = request.bucket();
    if (state.mode(bucket) == ServerState.Mode.IGNORE_PRECONDITIONS) {
      PutObjectResponse response = refusalsLogged(bucket, request.key(),
          () -> delegate().putBlob(request.toBuilder().ifNoneMatch(null).ifMatch(null).build(), input));
      logStored(bucket, request.key());
      return response;
    }
    Object lock = state.lockFor(bucket, request.key());
    synchronized (lock) {
      state.takeWriteFault(bucket, ServerState.Phase.BEFORE_APPLY).ifPresent(fault -> {
        throw fault;
      });
      PutObjectResponse response = refusalsLogged(bucket, request.key(), () -> {
        if (request.ifMatch() != null) {
          requireETag(bucket, request.key(), request.ifMatch());
        }
        return delegate().putBlob(request, input);
      });
      logStored(bucket, request.key());
      state.takeWriteFault(bucket, ServerState.Phase.AFTER_APPLY).ifPresent(fault -> {
        throw fault;
      });
      return response;
    }
  }

  @Override
  public CopyObjectResponse copyBlob(CopyObjectRequest request) {
    CopyObjectResponse response = refusalsLogged(
        request.destinationBucket(), request.destinationKey(), () -> delegate().copyBlob(request));
    logStored(request.destinationBucket(), request.destinationKey());
    return response;
  }

  @Override
  public CompleteMultipartUploadResponse completeMultipartUpload(
      MultipartUpload upload, CompleteMultipartUploadRequest request) {
    CompleteMultipartUploadResponse response = refusalsLogged(
        upload.containerName(), upload.blobName(), () -> delegate().completeMultipartUpload(upload, request));
    logStored(upload.containerName(), upload.blobName());
    return response;
  }

  @Override
  public ResponseInputStream<GetObjectResponse> getBlob(GetObjectRequest request) {
    ResponseInputStream<GetObjectResponse> in = super.getBlob(request);
    state.log(request.bucket()).ifPresent(log -> log.read(request.key()));
    return in;
  }

  @Override
  public @Nullable HeadObjectResponse blobMetadataIfPresent(HeadObjectRequest request) {
    HeadObjectResponse response = super.blobMetadataIfPresent(request);
    seen.put(request.bucket() + "/" + request.key(), Optional.ofNullable(response).map(HeadObjectResponse::eTag));
    return response;
  }

  @Override
  public DeleteObjectResponse removeBlob(DeleteObjectRequest request) {
    String bucket = request.bucket();
    if (state.mode(bucket) == ServerState.Mode.IGNORE_PRECONDITIONS) {
      DeleteObjectResponse response = refusalsLogged(bucket, request.key(),
          () -> delegate().removeBlob(request.toBuilder().ifMatch(null).build()));
      state.log(bucket).ifPresent(log -> log.deleted(request.key()));
      return response;
    }
    Object lock = state.lockFor(bucket, request.key());
    synchronized (lock) {
      DeleteObjectResponse response = refusalsLogged(bucket, request.key(), () -> {
        String expected = request.ifMatch();
        Optional<String> handlerSaw = seen.get(bucket + "/" + request.key());
        if (expected == null && handlerSaw != null) {
          // the handler looked first: this is a conditional delete, answered as AWS does
          expected = handlerSaw.orElseThrow(() -> new S3ProxyException(S3ErrorCode.NO_SUCH_KEY));
        }
        if (expected != null) {
          requireETag(bucket, request.key(), expected);
        }
        return delegate().removeBlob(request.toBuilder().ifMatch(null).build());
      });
      state.log(bucket).ifPresent(log -> log.deleted(request.key()));
      return response;
    }
  }

  /** Runs {@code change}, logging a refusal of the store (an S3 error answer) before passing it on. */
  private <T> T refusalsLogged(String bucket, String key, Supplier<T> change) {
    try {
      return change.get();
    } catch (S3Exception e) {
      state.log(bucket).ifPresent(log -> log.refused(key, e instanceof S3ProxyException p
          ? p.getError().name()
          : "HTTP " + e.statusCode()));
      throw e;
    }
  }

  /** Logs that {@code key} was stored, with the bytes and metadata it now has if the log keeps them. */
  private void logStored(String bucket, String key) {
    state.log(bucket).ifPresent(log -> {
      if (!log.keepsBodyOf(key)) {
        log.stored(key, new byte[0], Map.of());
        return;
      }
      try (ResponseInputStream<GetObjectResponse> in = delegate().getBlob(bucket, key)) {
        log.stored(key, in.readAllBytes(), in.response().metadata());
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot log the object stored at " + bucket + "/" + key, e);
      }
    });
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
