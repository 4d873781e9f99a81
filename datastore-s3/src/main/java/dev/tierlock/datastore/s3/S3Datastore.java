package dev.tierlock.datastore.s3;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreIdentity;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/**
 * A {@link Datastore} on one S3 bucket and key prefix, over the AWS SDK for Java v2.
 *
 * <p>Versions are ETags. Reads conditional on a version send {@code If-None-Match} (a 304 transfers
 * no body); create-only writes send {@code If-None-Match: *}; writes and deletes conditional on a
 * version send {@code If-Match}. Object keys are relative to {@link S3DatastoreConfig#prefix()},
 * applied here and nowhere else. User metadata travels as {@code x-amz-meta-*} headers.
 *
 * <p><b>Retry honesty.</b> Conditional writes and deletes are sent once unless {@link
 * S3DatastoreConfig#conditionalWriteRetries()} says otherwise, and the attempts that reach the wire
 * are counted: a precondition failure is reported only when no earlier attempt of the same call
 * could have landed; otherwise the call throws {@link dev.tierlock.spi.OutcomeUnknownException}.
 *
 * <p><b>Deadlines.</b> Every request carries {@link S3DatastoreConfig#apiCallTimeout()} and {@link
 * S3DatastoreConfig#apiCallAttemptTimeout()}.
 *
 * <p>An S3 ETag depends on the bytes only: two writes of identical bytes with different metadata
 * have equal versions.
 *
 * <p><b>Identity</b> ({@link #identity()}): scheme {@code s3}, the endpoint the client really sends
 * to (its endpoint override if it has one, otherwise the regional AWS endpoint its endpoint provider
 * resolves for its region, such as {@code https://s3.eu-west-1.amazonaws.com}), the bucket, and the
 * key prefix. Read from the client's configuration once, when the datastore is built.
 *
 * <p><b>Limits.</b> User metadata is at most {@value #MAX_METADATA_BYTES} bytes, counted as AWS
 * does (the UTF-8 bytes of every name and value); a write with more is refused before anything is
 * sent. A whole {@link #read} checks the {@code Content-Length} of the answer before reading its
 * body, and reads at most one byte more than the caller's bound: an oversize body is aborted on
 * the wire, never held in memory.
 *
 * <p>Thread-safe. IAM actions needed on the bucket and prefix: {@code s3:GetObject}, {@code
 * s3:PutObject}, {@code s3:DeleteObject}, {@code s3:ListBucket}.
 */
public final class S3Datastore implements Datastore {

  /** The most bytes of user metadata (names and values, UTF-8) one S3 object may carry: 2 KB. */
  public static final int MAX_METADATA_BYTES = 2048;

  /** Whether {@link #close()} closes the client. */
  private enum Ownership {
    CALLER,
    DATASTORE
  }

  private final S3Client client;
  private final S3DatastoreConfig config;
  private final Ownership ownership;
  private final String description;
  private final DatastoreIdentity identity;
  private final AwsRequestOverrideConfiguration readOverride;
  private final S3Changes changes;
  private volatile boolean closed;

  private S3Datastore(S3Client client, S3DatastoreConfig config, Ownership ownership) {
    this.client = Objects.requireNonNull(client, "client");
    this.config = Objects.requireNonNull(config, "config");
    this.ownership = ownership;
    this.description = S3Naming.describe(config, client.serviceClientConfiguration().endpointOverride());
    this.identity = S3Identity.of(client, config);
    this.readOverride = AwsRequestOverrideConfiguration.builder()
        .apiCallTimeout(config.apiCallTimeout())
        .apiCallAttemptTimeout(config.apiCallAttemptTimeout())
        .build();
    this.changes = new S3Changes(client, config, readOverride);
  }

