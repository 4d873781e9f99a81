package com.example.tierlock.memory;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DatastoreIdentity;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectBodyUnreadableException;
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
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;

/** A datastore over one in-memory bucket: every view of a bucket sees the same objects. */
public final class MemoryDatastore implements Datastore {

  /** The objects of one bucket; every check and change holds its monitor. */
  public static final class Bucket {
    private final String id = UUID.randomUUID().toString();
    private final TreeMap<String, Entry> objects = new TreeMap<>();
    private long generation;
    private Instant clock = Instant.EPOCH; // the bucket's own time: never goes back across writes

    /** Creates an empty bucket. */
    public Bucket() {}
  }

  private record Entry(byte[] bytes, ObjectVersion version, ObjectMetadata metadata, Instant modified) {
    StoredObject stat(ObjectKey key) {
      return new StoredObject(key, version, bytes.length, metadata, modified);
    }
  }

  private final Bucket bucket;
  private final String name;
  private final DatastoreIdentity identity;

  /**
   * Creates a view of {@code bucket}.
   *
   * @param bucket the objects
   * @param name the bucket's name, for messages
   */
  public MemoryDatastore(Bucket bucket, String name) {
    this.bucket = bucket;
    this.name = name;
    // the bucket's random id is the "endpoint": two views of one bucket are the same store, two
    // buckets never are, even under one name
    this.identity = new DatastoreIdentity("mem", bucket.id, name, "");
  }

  @Override
  public DatastoreIdentity identity() {
    return identity;
  }

  @Override
  public String describe() {
    return "mem://" + name;
  }

  @Override
  public boolean versionsRepeat() {
    return false; // every write takes the next generation, never one seen before
  }

  @Override
  public ReadResult read(ObjectKey key, ReadCondition condition, long maxBytes) {
    if (maxBytes <= 0) {
      throw new IllegalArgumentException("Cannot read object " + key + " at " + describe()
          + ": the bound must be positive, got " + maxBytes);
    }
    synchronized (bucket) {
      Entry entry = bucket.objects.get(key.value());
      if (entry == null) {
        return ReadResult.Absent.INSTANCE;
      }
      if (condition instanceof ReadCondition.IfNoneMatch m && m.version().equals(entry.version())) {
        return new ReadResult.NotModified(entry.version());
      }
      if (entry.bytes().length > maxBytes) {
        throw new ObjectTooLargeException("object " + key + " at " + describe(), entry.bytes().length, maxBytes, null);
      }
      return new ReadResult.Found(entry.stat(key), entry.bytes().clone());
    }
  }

  @Override
  public Optional<ObjectStream> openStream(ObjectKey key) {
    synchronized (bucket) {
      return Optional.ofNullable(bucket.objects.get(key.value()))
          .map(e -> ObjectStream.of(e.stat(key), new ByteArrayInputStream(e.bytes()), () -> { }));
    }
  }

  @Override
  public Optional<StoredObject> stat(ObjectKey key) {
    synchronized (bucket) {
      return Optional.ofNullable(bucket.objects.get(key.value())).map(e -> e.stat(key));
    }
  }

  @Override
  public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
    if (metadata.byteSize() > maxMetadataBytes()) {
      throw new IllegalArgumentException("Cannot write object " + key + " at " + describe() + ": its metadata holds "
          + metadata.byteSize() + " bytes, more than the " + maxMetadataBytes() + " this store accepts");
    }
    byte[] bytes;
    try (InputStream in = body.open()) {
      bytes = in.readAllBytes();
    } catch (IOException e) {
      throw new ObjectBodyUnreadableException("Cannot write object " + key + " at " + describe()
          + ": its body cannot be read", e);
    }
    if (bytes.length != body.size()) {
      throw new ObjectBodyUnreadableException("Cannot write object " + key + " at " + describe()
          + ": the body declares " + body.size() + " bytes but yielded " + bytes.length, null);
    }
    synchronized (bucket) { // the precondition and the change are one atomic step
      if (!holds(condition, bucket.objects.get(key.value()))) {
        return WriteResult.PreconditionFailed.INSTANCE;
      }
      ObjectVersion version = ObjectVersion.of(Long.toString(++bucket.generation));
      Instant now = Instant.now();
      bucket.clock = now.isAfter(bucket.clock) ? now : bucket.clock;
      bucket.objects.put(key.value(), new Entry(bytes, version, metadata, bucket.clock));
      return new WriteResult.Written(version);
    }
  }

  @Override
  public DeleteResult delete(ObjectKey key, WriteCondition condition) {
    if (condition instanceof WriteCondition.MustNotExist) {
      throw new IllegalArgumentException("Cannot delete object " + key + " at " + describe()
          + ": mustNotExist is not a delete condition");
    }
    synchronized (bucket) {
      Entry current = bucket.objects.get(key.value());
      if (current == null) {
        return DeleteResult.ABSENT;
      }
      if (!holds(condition, current)) {
        return DeleteResult.PRECONDITION_FAILED;
      }
      bucket.objects.remove(key.value());
      return DeleteResult.DELETED;
    }
  }

  @Override
  public List<StoredObject> list(String prefix) {
    ObjectKey.validatePrefix(prefix); // "Cannot list prefix ..." for one no key can start with
    synchronized (bucket) {
      List<StoredObject> out = new ArrayList<>();
      for (Map.Entry<String, Entry> e : bucket.objects.tailMap(prefix, true).entrySet()) {
        if (!e.getKey().startsWith(prefix)) {
          break;
        }
        out.add(e.getValue().stat(ObjectKey.of(e.getKey())));
      }
      return out;
    }
  }

  @Override
  public void close() {
    // nothing to free: the bucket lives on for other views
  }

  private static boolean holds(WriteCondition condition, Entry current) {
    if (condition instanceof WriteCondition.MustNotExist) {
      return current == null;
    }
    if (condition instanceof WriteCondition.MustMatch m) {
      return current != null && current.version().equals(m.version());
    }
    return true; // WriteCondition.none()
  }
}
