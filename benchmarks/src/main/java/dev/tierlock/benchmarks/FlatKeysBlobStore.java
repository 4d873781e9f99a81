package dev.tierlock.benchmarks;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.gaul.s3proxy.S3ErrorCode;
import org.gaul.s3proxy.S3ProxyException;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.blobstore.ForwardingBlobStore;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.services.s3.model.CopyObjectRequest;
import software.amazon.awssdk.services.s3.model.CopyObjectResponse;
import software.amazon.awssdk.services.s3.model.DeleteObjectRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectResponse;
import software.amazon.awssdk.services.s3.model.GetObjectAclRequest;
import software.amazon.awssdk.services.s3.model.GetObjectAclResponse;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.ObjectCannedACL;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Gives S3Proxy's in-memory store the flat key space of S3. That store keeps objects as files, so
 * it cannot hold both {@code a/b} and {@code a/b/c} (a file and a directory of the same name),
 * which S3 allows and the datastore contract checks. This wrapper stores every key as one file name,
 * with {@code %} written {@code %25} and {@code /} written {@code %2F}, and turns names back into
 * keys in listings and continuation tokens.
 *
 * <p>Covers what the datastore uses: single-part PUT, GET, HEAD, DELETE, copy, ACLs and
 * ListObjects without a delimiter (a delimiter is refused: flat names have no common prefixes).
 * The S3 module's test server uses the same wrapper.
 * Multipart uploads and version listings are passed through unflattened. Stateless and thread-safe.
 */
final class FlatKeysBlobStore extends ForwardingBlobStore {

  FlatKeysBlobStore(BlobStore delegate) {
    super(delegate);
  }

  /** Returns the file name that stores {@code key}. */
  static String flat(String key) {
    return key.replace("%", "%25").replace("/", "%2F");
  }

  /** Returns the key stored under file name {@code name}. */
  static String unflat(String name) {
    StringBuilder key = new StringBuilder(name.length());
    for (int i = 0; i < name.length(); i++) {
      if (name.startsWith("%2F", i)) {
        key.append('/');
        i += 2;
      } else if (name.startsWith("%25", i)) {
        key.append('%');
        i += 2;
      } else {
        key.append(name.charAt(i));
      }
    }
    return key.toString();
  }

  private static @Nullable String flatOrNull(@Nullable String key) {
    return key == null ? null : flat(key);
  }

  private static @Nullable String unflatOrNull(@Nullable String name) {
    return name == null ? null : unflat(name);
  }

  @Override
  public boolean blobExists(String container, String key) {
    return delegate().blobExists(container, flat(key));
  }

  /**
   * Stores the object once its whole body has arrived. S3Proxy's store streams a body into a file
   * named {@code <name>-<uuid>} beside the object and renames it when complete; a client whose body
   * breaks midway would leave that file listed (as an object) until the server notices and deletes
   * it, after the client has already seen its write fail. Reading the body first keeps a broken
   * upload from creating any file.
   */
  @Override
  public PutObjectResponse putBlob(PutObjectRequest request, InputStream input) {
    byte[] body;
    try {
      body = input.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot store " + request.bucket() + "/" + request.key()
          + ": the body broke off", e);
    }
    return delegate().putBlob(request.toBuilder().key(flat(request.key())).build(), new ByteArrayInputStream(body));
  }

  @Override
  public CopyObjectResponse copyBlob(CopyObjectRequest request) {
    return delegate().copyBlob(request.toBuilder()
        .sourceKey(flat(request.sourceKey()))
        .destinationKey(flat(request.destinationKey()))
        .build());
  }

  @Override
  public HeadObjectResponse blobMetadata(HeadObjectRequest request) {
    return delegate().blobMetadata(request.toBuilder().key(flat(request.key())).build());
  }

  @Override
  public ResponseInputStream<GetObjectResponse> getBlob(GetObjectRequest request) {
    return delegate().getBlob(request.toBuilder().key(flat(request.key())).build());
  }

  @Override
  public DeleteObjectResponse removeBlob(DeleteObjectRequest request) {
    return delegate().removeBlob(request.toBuilder().key(flat(request.key())).build());
  }

  @Override
  public ObjectCannedACL getBlobAccess(String container, String key) {
    return delegate().getBlobAccess(container, flat(key));
  }

  @Override
  public ObjectCannedACL getBlobAccess(String container, String key, String versionId) {
    return delegate().getBlobAccess(container, flat(key), versionId);
  }

  @Override
  public GetObjectAclResponse getBlobAcl(GetObjectAclRequest request) {
    return delegate().getBlobAcl(request.toBuilder().key(flat(request.key())).build());
  }

  @Override
  public void setBlobAccess(String container, String key, ObjectCannedACL access) {
    delegate().setBlobAccess(container, flat(key), access);
  }

  @Override
  public void setBlobAccess(String container, String key, ObjectCannedACL access, String versionId) {
    delegate().setBlobAccess(container, flat(key), access, versionId);
  }

  @Override
  public ListObjectsV2Response list(ListObjectsV2Request request) {
    if (request.delimiter() != null && !request.delimiter().isEmpty()) {
      throw new S3ProxyException(S3ErrorCode.NOT_IMPLEMENTED, "The test store lists without a delimiter.");
    }
    ListObjectsV2Response page = delegate().list(request.toBuilder()
        .prefix(flatOrNull(request.prefix()))
        .startAfter(flatOrNull(request.startAfter()))
        .continuationToken(flatOrNull(request.continuationToken()))
        .build());
    return page.toBuilder()
        .contents(page.contents().stream().map(o -> o.toBuilder().key(unflat(o.key())).build()).toArray(S3Object[]::new))
        .prefix(unflatOrNull(page.prefix()))
        .startAfter(unflatOrNull(page.startAfter()))
        .continuationToken(unflatOrNull(page.continuationToken()))
        .nextContinuationToken(unflatOrNull(page.nextContinuationToken()))
        .build();
  }
}
