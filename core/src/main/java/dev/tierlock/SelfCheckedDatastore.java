package dev.tierlock;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreException;
import dev.tierlock.spi.DatastoreIdentity;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.ObjectStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A datastore that writes nothing before it knows the store honours preconditions ({@link
 * SelfCheck}). Reads pass through unchecked.
 *
 * <p><b>Verdicts are bound to the store, not to a name.</b> A passed check leaves a verdict object
 * in the store ({@code [<ns>/].tierlock-selfcheck/verdict}) carrying a random token. A later guard
 * of a store with the same {@link Datastore#identity()} (in this process, or through the checkout's
 * {@link SelfCheckMarker}, for {@link #TTL}) trusts the earlier verdict only after one stat proves
 * that the store still holds that very object: another server later started at the same address,
 * or a store that merely describes itself alike, holds no such object and is checked in full. The
 * same datastore instance passes once per process with no call at all. Thread-safe.
 */
final class SelfCheckedDatastore extends ForwardingDatastore {

  /** How long a verdict is trusted after its check. */
  static final Duration TTL = Duration.ofHours(24);

  /** The metadata name of the verdict's token. */
  static final String TOKEN = "tierlock-verdict";

  /** The metadata name of when the verdict was reached. */
  static final String CHECKED_AT = "tierlock-checked-at";

  private static final Logger LOG = LoggerFactory.getLogger(SelfCheckedDatastore.class);

  /**
   * Datastore instances that passed in this process: an instance is provably itself. Keyed by the
   * instance itself (identity, not equals) and held weakly, so a closed store's entry goes with it.
   */
  private static final Cache<Datastore, Boolean> PASSED = Caffeine.newBuilder().weakKeys().build();

  /**
   * Verdicts reached in this process, by identity and namespace; each must still be proven by a
   * stat, and is trusted only while fresh by the checkout's clock. Bounded: a process that opens
   * many stores (a test suite, a multi-tenant server) keeps the most recent.
   */
  private static final Cache<String, Verdict> VERDICTS = Caffeine.newBuilder().maximumSize(4096).build();

  private final Datastore delegate;
  private final Namespace namespace;
  private final SelfCheckMarker marker;
  private final Clock clock;
  private final Object checkLock = new Object();
  private volatile boolean checked;

  /**
   * One verdict: the token of the verdict object, its version and when it was reached.
   *
   * @param token the verdict object's token
   * @param version the verdict object's version
   * @param checkedAt when the check passed
   */
  record Verdict(String token, ObjectVersion version, Instant checkedAt) {}

  SelfCheckedDatastore(Datastore delegate, Namespace namespace, SelfCheckMarker marker, Clock clock) {
    this.delegate = delegate;
    this.namespace = namespace;
    this.marker = marker;
    this.clock = clock;
  }

  /** Forgets every verdict of this process (for tests that restart servers on one address). */
  static void forgetProcessVerdicts() {
    PASSED.invalidateAll();
    VERDICTS.invalidateAll();
  }

  /**
   * Makes sure the store is proven safe: at once when this instance passed in this process, by one
   * stat of the verdict object when an earlier verdict names this identity, else by a full check.
   *
   * @throws dev.tierlock.spi.DatastoreUnsafeException if the store broke a precondition
   * @throws DatastoreException if the store failed during the check (it runs again next time)
   */
  void ensureChecked() {
    if (checked) {
      return;
    }
    synchronized (checkLock) {
      if (checked) {
        return;
      }
      if (Boolean.TRUE.equals(PASSED.getIfPresent(delegate))) {
        checked = true;
        return;
      }
      String key = key();
      Verdict known = Optional.ofNullable(VERDICTS.getIfPresent(key)).or(() -> marker.read(key)).orElse(null);
      Verdict verdict = known != null && isFresh(known) && proves(known) ? known : check();
      VERDICTS.put(key, verdict);
      if (known == null || !known.equals(verdict)) {
        marker.record(key, verdict);
      }
      PASSED.put(delegate, Boolean.TRUE);
      checked = true;
    }
  }

  /** Returns whether this guard has passed. */
  boolean isChecked() {
    return checked;
  }

  private String key() {
    DatastoreIdentity identity = delegate.identity();
    return identity + namespace.name().map(n -> " namespace " + n).orElse("");
  }

  private boolean isFresh(Verdict verdict) {
    Instant now = clock.instant();
    return !verdict.checkedAt().isAfter(now) && Duration.between(verdict.checkedAt(), now).compareTo(TTL) < 0;
  }

  /** Returns whether the store still holds the verdict object of {@code verdict}: one stat. */
  private boolean proves(Verdict verdict) {
    Optional<StoredObject> now = delegate.stat(new SelfCheck(delegate, namespace, clock).verdictKey());
    return now.isPresent() && now.get().version().equals(verdict.version())
        && now.get().metadata().get(TOKEN).filter(verdict.token()::equals).isPresent();
  }

  /** Runs the full check, then leaves (or adopts a fresh) verdict object. */
  private Verdict check() {
    SelfCheck check = new SelfCheck(delegate, namespace, clock);
    check.run();
    ObjectKey key = check.verdictKey();
    Instant now = clock.instant();
    Optional<StoredObject> existing = delegate.stat(key);
    if (existing.isPresent()) {
      Optional<Verdict> adopted = verdictOf(existing.get()).filter(this::isFresh);
      if (adopted.isPresent()) {
        return adopted.get();
      }
    }
    String token = UUID.randomUUID().toString();
    ObjectMetadata metadata = new ObjectMetadata(Map.of(TOKEN, token, CHECKED_AT, now.toString()));
    WriteCondition condition = existing.map(e -> WriteCondition.mustMatch(e.version())).orElse(WriteCondition.mustNotExist());
    WriteResult written = delegate.write(key, ObjectBody.of(("tierlock self-check passed at " + now + "\n")
        .getBytes(StandardCharsets.UTF_8)), condition, metadata);
    if (written instanceof WriteResult.Written w) {
      LOG.info("Datastore {} passed the precondition self-check", delegate.identity());
      return new Verdict(token, w.version(), now);
    }
    // another checkout left its verdict at the same moment: adopt it if it is whole
    return delegate.stat(key).flatMap(SelfCheckedDatastore::verdictOf).filter(this::isFresh)
        .orElseThrow(() -> new dev.tierlock.spi.DatastoreUnavailableException("Cannot record the self-check verdict of "
            + delegate.identity() + ": its verdict object kept changing; the check runs again next time", null));
  }

  private static Optional<Verdict> verdictOf(StoredObject object) {
    Optional<String> token = object.metadata().get(TOKEN);
    Optional<String> at = object.metadata().get(CHECKED_AT);
    if (token.isEmpty() || at.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(new Verdict(token.get(), object.version(), Instant.parse(at.get())));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  @Override
  protected Datastore delegate() {
    return delegate;
  }

  @Override
  public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
    ensureChecked();
    RequestMeter.request(0);
    return delegate.write(key, body, condition, metadata);
  }

  @Override
  public DeleteResult delete(ObjectKey key, WriteCondition condition) {
    ensureChecked();
    RequestMeter.request(0);
    return delegate.delete(key, condition);
  }

  @Override
  public ReadResult read(ObjectKey key, ReadCondition condition, long maxBytes) {
    ReadResult result = delegate.read(key, condition, maxBytes);
    RequestMeter.request(result instanceof ReadResult.Found found ? found.bytes().length : 0);
    return result;
  }

  @Override
  public Optional<ObjectStream> openStream(ObjectKey key) {
    Optional<ObjectStream> opened = delegate.openStream(key);
    if (opened.isEmpty()) {
      RequestMeter.request(0);
      return opened;
    }
    ObjectStream stream = opened.get();
    java.io.InputStream counted = RequestMeter.requestStream(stream.stream());
    return Optional.of(counted == stream.stream() ? stream : ObjectStream.of(stream.object(), counted, stream::close));
  }

  @Override
  public Optional<StoredObject> stat(ObjectKey key) {
    RequestMeter.request(0);
    return delegate.stat(key);
  }

  @Override
  public java.util.List<StoredObject> list(String prefix) {
    RequestMeter.request(0);
    return delegate.list(prefix);
  }

  @Override
  public String toString() {
    return "SelfChecked[" + delegate + "]";
  }
}
