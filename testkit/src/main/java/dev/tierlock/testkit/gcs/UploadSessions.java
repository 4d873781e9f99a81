package dev.tierlock.testkit.gcs;

import java.io.ByteArrayOutputStream;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The open resumable uploads of one server. A session collects chunks in order; a chunk that
 * overlaps bytes already persisted is accepted from the first new byte (a client that resends after
 * a lost answer does that); the chunk that completes the declared total commits the object through
 * the commit function, whose preconditions are checked then. A finished session answers every later
 * request with the same result, as GCS does. Thread-safe (each session is guarded by itself).
 */
final class UploadSessions {

  private static final Pattern CONTENT_RANGE = Pattern.compile("bytes (?:(\\d+)-(\\d+)|\\*)/(\\d+|\\*)");

  private final ConcurrentHashMap<String, Session> sessions = new ConcurrentHashMap<>();
  private final AtomicLong ids = new AtomicLong();

  /** What a chunk request leads to: more bytes wanted (308) or the finished object. */
  sealed interface Progress {
    /** The upload goes on; {@code persisted} bytes are stored. */
    record Incomplete(long persisted) implements Progress {}

    /** The upload is committed. */
    record Done(FakeObject object) implements Progress {}
  }

  /** One resumable upload. */
  static final class Session {
    final String id;
    final String bucket;
    final String name;
    final Function<byte[], FakeObject> commit;
    private final ByteArrayOutputStream data = new ByteArrayOutputStream();
    private @Nullable FakeObject result;
    private @Nullable GcsFakeException failure;

    Session(String id, String bucket, String name, Function<byte[], FakeObject> commit) {
      this.id = id;
      this.bucket = bucket;
      this.name = name;
      this.commit = commit;
    }
  }

  /** Opens a session whose final chunk calls {@code commit} with the whole data. */
  Session open(String bucket, String name, Function<byte[], FakeObject> commit) {
    String id = "fake-upload-" + ids.incrementAndGet();
    Session session = new Session(id, bucket, name, commit);
    sessions.put(id, session);
    return session;
  }

  /**
   * Returns a session.
   *
   * @throws GcsFakeException 404 when no session has this id
   */
  Session session(String id) {
    Session session = sessions.get(id);
    if (session == null) {
      throw GcsFakeException.notFound("Cannot resume upload " + id + ": no such upload session");
    }
    return session;
  }

  /**
   * Accepts one chunk.
   *
   * @param contentRange the {@code Content-Range} header, or null for a request that sends the
   *     whole object
   * @throws GcsFakeException 400 for a malformed range or a gap, 412 (and others) from the commit
   */
  Progress accept(Session session, @Nullable String contentRange, byte[] chunk) {
    synchronized (session) {
      if (session.result != null) {
        return new Progress.Done(session.result);
      }
      if (session.failure != null) {
        throw session.failure;
      }
      long first = 0;
      long total = chunk.length;
      if (contentRange != null) {
        Matcher m = CONTENT_RANGE.matcher(contentRange.trim());
        if (!m.matches()) {
          throw GcsFakeException.invalid("Cannot resume upload " + session.id + ": malformed Content-Range " + contentRange);
        }
        total = m.group(3).equals("*") ? -1 : Long.parseLong(m.group(3));
        if (m.group(1) == null) {
          first = session.data.size();
          if (chunk.length > 0) {
            throw GcsFakeException.invalid("Cannot resume upload " + session.id + ": a body with Content-Range */total");
          }
        } else {
          first = Long.parseLong(m.group(1));
          long last = Long.parseLong(m.group(2));
          if (last - first + 1 != chunk.length) {
            throw GcsFakeException.invalid("Cannot resume upload " + session.id + ": Content-Range " + contentRange
                + " does not match the " + chunk.length + " bytes sent");
          }
        }
      }
      long persisted = session.data.size();
      if (first > persisted) {
        throw GcsFakeException.invalid("Cannot resume upload " + session.id + ": the chunk starts at " + first
            + " but only " + persisted + " bytes are persisted");
      }
      int skip = (int) Math.min(chunk.length, persisted - first);
      session.data.write(chunk, skip, chunk.length - skip);
      persisted = session.data.size();
      if (total >= 0 && persisted > total) {
        throw GcsFakeException.invalid("Cannot resume upload " + session.id + ": " + persisted
            + " bytes sent, more than the declared total " + total);
      }
      if (total < 0 || persisted < total) {
        return new Progress.Incomplete(persisted);
      }
      try {
        FakeObject done = session.commit.apply(session.data.toByteArray());
        session.result = done;
        session.data.reset(); // the finished session stays to answer later status requests
        return new Progress.Done(done);
      } catch (GcsFakeException e) {
        if (e.status() == 412 || e.status() == 400) {
          session.failure = e;
        }
        throw e;
      }
    }
  }
}