  /**
   * {@return a datastore over a caller's client} The client stays the caller's: {@link #close()} does
   * not close it, and it must outlive the datastore. The client's endpoint, region, credentials,
   * path-style setting and HTTP client are used as they are; this datastore adds its deadlines and,
   * for conditional changes, its retry rule to each request.
   *
   * <p>The datastore's {@link #identity()} is taken from the client's configuration: its endpoint
   * override if it has one, otherwise the regional endpoint its S3 endpoint provider resolves for
   * its region.
   *
   * @param client the S3 client
   * @param config the bucket, prefix and deadlines
   * @throws IllegalArgumentException if the client has no endpoint override and no endpoint can be
   *     resolved for its region
   */
  public static S3Datastore of(S3Client client, S3DatastoreConfig config) {
    return new S3Datastore(client, config, Ownership.CALLER);
  }

  /** Returns a datastore that owns {@code client} and closes it on {@link #close()}. */
  static S3Datastore owning(S3Client client, S3DatastoreConfig config) {
    return new S3Datastore(client, config, Ownership.DATASTORE);
  }

  /** {@return this datastore's configuration} */
  public S3DatastoreConfig config() {
    return config;
  }

  /**
   * Returns scheme {@code s3}, the endpoint the client sends to, the bucket and the prefix (see the
   * class description).
   */
  @Override
  public DatastoreIdentity identity() {
    return identity;
  }

  /**
   * Returns {@code s3://bucket/prefix}, followed by {@code ?endpoint=...} when the client talks to an
   * endpoint other than AWS's own (user information is never included).
   */
  @Override
  public String describe() {
    return description;
  }

  /** Returns {@value #MAX_METADATA_BYTES}, S3's limit on user metadata. */
  @Override
  public int maxMetadataBytes() {
    return MAX_METADATA_BYTES;
  }

