package dev.tierlock;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreBusyException;
import dev.tierlock.spi.DatastoreException;
import dev.tierlock.spi.DatastoreUnavailableException;
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
import dev.tierlock.spi.OutcomeUnknownException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A datastore that writes nothing before it knows the store honours preconditions ({@link
 * SelfCheck}). Reads pass through unchecked.
 *
 * <p><b>What a verdict is bound to.</b> To the store and to every decorator in front of it that
 * does not declare that it passes preconditions through ({@link
 * ForwardingDatastore#preconditionChain()}): the store's {@link Datastore#identity()}, the
 * namespace, and those decorators' classes make the verdict's name, and a chain with such
 * decorators keeps a verdict object of its own ({@code verdict-<digest of the chain>}). So a
 * decorator that drops preconditions is checked, and refused, on its own, whatever the store it
 * wraps earned.
 *
 * <p><b>Verdicts are bound to the store, not to a name.</b> A passed check leaves a verdict object
 * in the store ({@code [<ns>/].tierlock-selfcheck/verdict}) carrying a random token. A later guard
 * of a store with the same verdict name (in this process, or through the checkout's {@link
 * SelfCheckMarker}, for {@link #TTL}) trusts the earlier verdict only after one stat proves that the
 * store still holds that very object, at the version the store gave it: another server later
 * started at the same address, or a store that merely describes itself alike, holds no such object
 * and is checked in full. The same subject (the store, or the outermost decorator the verdict is
 * bound to) passes once per process with no call at all.
 *
 * <p><b>What a copy of the verdict object proves.</b> Nothing, where the store assigns versions
 * ({@link Datastore#versionsRepeat()} false, a GCS generation): a copy made on another server
 * carries that server's version, not the recorded one. Where a version is a digest of the bytes (an
 * S3 ETag, the filesystem datastore's digest) a byte-identical copy at the same identity (the same
 * endpoint, bucket and prefix, say a server replaced behind one address with the bucket copied over)
 * has the recorded version, token and all: only a time the server assigns (creation or last
 * modification) tells it apart, and the SPI's {@link StoredObject} does not carry one yet. A copy
 * anywhere else has another identity, and so another verdict name, and is checked in full.
 * Thread-safe.
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
   * Subjects that passed in this process: an instance is provably itself. Keyed by the first
   * element of the precondition chain (the store, or the outermost decorator the verdict is bound
   * to; identity, not equals) and held weakly, so a closed store's entry goes with it.
   */
  private static final Cache<Datastore, Boolean> PASSED = Caffeine.newBuilder().weakKeys().build();

  /**
   * Verdicts reached in this process, by verdict name; each must still be proven by a stat, and is
   * trusted only while fresh by the checkout's clock. Bounded: a process that opens many stores (a
   * test suite, a multi-tenant server) keeps the most recent.
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

  /**
   * What a verdict is about: the store's identity and namespace, and the decorators of the
   * precondition chain in front of the store, by class, outermost first.
   *
   * @param name the verdict's name, as the marker and this process's verdicts know it
   * @param object the verdict object's key
   */
  record Subject(String name, ObjectKey object) {

    static Subject of(Datastore store, List<Datastore> chain, Namespace namespace) {
      String name = store.identity() + namespace.name().map(n -> " namespace " + n).orElse("");
      List<String> decorators = chain.subList(0, chain.size() - 1).stream().map(d -> d.getClass().getName()).toList();
      if (decorators.isEmpty()) {
        return new Subject(name, namespace.rootKey(SelfCheck.PREFIX + "verdict"));
      }
      String through = String.join(" over ", decorators);
      return new Subject(name + " through " + through, namespace.rootKey(SelfCheck.PREFIX + "verdict-" + digest(through)));
    }

    private static String digest(String text) {
      try {
        byte[] sha = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(sha, 0, 8);
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("Cannot name a self-check verdict: the JDK lacks SHA-256", e);
      }
    }
  }

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
   * Makes sure the store, with the decorators in front of it, is proven safe: at once when its
   * subject passed in this process, by one stat of the verdict object when an earlier verdict has
   * this name, else by a full check. Nothing of a caller's is sent before.
   *
   * @throws dev.tierlock.spi.DatastoreUnsafeException if the store broke a precondition, lacks
   *     versions or rejects conditional writes
   * @throws DatastoreUnavailableException if the store failed during the check, an answer was lost
   *     or a call was refused as busy (the check runs again next time)
   * @throws DatastoreException if the store refused otherwise (access denied)
   */
  void ensureChecked() {
    if (checked) {
      return;
    }
    synchronized (checkLock) {
      if (checked) {
        return;
      }
      List<Datastore> chain = delegate instanceof ForwardingDatastore decorated ? decorated.preconditionChain()
          : List.of(delegate);
      if (Boolean.TRUE.equals(PASSED.getIfPresent(chain.get(0)))) {
        checked = true;
        return;
      }
      Subject subject = Subject.of(delegate, chain, namespace);
      try {
        Verdict known = Optional.ofNullable(VERDICTS.getIfPresent(subject.name()))
            .or(() -> marker.read(subject.name())).orElse(null);
        Verdict verdict = known != null && isFresh(known) && proves(subject, known) ? known : check(subject);
        VERDICTS.put(subject.name(), verdict);
        if (known == null || !known.equals(verdict)) {
          marker.record(subject.name(), verdict);
        }
      } catch (OutcomeUnknownException | DatastoreBusyException e) {
        // a probe's answer was lost, or a probe refused: the caller's own call was not sent
        throw new DatastoreUnavailableException("Cannot finish the self-check of datastore " + delegate.identity()
            + ": " + e.getMessage() + "; the check runs again next time", e);
      }
      PASSED.put(chain.get(0), Boolean.TRUE);
      checked = true;
    }
  }

  /** Returns whether this guard has passed. */
  boolean isChecked() {
    return checked;
  }

  private boolean isFresh(Verdict verdict) {
    Instant now = clock.instant();
    return !verdict.checkedAt().isAfter(now) && Duration.between(verdict.checkedAt(), now).compareTo(TTL) < 0;
  }

  /** Returns whether the store still holds the verdict object of {@code verdict}: one stat. */
  private boolean proves(Subject subject, Verdict verdict) {
    Optional<StoredObject> now = delegate.stat(subject.object());
    return now.isPresent() && verdict.version().equals(SelfCheck.versionOrNull(now.get()))
        && now.get().metadata().get(TOKEN).filter(verdict.token()::equals).isPresent();
  }

  /** Runs the full check, then leaves (or adopts a fresh) verdict object. */
  private Verdict check(Subject subject) {
    new SelfCheck(delegate, namespace, clock).run();
    ObjectKey key = subject.object();
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
    WriteCondition condition = existing.map(SelfCheck::versionOrNull).map(WriteCondition::mustMatch)
        .orElse(WriteCondition.mustNotExist());
    WriteResult written = delegate.write(key, ObjectBody.of(("tierlock self-check passed at " + now + "\n")
        .getBytes(StandardCharsets.UTF_8)), condition, metadata);
    if (written instanceof WriteResult.Written w && SelfCheck.versionOrNull(w) != null) {
      LOG.info("Datastore {} passed the precondition self-check", subject.name());
      return new Verdict(token, w.version(), now);
    }
    // another checkout left its verdict at the same moment: adopt it if it is whole
    return delegate.stat(key).flatMap(SelfCheckedDatastore::verdictOf).filter(this::isFresh)
        .orElseThrow(() -> new DatastoreUnavailableException("Cannot record the self-check verdict of "
            + subject.name() + ": its verdict object kept changing; the check runs again next time", null));
  }

  private static Optional<Verdict> verdictOf(StoredObject object) {
    Optional<String> token = object.metadata().get(TOKEN);
    Optional<String> at = object.metadata().get(CHECKED_AT);
    ObjectVersion version = SelfCheck.versionOrNull(object);
    if (token.isEmpty() || at.isEmpty() || version == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(new Verdict(token.get(), version, Instant.parse(at.get())));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  /** Returns true: a write or delete reaches the store with its condition, once the store is proven. */
  @Override
  protected boolean passesPreconditionsThrough() {
    return true;
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
  public List<StoredObject> list(String prefix) {
    RequestMeter.request(0);
    return delegate.list(prefix);
  }

  @Override
  public String toString() {
    return "SelfChecked[" + delegate + "]";
  }
}
