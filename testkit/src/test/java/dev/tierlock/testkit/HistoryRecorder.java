package dev.tierlock.testkit;

import dev.tierlock.Lockfile;
import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.ForwardingDatastore;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The shared fake remote as the property's checkouts reach it, recording the real history of the
 * shared lockfile in the store's own order: every write of it that lands (whether or not its answer
 * reaches the writer), with its bytes, commit id and writer, and every read of it, with the index of
 * the version it saw. Each checkout reaches it through its own {@link #view}, so reads are told
 * apart; writes are told apart by their commit ids ({@code c<checkout>-<n>}). A landed write is
 * reported to the listener before the write returns. A request the property held back in the
 * network reaches the store through its writer's view when it is delivered, so it is recorded when
 * it lands, in the store's order, like any other. Closing it closes nothing.
 */
final class HistoryRecorder extends ForwardingDatastore {

  /**
   * One version of the shared lockfile.
   *
   * @param index its place in the history; 0 is what the store held at the start
   * @param bytes its bytes, or null when the lockfile was absent
   * @param lockfile its content
   * @param commitId the commit id it carries ("" for the start)
   * @param writer the checkout that wrote it, or -1 for the start
   */
  record Version(int index, byte @Nullable [] bytes, Lockfile lockfile, String commitId, int writer) {}

  /**
   * One read of the shared lockfile.
   *
   * @param checkout who read it
   * @param index the version it saw (the current one: the fake is linearisable)
   */
  record Read(int checkout, int index) {}

  private final FakeRemote remote;
  private final ObjectKey lockfile;
  private final List<Version> history = new ArrayList<>();
  private final List<Read> reads = new ArrayList<>();
  private Consumer<Version> listener = v -> { };

  HistoryRecorder(FakeRemote remote, ObjectKey lockfile) {
    this.remote = remote;
    this.lockfile = lockfile;
    Optional<byte[]> start = remote.peek(lockfile);
    history.add(new Version(0, start.orElse(null), start.map(b -> Lockfile.parse(b, "start")).orElse(Lockfile.EMPTY), "",
        -1));
  }

  /** Sets what hears of each landed lockfile write. */
  void onLanded(Consumer<Version> value) {
    this.listener = value;
  }

  /** Returns the history so far (a snapshot). */
  synchronized List<Version> history() {
    return List.copyOf(history);
  }

  /** Returns the version at {@code index}. */
  synchronized Version version(int index) {
    return history.get(index);
  }

  /** Returns the index of the current version. */
  synchronized int current() {
    return history.size() - 1;
  }

  /** Returns the indices of the versions {@code checkout} read from {@code fromIndex} on (inclusive), in order. */
  synchronized List<Integer> readsOf(int checkout, int sinceRead) {
    List<Integer> out = new ArrayList<>();
    for (int i = sinceRead; i < reads.size(); i++) {
      if (reads.get(i).checkout() == checkout) {
        out.add(reads.get(i).index());
      }
    }
    return out;
  }

  /**
   * Records that {@code checkout} heard its write of commit {@code commitId} land: it knows that
   * version's bytes as if it had read them (a checkout that publishes on its cached version builds
   * on what it wrote).
   */
  synchronized void acknowledged(int checkout, String commitId) {
    for (int i = history.size() - 1; i >= 0; i--) {
      if (history.get(i).commitId().equals(commitId)) {
        reads.add(new Read(checkout, i));
        return;
      }
    }
  }

  /** Returns how many reads were recorded so far: a mark for {@link #readsOf}. */
  synchronized int readMark() {
    return reads.size();
  }

  /** Returns the index of the last version {@code checkout} read, or -1. */
  synchronized int lastRead(int checkout) {
    for (int i = reads.size() - 1; i >= 0; i--) {
      if (reads.get(i).checkout() == checkout) {
        return reads.get(i).index();
      }
    }
    return -1;
  }

  /** Returns the store as checkout {@code checkout} reaches it. */
  Datastore view(int checkout) {
    HistoryRecorder recorder = this;
    return new ForwardingDatastore() {
      /** Returns true: it only records reads. */
      @Override
      protected boolean passesPreconditionsThrough() {
        return true;
      }

      @Override
      protected Datastore delegate() {
        return recorder;
      }

      @Override
      public ReadResult read(ObjectKey key, ReadCondition condition, long maxBytes) {
        synchronized (recorder) {
          ReadResult result = remote.read(key, condition, maxBytes);
          if (key.equals(lockfile)) {
            reads.add(new Read(checkout, history.size() - 1));
          }
          return result;
        }
      }

      @Override
      public Optional<dev.tierlock.spi.StoredObject> stat(ObjectKey key) {
        // a stat shows the current version: a checkout whose cache holds its bytes reads it so
        synchronized (recorder) {
          Optional<dev.tierlock.spi.StoredObject> result = remote.stat(key);
          if (key.equals(lockfile)) {
            reads.add(new Read(checkout, history.size() - 1));
          }
          return result;
        }
      }

      @Override
      public void close() {
        // the remote belongs to the property
      }
    };
  }

  @Override
  protected Datastore delegate() {
    return remote;
  }

  /** Returns true: it only records each write of the lockfile as it lands. */
  @Override
  protected boolean passesPreconditionsThrough() {
    return true;
  }

  @Override
  public WriteResult write(ObjectKey key, ObjectBody body, WriteCondition condition, ObjectMetadata metadata) {
    if (!key.equals(lockfile)) {
      return remote.write(key, body, condition, metadata);
    }
    byte[] bytes = bytesOf(body);
    Version landed;
    synchronized (this) {
      WriteResult result = remote.write(key, ObjectBody.of(bytes), condition, metadata);
      if (!(result instanceof WriteResult.Written)) {
        return result;
      }
      String commit = metadata.get(ObjectMetadata.COMMIT_ID).orElse("");
      int writer = commit.matches("c[0-9]+-.*") ? Integer.parseInt(commit.substring(1, commit.indexOf('-'))) : -2;
      landed = new Version(history.size(), bytes, Lockfile.parse(bytes, "version " + history.size()), commit, writer);
      history.add(landed);
      listener.accept(landed);
      return result;
    }
  }

  private static byte[] bytesOf(ObjectBody body) {
    try (InputStream in = body.open()) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    // the remote belongs to the property
  }
}
