package dev.tierlock.datastore.gcs;

import com.google.api.gax.paging.Page;
import com.google.cloud.ReadChannel;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import com.google.cloud.storage.StorageOptions;
import dev.tierlock.datastore.gcs.GcsErrorTranslator.Answer;
import dev.tierlock.datastore.gcs.GcsErrorTranslator.Call;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreIdentity;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.DatastoreUnsafeException;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.ObjectTooLargeException;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * A {@link Datastore} on Google Cloud Storage, through {@code google-cloud-storage}. Versions are
 * object generations (decimal text); every precondition is a generation precondition checked by
 * GCS atomically with the change: create-only is {@code ifGenerationMatch=0}, compare-and-swap and
 * conditional delete are {@code ifGenerationMatch=N}, and a read conditional on a version it
 * already holds is {@code ifGenerationNotMatch=N}, which answers 304 without a download. Keys live
 * under {@code gs://bucket/prefix/}; the prefix is applied exactly once. An answer that carries no
 * generation (GCS always sends one; some fakes and proxies do not) fails the call with {@link
 * DatastoreUnsafeException}: a store that does not version its objects cannot take a conditional write.
 *
 * <p><b>Retry honesty.</b> The client library retries writes that carry a generation precondition,
 * so a 412 may answer a retry of an attempt that had already landed: the writer's own write would
 * be reported as a conflict. This datastore therefore sends writes and deletes through a client
 * derived from the caller's options with exactly one attempt ({@code maxAttempts = 1}): a 412 it
 * reports as {@link WriteResult.PreconditionFailed} or {@link DeleteResult#PRECONDITION_FAILED}
 * answers the only request the call sent. A lost answer, a timeout or a 5xx on a change is an
 * {@link dev.tierlock.spi.OutcomeUnknownException}, which Tierlock's core resolves by reading the commit
 * id back. As a second guard, a 412 whose exception shows an earlier attempt is reported as outcome
 * unknown, never as "nothing changed". Reads, stats, listings and downloads keep the client's
 * retries.
 *
 * <p><b>Rate.</b> GCS accepts about one write per second to one object name; beyond that it answers
 * 429 (or 503). A 429 surfaces as {@link DatastoreUnavailableException} whose message says
 * "throttled"; Tierlock's transaction backs off with jitter within its deadline, and batching
 * changes into one publish keeps the write rate to the shared lockfile low.
 *
 * <p><b>Deadlines.</b> Every request is bounded by the call timeout (default {@value
 * #DEFAULT_CALL_TIMEOUT_SECONDS} s): the read retries stop after it in total, and on the HTTP
 * transport each request's connect and read timeouts are set to it. A read takes two requests
 * (metadata, then the bytes of that generation), a not-modified read or a read of an empty object
 * one.
 *
 * <p><b>Bounded reads.</b> A whole {@link #read} checks the size in the object's metadata (fetched
 * first anyway) against the caller's bound before it downloads anything, then downloads through a
 * channel limited to one byte more than the bound (a ranged request, so the server sends no more)
 * and counts what arrives: an object over the bound is {@link ObjectTooLargeException}, and its
 * bytes are never held in memory.
 *
 * <p><b>Identity</b> ({@link #identity()}): scheme {@code gs}, the storage host the client really
 * sends to ({@link StorageOptions#getHost()}: {@code https://storage.googleapis.com} unless the
 * options name another, such as an emulator), the bucket, and the prefix. {@link #describe()}
 * names the host too ({@code ?endpoint=...}) when it is not Google's.
 *
 * <p><b>Metadata</b> may hold {@value #MAX_METADATA_BYTES} bytes of names and values ({@link
 * #maxMetadataBytes()}, GCS's custom-metadata limit); a write with more is refused before anything
 * is sent.
 *
 * <p><b>Clients.</b> Built from a caller's {@link Storage} ({@link #of(Storage, String, String)}),
 * whose options (credentials, endpoint, project, transport) are reused for the datastore's own two
 * clients; the caller's client is never closed. Or opened by URI through {@link
 * GcsDatastoreProvider} ({@code gs://bucket/prefix}, Application Default Credentials). Thread-safe.
 */
public final class GcsDatastore implements Datastore {

  /** The default call timeout, in seconds. */
  public static final long DEFAULT_CALL_TIMEOUT_SECONDS = 30;

  /** The default bound of every request. */
  public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(DEFAULT_CALL_TIMEOUT_SECONDS);

  /** Bodies up to this many bytes go in one multipart request; larger ones in a resumable upload. */
  static final long ONE_REQUEST_LIMIT = 8L * 1024 * 1024;

  /** The most bytes of custom metadata (names and values, UTF-8) one GCS object may carry: 8 KiB. */
  public static final int MAX_METADATA_BYTES = 8192;

  /** The host of Google's own JSON API, which {@link #describe()} leaves out. */
  static final String GOOGLE_HOST = "https://storage.googleapis.com";

  private static final int LIST_PAGE_SIZE = 1000;
  private static final int READ_ATTEMPTS = 3;

  private final GcsLocation location;
  private final GcsClients clients;
  private final Duration callTimeout;
  private final DatastoreIdentity identity;
  private final String description;
  private final AtomicBoolean closed = new AtomicBoolean();

  private GcsDatastore(GcsLocation location, GcsClients clients, Duration callTimeout, String host) {
    this.location = location;
    this.clients = clients;
    this.callTimeout = callTimeout;
    this.identity = new DatastoreIdentity("gs", host, location.bucket(), location.prefix());
    this.description = location + (host.equals(GOOGLE_HOST) ? "" : "?endpoint=" + host);
  }

  /**
   * {@return a datastore on {@code gs://bucket/prefix} that uses the options of {@code storage} with
   * the {@linkplain #DEFAULT_CALL_TIMEOUT default call timeout}}
   *
   * @param storage the caller's client; its options are reused, it is never closed
   * @param bucket the bucket name
   * @param prefix the key prefix, empty or segments joined by {@code /} (a leading or trailing
   *     {@code /} is dropped)
   * @throws IllegalArgumentException if the bucket name or the prefix is invalid
   */
  public static GcsDatastore of(Storage storage, String bucket, String prefix) {
    return of(storage, bucket, prefix, DEFAULT_CALL_TIMEOUT);
  }

  /**
   * {@return a datastore on {@code gs://bucket/prefix} that uses the options of {@code storage}}
   *
   * @param storage the caller's client; its options are reused, it is never closed
   * @param bucket the bucket name
   * @param prefix the key prefix, empty or segments joined by {@code /}
   * @param callTimeout the bound of every request, positive
   * @throws IllegalArgumentException if the bucket, the prefix or the timeout is invalid
   */
  public static GcsDatastore of(Storage storage, String bucket, String prefix, Duration callTimeout) {
    return fromOptions(storage.getOptions(), GcsLocation.of(bucket, prefix), callTimeout);
  }

  static GcsDatastore fromOptions(StorageOptions options, GcsLocation location, Duration callTimeout) {
    if (callTimeout.isNegative() || callTimeout.isZero()) {
      throw new IllegalArgumentException("Cannot use call timeout " + callTimeout + " for " + location
          + ": it must be positive");
    }
    return through(location, GcsClients.derive(options, callTimeout), callTimeout);
  }

  /** A datastore on {@code location} that works through {@code clients} (their host is its identity's). */
  static GcsDatastore through(GcsLocation location, GcsClients clients, Duration callTimeout) {
    return new GcsDatastore(location, clients, callTimeout, clients.host());
  }

  /** {@return the bound of every request this datastore makes} */
  public Duration callTimeout() {
    return callTimeout;
  }

  /**
   * Returns scheme {@code gs}, the host the client sends to, the bucket and the prefix (see the
   * class description).
   */
  @Override
  public DatastoreIdentity identity() {
    return identity;
  }

  /**
   * Returns {@code gs://bucket/prefix}, followed by {@code ?endpoint=<host>} when the client talks
   * to a host other than Google's own.
   */
  @Override
  public String describe() {
    return description;
  }

  /** Returns {@value #MAX_METADATA_BYTES}, GCS's limit on custom metadata. */
  @Override
  public int maxMetadataBytes() {
    return MAX_METADATA_BYTES;
  }

  /** Returns one second: GCS sustains about one write per second to one object name. */
  @Override
  public java.time.Duration minWriteInterval() {
    return java.time.Duration.ofSeconds(1);
  }

  /** Returns false: a generation is never reused, not even for the same bytes. */
  @Override
  public boolean versionsRepeat() {
    return false;
  }

  /**
   * {@inheritDoc}
   *
   * <p>The size in the metadata is checked before the download, which is limited to {@code
   * maxBytes + 1} bytes and counted; a not-modified read downloads nothing and is never refused.
   *
   * @throws ObjectTooLargeException if the object is larger than {@code maxBytes}
   * @throws IllegalArgumentException if {@code maxBytes} is not positive
   */
  @Override
  public ReadResult read(ObjectKey key, ReadCondition condition, long maxBytes) {
    BlobId id = blobId(key);
    String action = "read object " + key + " in " + location;
    if (maxBytes <= 0) {
      throw new IllegalArgumentException("Cannot " + action + ": the bound must be positive, got " + maxBytes);
    }
    @Nullable Long notMatch = condition instanceof ReadCondition.IfNoneMatch ifNoneMatch
        ? generationOf(ifNoneMatch.version()) : null;
    for (int attempt = 1; ; attempt++) {
      Blob blob;
      try {
        blob = notMatch == null ? clients.reads().get(id)
            : clients.reads().get(id, Storage.BlobGetOption.generationNotMatch(notMatch));
      } catch (StorageException e) {
        Answer answer = GcsErrorTranslator.answer(e, Call.READ);
        if (answer == Answer.NOT_MODIFIED && notMatch != null) {
          return new ReadResult.NotModified(((ReadCondition.IfNoneMatch) condition).version());
        }
        if (answer == Answer.NOT_FOUND) {
          return ReadResult.Absent.INSTANCE;
        }
        throw GcsErrorTranslator.failure(e, Call.READ, action);
      }
      if (blob == null) {
        return ReadResult.Absent.INSTANCE;
      }
      long generation = generation(blob, action);
      long size = blob.getSize() == null ? 0 : blob.getSize();
      if (size > maxBytes) {
        throw new ObjectTooLargeException("object " + key + " in " + location, size, maxBytes, null);
      }
      try {
        byte[] bytes = GcsBoundedRead.download(clients.reads(), BlobId.of(location.bucket(), id.getName(), generation),
            size, maxBytes, "object " + key + " in " + location);
        return new ReadResult.Found(stored(key, blob, bytes.length, action), bytes);
      } catch (StorageException e) {
        if (GcsErrorTranslator.answer(e, Call.READ) != Answer.NOT_FOUND) {
          throw GcsErrorTranslator.failure(e, Call.READ, action);
        }
        if (attempt == READ_ATTEMPTS) {
          throw new DatastoreUnavailableException("Cannot " + action + ": the object was replaced between its"
              + " metadata and its bytes " + READ_ATTEMPTS + " times in a row", e);
        }
      }
    }
  }

  @Override
  public Optional<ObjectStream> openStream(ObjectKey key) {
    String action = "open a download of object " + key + " in " + location;
    Optional<Blob> blob = metadata(key, action);
    if (blob.isEmpty()) {
      return Optional.empty();
    }
    Blob found = blob.get();
    StoredObject object = stored(key, found, sizeOf(found), action);
    ReadChannel channel = clients.reads().reader(BlobId.of(location.bucket(), found.getName(), generation(found, action)));
    return Optional.of(GcsObjectStream.of(object, channel, location.toString()));
  }

  @Override
  public Optional<StoredObject> stat(ObjectKey key) {
    String action = "stat object " + key + " in " + location;
    return metadata(key, action).map(blob -> stored(key, blob, sizeOf(blob), action));
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalArgumentException if the metadata is larger than {@value #MAX_METADATA_BYTES}
   *     bytes; nothing was sent
   */
  @Override
  public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
    String action = "write object " + key + " in " + location;
    if (metadata.byteSize() > MAX_METADATA_BYTES) {
      throw new IllegalArgumentException("Cannot " + action + ": its metadata holds " + metadata.byteSize()
          + " bytes of names and values, more than the " + MAX_METADATA_BYTES + " GCS accepts; nothing was sent");
    }
    @Nullable Long generationMatch;
    if (condition instanceof WriteCondition.MustMatch mustMatch) {
      generationMatch = generationOf(mustMatch.version());
      if (generationMatch == null) {
        return WriteResult.PreconditionFailed.INSTANCE; // no GCS object ever has a non-numeric generation
      }
    } else {
      generationMatch = condition == WriteCondition.mustNotExist() ? Long.valueOf(0) : null;
    }
    BlobInfo info = BlobInfo.newBuilder(blobId(key))
        .setContentType("application/octet-stream")
        .setMetadata(metadata.values())
        .build();
    try {
      Blob written = GcsUploads.upload(clients.changes(), info, body, generationMatch, action);
      return new WriteResult.Written(ObjectVersion.of(Long.toString(generation(written, action))));
    } catch (StorageException e) {
      if (GcsErrorTranslator.answer(e, Call.CHANGE) == Answer.PRECONDITION_FAILED) {
        return WriteResult.PreconditionFailed.INSTANCE;
      }
      throw GcsErrorTranslator.failure(e, Call.CHANGE, action);
    }
  }

  @Override
  public DeleteResult delete(ObjectKey key, WriteCondition condition) {
    String action = "delete object " + key + " in " + location;
    if (condition == WriteCondition.mustNotExist()) {
      throw new IllegalArgumentException("Cannot " + action + ": mustNotExist is not a delete condition");
    }
    BlobId id = blobId(key);
    try {
      boolean deleted;
      if (condition instanceof WriteCondition.MustMatch mustMatch) {
        Long generation = generationOf(mustMatch.version());
        if (generation == null) {
          return metadata(key, action).isPresent() ? DeleteResult.PRECONDITION_FAILED : DeleteResult.ABSENT;
        }
        deleted = clients.changes().delete(id, Storage.BlobSourceOption.generationMatch(generation));
      } else {
        deleted = clients.changes().delete(id);
      }
      return deleted ? DeleteResult.DELETED : DeleteResult.ABSENT;
    } catch (StorageException e) {
      Answer answer = GcsErrorTranslator.answer(e, Call.CHANGE);
      if (answer == Answer.PRECONDITION_FAILED) {
        return DeleteResult.PRECONDITION_FAILED;
      }
      if (answer == Answer.NOT_FOUND) {
        return DeleteResult.ABSENT;
      }
      throw GcsErrorTranslator.failure(e, Call.CHANGE, action);
    }
  }

  @Override
  public List<StoredObject> list(String prefix) {
    String keyPrefix = ObjectKey.validatePrefix(prefix);
    String action = "list prefix \"" + keyPrefix + "\" in " + location;
    List<StoredObject> out = new ArrayList<>();
    try {
      Page<Blob> page = clients.reads().list(location.bucket(),
          Storage.BlobListOption.prefix(location.listingPrefix(keyPrefix)),
          Storage.BlobListOption.pageSize(LIST_PAGE_SIZE));
      for (Blob blob : page.iterateAll()) {
        location.keyOf(blob.getName()).ifPresent(key -> out.add(stored(key, blob, sizeOf(blob), action)));
      }
    } catch (StorageException e) {
      throw GcsErrorTranslator.failure(e, Call.READ, action);
    }
    out.sort(Comparator.comparing(StoredObject::key));
    return List.copyOf(out);
  }

  /**
   * Closes the datastore's own clients; the caller's client is left open. Idempotent.
   *
   * @throws DatastoreUnavailableException if a client fails to close
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      clients.close();
    } catch (Exception e) {
      throw new DatastoreUnavailableException("Cannot close the GCS datastore " + location + ": " + e.getMessage(), e);
    }
  }

  private Optional<Blob> metadata(ObjectKey key, String action) {
    try {
      return Optional.ofNullable(clients.reads().get(blobId(key)));
    } catch (StorageException e) {
      if (GcsErrorTranslator.answer(e, Call.READ) == Answer.NOT_FOUND) {
        return Optional.empty();
      }
      throw GcsErrorTranslator.failure(e, Call.READ, action);
    }
  }

  private BlobId blobId(ObjectKey key) {
    return BlobId.of(location.bucket(), location.objectName(key));
  }

  private static StoredObject stored(ObjectKey key, Blob blob, long size, String action) {
    java.time.OffsetDateTime updated = blob.getUpdateTimeOffsetDateTime();
    return new StoredObject(key, ObjectVersion.of(Long.toString(generation(blob, action))), size,
        GcsUploads.metadataOf(blob.getMetadata()), updated == null ? null : updated.toInstant());
  }

  /**
   * Returns the generation the server gave {@code blob}. GCS gives every object one; a server that
   * answers without it (a fake or proxy that drops it) does not version its objects, so no write to
   * it could be conditional on a version.
   *
   * @throws DatastoreUnsafeException if the answer holds no generation
   */
  private static long generation(Blob blob, String action) {
    @Nullable Long generation = blob.getGeneration();
    if (generation == null || generation <= 0) {
      throw new DatastoreUnsafeException("Cannot " + action + ": the server answered with no generation for object "
          + blob.getName() + ", so it does not version its objects and no write to it can be conditional on a version;"
          + " Tierlock refuses to write to it", null);
    }
    return generation;
  }

  private static long sizeOf(Blob blob) {
    @Nullable Long size = blob.getSize();
    return size == null ? 0 : size;
  }

  /** Returns the generation a version names, or null when it is not a generation at all. */
  private static @Nullable Long generationOf(ObjectVersion version) {
    try {
      long generation = Long.parseLong(version.value());
      return generation > 0 ? generation : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
