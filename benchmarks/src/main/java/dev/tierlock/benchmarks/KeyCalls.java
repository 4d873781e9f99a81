package dev.tierlock.benchmarks;

import dev.tierlock.DistributedLock;
import dev.tierlock.TierPath;
import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

/**
 * A datastore decorator that counts calls by the kind of object they name (the lockfile, the global
 * lease and its reservation of the next turn, an archive, an archive's mark, the self-check's
 * objects) and what they did, refused writes apart: the measured cause of a call count; and how long
 * each write took, the call alone. A call is counted once made, whether it then succeeds or throws (a
 * write when it returns: refused or not). Closing closes the wrapped store. Thread-safe.
 */
final class KeyCalls extends ForwardingDatastore {

  /** The kinds of object a call names. */
  enum Kind {
    LOCKFILE("lockfile"), LEASE("lease"), RESERVATION("lease reservation"), ARCHIVE("archive"), MARK("archive mark"), SELF_CHECK("self-check"),
    OTHER("other");

    private final String label;

    Kind(String label) {
      this.label = label;
    }

    /** Returns the kind of {@code key}. */
    static Kind of(ObjectKey key) {
      String value = key.value();
      if (value.endsWith(DistributedLock.GLOBAL_LOCK_NAME)) {
        return LEASE;
      }
      if (value.endsWith(DistributedLock.GLOBAL_LOCK_NAME + ".reservation")) {
        return RESERVATION;
      }
      if (value.endsWith(TierPath.LOCKFILE.value())) {
        return LOCKFILE;
      }
      if (value.contains(".tierlock-selfcheck/")) {
        return SELF_CHECK;
      }
      if (value.contains(".tierlock-archives/")) {
        return MARK;
      }
      if (value.contains(ExtensionArchiveKey.DIRECTORY + "/")) {
        return ARCHIVE;
      }
      return OTHER;
    }
  }

  /** What a call did. */
  enum Call {
    READ("read"), STREAM("stream"), STAT("stat"), WRITE("write"), REFUSED_WRITE("refused write"), DELETE("delete"),
    LIST("list");

    private final String label;

    Call(String label) {
      this.label = label;
    }
  }

  /** Calls counted, by kind and call; immutable. */
  record Counts(Map<Kind, Map<Call, Long>> calls) {

    static final Counts NONE = new Counts(Map.of());

    Counts {
      Map<Kind, Map<Call, Long>> copy = new EnumMap<>(Kind.class);
      calls.forEach((kind, byCall) -> copy.put(kind, Map.copyOf(byCall)));
      calls = java.util.Collections.unmodifiableMap(copy);
    }

    /** Returns the calls of {@code kind} that did {@code call}. */
    long of(Kind kind, Call call) {
      return calls.getOrDefault(kind, Map.of()).getOrDefault(call, 0L);
    }

    /** Returns every call of {@code kind}. */
    long of(Kind kind) {
      return calls.getOrDefault(kind, Map.of()).values().stream().mapToLong(Long::longValue).sum();
    }

    /** Returns every call counted. */
    long total() {
      return calls.values().stream().flatMap(m -> m.values().stream()).mapToLong(Long::longValue).sum();
    }

    /**
     * Returns the calls of {@code kind} divided by {@code per}, by call, for a report: "2.0 write, 0.4
     * refused write" (whole counts when {@code per} is 1); empty when none.
     */
    String describe(Kind kind, double per) {
      Map<Call, Long> byCall = calls.getOrDefault(kind, Map.of());
      return java.util.Arrays.stream(Call.values()).filter(c -> byCall.getOrDefault(c, 0L) > 0)
          .map(c -> (per == 1 ? String.valueOf(byCall.get(c)) : MarkdownTable.number(byCall.get(c) / per)) + " "
              + c.label)
          .collect(Collectors.joining(", "));
    }

    /** Returns every kind's calls divided by {@code per}: "lockfile: 1.0 write; lease: 2.0 write, 1.0 delete". */
    String describe(double per) {
      return java.util.Arrays.stream(Kind.values()).filter(k -> of(k) > 0)
          .map(k -> k.label + ": " + describe(k, per)).collect(Collectors.joining("; "));
    }
  }

  private final Datastore delegate;
  private final Map<Kind, Map<Call, LongAdder>> counts = new EnumMap<>(Kind.class);
  private final Map<Kind, List<Long>> writeNanos = new EnumMap<>(Kind.class);

  KeyCalls(Datastore delegate) {
    this.delegate = delegate;
    for (Kind kind : Kind.values()) {
      Map<Call, LongAdder> byCall = new EnumMap<>(Call.class);
      for (Call call : Call.values()) {
        byCall.put(call, new LongAdder());
      }
      counts.put(kind, byCall);
      writeNanos.put(kind, new java.util.concurrent.CopyOnWriteArrayList<>());
    }
  }

  @Override
  protected Datastore delegate() {
    return delegate;
  }

  @Override
  protected boolean passesPreconditionsThrough() {
    return true;
  }

  /** Returns the calls counted since the last {@link #reset()}. */
  Counts counts() {
    Map<Kind, Map<Call, Long>> out = new EnumMap<>(Kind.class);
    counts.forEach((kind, byCall) -> {
      Map<Call, Long> copy = new EnumMap<>(Call.class);
      byCall.forEach((call, adder) -> {
        if (adder.sum() > 0) {
          copy.put(call, adder.sum());
        }
      });
      if (!copy.isEmpty()) {
        out.put(kind, copy);
      }
    });
    return new Counts(out);
  }

  /** Sets every count to zero and forgets every write's time. */
  void reset() {
    counts.values().forEach(byCall -> byCall.values().forEach(LongAdder::reset));
    writeNanos.values().forEach(List::clear);
  }

  /** Returns the median time of the writes of {@code kind} since the last {@link #reset()}, in ms (NaN: none). */
  double medianWriteMillis(Kind kind) {
    long[] sorted = writeNanos.get(kind).stream().mapToLong(Long::longValue).sorted().toArray();
    return ContendedRun.percentile(sorted, 0.5);
  }

  private void count(ObjectKey key, Call call) {
    counts.get(Kind.of(key)).get(call).increment();
  }

  @Override
  public ReadResult read(ObjectKey key, ReadCondition condition, long maxBytes) {
    count(key, Call.READ);
    return super.read(key, condition, maxBytes);
  }

  @Override
  public Optional<ObjectStream> openStream(ObjectKey key) {
    count(key, Call.STREAM);
    return super.openStream(key);
  }

  @Override
  public Optional<StoredObject> stat(ObjectKey key) {
    count(key, Call.STAT);
    return super.stat(key);
  }

  @Override
  public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
    WriteResult result;
    long start = System.nanoTime();
    try {
      result = super.write(key, body, condition, metadata);
    } catch (RuntimeException e) {
      count(key, Call.WRITE);
      throw e;
    } finally {
      writeNanos.get(Kind.of(key)).add(System.nanoTime() - start);
    }
    count(key, result instanceof WriteResult.PreconditionFailed ? Call.REFUSED_WRITE : Call.WRITE);
    return result;
  }

  @Override
  public DeleteResult delete(ObjectKey key, WriteCondition condition) {
    count(key, Call.DELETE);
    return super.delete(key, condition);
  }

  @Override
  public List<StoredObject> list(String prefix) {
    counts.get(Kind.OTHER).get(Call.LIST).increment();
    return super.list(prefix);
  }
}
