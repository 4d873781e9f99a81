package dev.tierlock.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.CompletionHandler;
import java.nio.channels.FileLock;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.Future;

/**
 * A real lock-file channel that fails the operations a test switches on, for {@link
 * OsLockRegistry#using}. Thread-safe.
 */
public final class FaultyChannel extends AsynchronousFileChannel {

  /** An operation that can be made to fail with {@code IOException("<operation> refused")}. */
  public enum Fault {
    /** Writing the holder. */
    WRITE,
    /** Truncating: writing the holder, emptying the file on release. */
    TRUNCATE
  }

  private final AsynchronousFileChannel delegate;
  private final Set<Fault> faults;

  private FaultyChannel(AsynchronousFileChannel delegate, Set<Fault> faults) {
    this.delegate = delegate;
    this.faults = faults;
  }

  /** Returns an empty, thread-safe fault set for a test to change at will. */
  public static Set<Fault> faults() {
    return new CopyOnWriteArraySet<>();
  }

  /** Returns an opener of real channels that fail, once each, whatever is in {@code faults} at the time. */
  public static OsLockRegistry.Opener opener(Set<Fault> faults) {
    return file -> new FaultyChannel(OsLockRegistry.Opener.STANDARD.open(file), faults);
  }

  /** Fails the next operation of {@code fault}'s kind once: the fault is taken out of the set as it fires. */
  private void check(Fault fault) throws IOException {
    if (faults.remove(fault)) {
      throw new IOException(fault.name().toLowerCase(java.util.Locale.ROOT) + " refused");
    }
  }

  @Override
  public long size() throws IOException {
    return delegate.size();
  }

  @Override
  public AsynchronousFileChannel truncate(long size) throws IOException {
    check(Fault.TRUNCATE);
    delegate.truncate(size);
    return this;
  }

  @Override
  public void force(boolean metaData) throws IOException {
    delegate.force(metaData);
  }

  @Override
  public <A> void lock(long position, long size, boolean shared, A attachment,
      CompletionHandler<FileLock, ? super A> handler) {
    delegate.lock(position, size, shared, attachment, handler);
  }

  @Override
  public Future<FileLock> lock(long position, long size, boolean shared) {
    return delegate.lock(position, size, shared);
  }

  @Override
  public FileLock tryLock(long position, long size, boolean shared) throws IOException {
    return delegate.tryLock(position, size, shared);
  }

  @Override
  public <A> void read(ByteBuffer dst, long position, A attachment, CompletionHandler<Integer, ? super A> handler) {
    delegate.read(dst, position, attachment, handler);
  }

  @Override
  public Future<Integer> read(ByteBuffer dst, long position) {
    return delegate.read(dst, position);
  }

  @Override
  public <A> void write(ByteBuffer src, long position, A attachment, CompletionHandler<Integer, ? super A> handler) {
    delegate.write(src, position, attachment, handler);
  }

  @Override
  public Future<Integer> write(ByteBuffer src, long position) {
    try {
      check(Fault.WRITE);
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
    return delegate.write(src, position);
  }

  @Override
  public boolean isOpen() {
    return delegate.isOpen();
  }

  @Override
  public void close() throws IOException {
    delegate.close();
  }
}