  /**
   * {@inheritDoc}
   *
   * <p>One streaming GetObject, with {@code If-None-Match} for a conditional read (a 304 has no body
   * and is never refused by the bound). The answer's {@code Content-Length} is checked before the
   * body is read, and the body is read with a cap of {@code maxBytes + 1} bytes; an oversize body is
   * aborted, never buffered. The call's deadlines cover reading the body.
   *
   * @throws dev.tierlock.spi.ObjectTooLargeException if the object is larger than {@code maxBytes}
   * @throws DatastoreUnavailableException if the store cannot be reached, throttles, fails, or the
   *     bucket does not exist
   * @throws dev.tierlock.spi.DatastoreAccessDeniedException if the credentials may not read the key
   * @throws IllegalArgumentException if the key is too long under this datastore's prefix, or
   *     {@code maxBytes} is not positive
   * @throws IllegalStateException if this datastore is closed
   */
  @Override
  public ReadResult read(ObjectKey key, ReadCondition condition, long maxBytes) {
    requireOpen("read", key);
    if (maxBytes <= 0) {
      throw new IllegalArgumentException("Cannot read " + target(key) + ": the bound must be positive, got " + maxBytes);
    }
    GetObjectRequest.Builder request = GetObjectRequest.builder()
        .bucket(config.bucket())
        .key(s3Key(key))
        .overrideConfiguration(readOverride);
    if (condition instanceof ReadCondition.IfNoneMatch ifNoneMatch) {
      request.ifNoneMatch(ifNoneMatch.version().value());
    }
    try {
      BoundedBody.Read read = client.getObject(request.build(), new BoundedBody(maxBytes));
      GetObjectResponse response = read.response();
      byte[] data = read.bytes();
      StoredObject object = new StoredObject(
          key, version(response.eTag(), "read", key), data.length, ObjectMetadata.lenient(response.metadata()));
      return new ReadResult.Found(object, data);
    } catch (BoundedBody.TooLarge e) {
      throw S3ExceptionTranslator.tooLarge(e, target(key), e);
    } catch (SdkException | CancellationException | CompletionException e) {
      return switch (S3ExceptionTranslator.translateRead(e, "read", target(key))) {
        case ABSENT -> ReadResult.Absent.INSTANCE;
        case NOT_MODIFIED -> {
          if (condition instanceof ReadCondition.IfNoneMatch ifNoneMatch) {
            yield new ReadResult.NotModified(ifNoneMatch.version());
          }
          throw new DatastoreUnavailableException(
              "Cannot read " + target(key) + ": HTTP 304 answered an unconditional read", e);
        }
      };
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>One GetObject whose body is left on the wire: the size is the answer's {@code
   * Content-Length}. Closing the stream before its end aborts the connection.
   *
   * @throws DatastoreUnavailableException if the store cannot be reached or fails
   * @throws dev.tierlock.spi.DatastoreAccessDeniedException if the credentials may not read the key
   * @throws IllegalStateException if this datastore is closed
   */
  @Override
  public Optional<ObjectStream> openStream(ObjectKey key) {
    requireOpen("open", key);
    GetObjectRequest request = GetObjectRequest.builder()
        .bucket(config.bucket())
        .key(s3Key(key))
        .overrideConfiguration(readOverride)
        .build();
    ResponseInputStream<GetObjectResponse> in;
    try {
      in = client.getObject(request);
    } catch (SdkException | CancellationException | CompletionException e) {
      return switch (S3ExceptionTranslator.translateRead(e, "open", target(key))) {
        case ABSENT -> Optional.empty();
        case NOT_MODIFIED -> throw new DatastoreUnavailableException(
            "Cannot open " + target(key) + ": HTTP 304 answered an unconditional read", e);
      };
    }
    GetObjectResponse response = in.response();
    try {
      Long length = response.contentLength();
      if (length == null || length < 0) {
        throw new DatastoreUnavailableException("Cannot open " + target(key) + ": the answer has no Content-Length", null);
      }
      StoredObject object =
          new StoredObject(key, version(response.eTag(), "open", key), length, ObjectMetadata.lenient(response.metadata()));
      return Optional.of(new S3ObjectStream(object, in));
    } catch (RuntimeException e) {
      in.abort();
      throw e;
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>One HeadObject.
   *
   * @throws DatastoreUnavailableException if the store cannot be reached or fails
   * @throws dev.tierlock.spi.DatastoreAccessDeniedException if the credentials may not read the key
   * @throws IllegalStateException if this datastore is closed
   */
  @Override
  public Optional<StoredObject> stat(ObjectKey key) {
    requireOpen("stat", key);
    HeadObjectRequest request = HeadObjectRequest.builder()
        .bucket(config.bucket())
        .key(s3Key(key))
        .overrideConfiguration(readOverride)
        .build();
    try {
      HeadObjectResponse response = client.headObject(request);
      long size = response.contentLength() == null ? 0 : response.contentLength();
      return Optional.of(
          new StoredObject(key, version(response.eTag(), "stat", key), size, ObjectMetadata.lenient(response.metadata())));
    } catch (SdkException | CancellationException | CompletionException e) {
      return switch (S3ExceptionTranslator.translateRead(e, "stat", target(key))) {
        case ABSENT -> Optional.empty();
        case NOT_MODIFIED -> throw new DatastoreUnavailableException(
            "Cannot stat " + target(key) + ": HTTP 304 answered an unconditional request", e);
      };
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>One PutObject of {@code body.size()} bytes, with {@code If-None-Match: *} for {@link
   * WriteCondition#mustNotExist()} and {@code If-Match} for {@link WriteCondition#mustMatch}; the
   * metadata travels as {@code x-amz-meta-*} headers. 412, 409 {@code ConditionalRequestConflict}
   * and, for {@code mustMatch}, 404 mean {@link WriteResult.PreconditionFailed}, but only when no
   * earlier attempt of this call may have landed.
   *
   * @throws dev.tierlock.spi.OutcomeUnknownException if the write was sent and may have landed (lost or
   *     late answer, a 5xx other than 501 and 503, any failure after a retried attempt)
   * @throws DatastoreUnavailableException if the write was refused or never sent; nothing changed
   * @throws dev.tierlock.spi.DatastoreAccessDeniedException if the credentials may not write the key
   * @throws dev.tierlock.spi.ObjectBodyUnreadableException if {@code body} could not be read;
   *     nothing changed
   * @throws IllegalArgumentException if the metadata is larger than {@value #MAX_METADATA_BYTES}
   *     bytes; nothing was sent
   * @throws IllegalStateException if this datastore is closed
   */
  @Override
  public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
    requireOpen("write", key);
    if (metadata.byteSize() > MAX_METADATA_BYTES) {
      throw new IllegalArgumentException("Cannot write " + target(key) + ": its metadata holds " + metadata.byteSize()
          + " bytes of names and values, more than the " + MAX_METADATA_BYTES + " S3 accepts; nothing was sent");
    }
    return changes.put(s3Key(key), target(key), body, condition, metadata);
  }

  /**
   * {@inheritDoc}
   *
   * <p>A conditional delete is one DeleteObject with {@code If-Match}. S3 answers an unconditional
   * delete with 204 whether or not the object existed, so an unconditional delete looks first (one
   * HeadObject) in order to report {@link DeleteResult#ABSENT}.
   *
   * @throws dev.tierlock.spi.OutcomeUnknownException if the delete was sent and may have landed
   * @throws DatastoreUnavailableException if the delete was refused or never sent; nothing changed
   * @throws dev.tierlock.spi.DatastoreAccessDeniedException if the credentials may not delete the key
   * @throws IllegalStateException if this datastore is closed
   */
  @Override
  public DeleteResult delete(ObjectKey key, WriteCondition condition) {
    requireOpen("delete", key);
    if (condition instanceof WriteCondition.MustNotExist) {
      throw new IllegalArgumentException("Cannot delete " + target(key) + ": mustNotExist is not a delete condition");
    }
    if (condition instanceof WriteCondition.None && stat(key).isEmpty()) {
      // S3 answers 204 whether or not the object existed: look first, so that ABSENT can be told
      return DeleteResult.ABSENT;
    }
    return changes.delete(s3Key(key), target(key), condition);
  }

  /**
   * {@inheritDoc}
   *
   * <p>One ListObjectsV2 request per {@link S3DatastoreConfig#listPageSize()} objects, and nothing
   * else: each entry has the key, ETag and size the listing page gave. S3 listings carry no user
   * metadata, so every entry reports {@link ObjectMetadata#EMPTY}; {@link #stat} gives an object's
   * metadata. Keys that no datastore could have written (such as {@code folder/} markers) are
   * skipped.
   *
   * @throws DatastoreUnavailableException if a page cannot be read or is malformed
   * @throws dev.tierlock.spi.DatastoreAccessDeniedException if the credentials may not list the bucket
   * @throws IllegalArgumentException if {@code prefix} is not a valid key prefix
   * @throws IllegalStateException if this datastore is closed
   */
  @Override
  public List<StoredObject> list(String prefix) {
    ObjectKey.validatePrefix(prefix);
    if (closed) {
      throw new IllegalStateException(
          "Cannot list s3://" + config.bucket() + "/" + config.prefix() + prefix + ": the datastore is closed");
    }
    return List.copyOf(S3Listing.objects(client, config, readOverride, prefix));
  }

  /**
   * Closes the client if this datastore built it; a caller's client is left open. Every later call
   * throws {@link IllegalStateException}. Idempotent.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (ownership == Ownership.DATASTORE) {
      client.close();
    }
  }

  @Override
  public String toString() {
    return "S3Datastore[" + description + "]";
  }

  private void requireOpen(String verb, ObjectKey key) {
    if (closed) {
      throw new IllegalStateException("Cannot " + verb + " " + target(key) + ": the datastore is closed");
    }
  }

  private String s3Key(ObjectKey key) {
    String full = config.prefix() + key.value();
    if (full.getBytes(StandardCharsets.UTF_8).length > ObjectKey.MAX_BYTES) {
      throw new IllegalArgumentException("Cannot use object key " + key + " under prefix \"" + config.prefix()
          + "\": together they are longer than " + ObjectKey.MAX_BYTES + " bytes of UTF-8");
    }
    return full;
  }

  private String target(ObjectKey key) {
    return "s3://" + config.bucket() + "/" + config.prefix() + key.value();
  }

  private ObjectVersion version(@Nullable String eTag, String verb, ObjectKey key) {
    if (eTag == null || eTag.isBlank()) {
      throw new DatastoreUnavailableException("Cannot " + verb + " " + target(key) + ": the answer has no ETag", null);
    }
    return ObjectVersion.of(eTag);
  }
}
