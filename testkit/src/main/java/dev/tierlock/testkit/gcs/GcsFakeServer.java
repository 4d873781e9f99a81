package dev.tierlock.testkit.gcs;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Cloud Storage JSON-API server for tests, on the loopback address and an ephemeral port, that
 * the real {@code google-cloud-storage} client (or any JSON-API client) talks to over HTTP.
 *
 * <p><b>What it emulates.</b> Buckets; objects with generations that increase strictly across the
 * server and metagenerations that start at 1 and rise with every metadata change; multipart
 * (gzipped or not), media and resumable uploads; media downloads on both URL forms with {@code
 * Range} (206 with {@code Content-Range}) and the {@code x-goog-generation}, {@code
 * x-goog-metageneration} and {@code x-goog-hash} headers; metadata get, patch (also sent as {@code
 * POST} with {@code X-HTTP-Method-Override: PATCH}) and update; delete (204); listing with {@code
 * prefix}, {@code delimiter}, {@code startOffset}, {@code endOffset}, {@code maxResults} and {@code
 * pageToken}. All four preconditions ({@code ifGenerationMatch}, where 0 means "no live object",
 * {@code ifGenerationNotMatch}, {@code ifMetagenerationMatch}, {@code ifMetagenerationNotMatch})
 * are checked atomically with the change they guard, under one lock per object name; a failed one
 * answers 412 {@code conditionNotMet} (304 for a not-match on a read). Declared MD5 and CRC32C
 * checksums of uploads are verified. Custom metadata is limited as on GCS to {@value
 * #MAX_CUSTOM_METADATA_BYTES} bytes of names and values (UTF-8) per object: an upload or patch over
 * it answers 400 {@code invalid}, which the client library reports as a {@code StorageException}
 * with code 400, and changes nothing. Requests it does not emulate (compose, rewrite, ACLs, object
 * versioning, ...) answer 501; they never half-work.
 *
 * <p><b>Using it.</b> Point a client at {@link #endpoint()} without credentials, for example
 * {@code StorageOptions.http().setHost(server.endpoint().toString()).setProjectId("test")
 * .setCredentials(NoCredentials.getInstance())}. Create buckets with {@link #createBucket(String)}
 * or {@link #newBucket()}; inject faults with {@link #faults()}; look behind the client's back with
 * {@link #peek}, {@link #generation} and {@link #plant}; make a bucket ignore preconditions with
 * {@link #preconditions(String, PreconditionMode)}. {@link GcsFakeServerExtension} does the
 * starting and stopping for JUnit 5 tests.
 *
 * <p>State is per instance and in memory. Thread-safe. Closing stops the server and its threads.
 * Starting the first server sets the system property {@code sun.net.httpserver.nodelay} to {@code
 * true} unless it is already set, because the JDK server reads it once per JVM and answers small
 * requests about ten times slower without it.
 */
public final class GcsFakeServer implements AutoCloseable {

  /**
   * The JDK server's switch for {@code TCP_NODELAY}; without it every small answer waits for a
   * delayed acknowledgement (about 40 ms a request instead of a few).
   */
  private static final String NO_DELAY = "sun.net.httpserver.nodelay";

  /** The most bytes of custom metadata names and values (UTF-8) one object may carry: 8 KiB, as on GCS. */
  public static final int MAX_CUSTOM_METADATA_BYTES = ObjectStore.MAX_METADATA_BYTES;

  private final HttpServer http;
  private final ExecutorService executor;
  private final ObjectStore store;
  private final GcsFaults faults = new GcsFaults();
  private final List<GcsRequest> requests = new ArrayList<>();
  private final AtomicInteger bucketIds = new AtomicInteger();
  private final URI endpoint;
  private final AtomicBoolean closed = new AtomicBoolean();

  private GcsFakeServer(HttpServer http, ExecutorService executor, Clock clock) {
    this.http = http;
    this.executor = executor;
    this.store = new ObjectStore(clock);
    this.endpoint = URI.create("http://127.0.0.1:" + http.getAddress().getPort());
    http.createContext("/", new Router(store, faults, this::record, endpoint.toString()));
    http.setExecutor(executor);
    http.start();
  }

  /**
   * Starts a server on 127.0.0.1 and a free port, with the system clock for object times.
   *
   * @return the running server; closing it stops it
   * @throws IOException if no port can be bound
   */
  public static GcsFakeServer start() throws IOException {
    return start(Clock.systemUTC());
  }

  /**
   * Starts a server on 127.0.0.1 and a free port.
   *
   * @param clock the clock for object times and the first generation
   * @return the running server; closing it stops it
   * @throws IOException if no port can be bound
   */
  public static GcsFakeServer start(Clock clock) throws IOException {
    if (System.getProperty(NO_DELAY) == null) {
      System.setProperty(NO_DELAY, "true");
    }
    HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    AtomicInteger threads = new AtomicInteger();
    ExecutorService executor = Executors.newCachedThreadPool(task -> {
      Thread thread = new Thread(task, "gcs-fake-server-" + threads.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    });
    return new GcsFakeServer(http, executor, clock);
  }

  /** {@return the server's base URI, {@code http://127.0.0.1:<port>}, to give a client as its host} */
  public URI endpoint() {
    return endpoint;
  }

  /**
   * Creates a bucket.
   *
   * @param name a bucket name: 3 to 63 lowercase letters, digits, {@code -}, {@code _} or {@code .}
   * @throws IllegalArgumentException if the name is invalid or the bucket exists
   */
  public void createBucket(String name) {
    try {
      store.createBucket(name);
    } catch (GcsFakeException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  /**
   * Creates a bucket with a fresh name ({@code fake-bucket-<n>}) and returns the name.
   *
   * @return the new bucket's name
   */
  public String newBucket() {
    String name = "fake-bucket-" + bucketIds.incrementAndGet();
    createBucket(name);
    return name;
  }

  /**
   * Sets whether a bucket honours preconditions; {@link PreconditionMode#IGNORED} makes it a
   * broken store that applies every write and delete whatever its preconditions say.
   *
   * @param bucket the bucket's name
   * @param mode whether it honours preconditions
   * @throws IllegalArgumentException if the bucket does not exist
   */
  public void preconditions(String bucket, PreconditionMode mode) {
    existingBucket(bucket, "set the precondition mode of").preconditionMode(mode);
  }

  /**
   * Returns a copy of an object's live bytes, without a request (not logged, no faults).
   *
   * @param bucket the bucket's name
   * @param object the object's name
   * @return the bytes, or empty when no live object has the name
   * @throws IllegalArgumentException if the bucket does not exist
   */
  public Optional<byte[]> peek(String bucket, String object) {
    FakeObject live = existingBucket(bucket, "peek into").live(object);
    return live == null ? Optional.empty() : Optional.of(live.bytes().clone());
  }

  /**
   * {@return an object's live generation, without a request}
   *
   * @param bucket the bucket's name
   * @param object the object's name
   * @throws IllegalArgumentException if the bucket does not exist
   */
  public OptionalLong generation(String bucket, String object) {
    FakeObject live = existingBucket(bucket, "read a generation in").live(object);
    return live == null ? OptionalLong.empty() : OptionalLong.of(live.generation());
  }

  /**
   * {@return the names of a bucket's live objects in listing order, without a request}
   *
   * @param bucket the bucket's name
   * @throws IllegalArgumentException if the bucket does not exist
   */
  public List<String> objectNames(String bucket) {
    return existingBucket(bucket, "list").liveFrom("").stream().map(FakeObject::name).toList();
  }

  /**
   * Writes an object unconditionally behind every client's back (a peer's write), without a
   * request: not logged, no faults.
   *
   * @param bucket the bucket's name
   * @param object the object's name
   * @param bytes the object's new bytes
   * @return the new generation
   * @throws IllegalArgumentException if the bucket does not exist or the name is invalid
   */
  public long plant(String bucket, String object, byte[] bytes) {
    try {
      return store.upload(bucket, object, bytes.clone(), "application/octet-stream", Map.of(), Preconditions.NONE)
          .generation();
    } catch (GcsFakeException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  /** {@return the fault controls} */
  public GcsFaults faults() {
    return faults;
  }

  /** {@return every request received since start or the last {@link #clearRequests()}, in arrival order} */
  public List<GcsRequest> requests() {
    synchronized (requests) {
      return List.copyOf(requests);
    }
  }

  /** Forgets the requests received so far. */
  public void clearRequests() {
    synchronized (requests) {
      requests.clear();
    }
  }

  /** Stops the server at once and its threads; requests in flight are cut off. Idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    http.stop(0);
    executor.shutdownNow();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void record(GcsRequest request) {
    synchronized (requests) {
      requests.add(request);
    }
  }

  private BucketState existingBucket(String bucket, String verb) {
    try {
      return store.bucket(bucket);
    } catch (GcsFakeException e) {
      throw new IllegalArgumentException("Cannot " + verb + " bucket " + bucket + ": no such bucket", e);
    }
  }
}
