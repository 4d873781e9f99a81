package dev.tierlock.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;

/**
 * One canonical lock file in one {@link OsLockRegistry}: the fair in-JVM {@link TurnQueue} in front
 * of it, and the one channel to it with the OS lock taken through that channel. Only the thread
 * whose turn it is tries the OS lock. The channel is opened on first need and closed only by the
 * registry, under its map's monitor, when nobody uses the slot and closing is provably safe.
 * Channel state is guarded by this object's monitor. Thread-safe.
 */
final class LockSlot {

  /** How many bytes of a lock file are read for its holder. */
  private static final int MAX_HOLDER_BYTES = 4096;

  /** How an attempt at the OS lock went. */
  enum OsResult {
    /** The OS lock is held through this slot's channel. */
    LOCKED,
    /** Another process, or another channel of this JVM (another class loader), holds it. */
    BUSY,
    /** The file system provider cannot lock files: only the in-JVM turn excludes anyone. */
    UNSUPPORTED
  }

  private final Path file;
  private final OsLockRegistry.Opener opener;
  private final TurnQueue<Void> turns = new TurnQueue<>();
  private volatile @Nullable LockHolder holder;

  /** Users (waiters, holders, readers) of this slot; guarded by the registry's map. */
  int users;

  private @Nullable AsynchronousFileChannel channel;
  private @Nullable FileLock osLock;
  private boolean unsupported;

  LockSlot(Path file, OsLockRegistry.Opener opener) {
    this.file = file;
    this.opener = opener;
  }

  Path file() {
    return file;
  }

  /** Returns the in-JVM queue in front of the OS lock. */
  TurnQueue<Void> turns() {
    return turns;
  }

  /**
   * Ends a granted turn and hands it to the next waiter, forgetting the holder first (only the
   * turn's owner records one, so the next owner's cannot be lost); a stale turn changes nothing.
   */
  void endTurn(TurnQueue.Turn<Void> turn) {
    if (turns.isCurrent(turn)) {
      holder = null;
    }
    turns.end(turn);
  }

  /**
   * Tries the OS lock, for the thread whose turn it is; opens the channel on first need.
   *
   * @throws IOException if the lock file cannot be opened or locked
   */
  synchronized OsResult tryLock() throws IOException {
    if (unsupported) {
      return OsResult.UNSUPPORTED;
    }
    try {
      FileLock lock = channel().tryLock();
      if (lock == null) {
        return OsResult.BUSY;
      }
      osLock = lock;
      return OsResult.LOCKED;
    } catch (OverlappingFileLockException e) {
      // another channel of this JVM holds it (a registry of another class loader): busy, as if another process
      return OsResult.BUSY;
    } catch (UnsupportedOperationException e) {
      unsupported = true;
      return OsResult.UNSUPPORTED;
    }
  }

  /**
   * Records the holder, and writes it into the lock file when the OS lock is held: truncate, then
   * write at position 0, through the slot's channel.
   *
   * @throws IOException if writing fails (the caller then releases the lock)
   */
  synchronized void hold(LockHolder value) throws IOException {
    if (osLock != null) {
      AsynchronousFileChannel open = channel();
      open.truncate(0);
      ByteBuffer bytes = ByteBuffer.wrap(value.encode().getBytes(StandardCharsets.UTF_8));
      long position = 0;
      while (bytes.hasRemaining()) {
        position += await(open.write(bytes, position));
      }
    }
    holder = value;
  }

  /**
   * Reads the holder from the lock file through the slot's channel (never by opening the file
   * anew), unless a holder of this JVM is known.
   *
   * @return the holder, or empty when the file names none or cannot be read here
   */
  synchronized Optional<LockHolder> readHolder() {
    LockHolder known = holder;
    if (known != null) {
      return Optional.of(known);
    }
    if (unsupported) {
      return Optional.empty();
    }
    try {
      AsynchronousFileChannel open = channel();
      ByteBuffer bytes = ByteBuffer.allocate((int) Math.min(open.size(), MAX_HOLDER_BYTES));
      while (bytes.hasRemaining()) {
        if (await(open.read(bytes, bytes.position())) < 0) {
          break;
        }
      }
      return LockHolder.parse(new String(bytes.array(), 0, bytes.position(), StandardCharsets.UTF_8));
    } catch (IOException | UnsupportedOperationException e) {
      // a file that cannot be read here (a mandatory lock elsewhere, a provider without channels) names nobody
      return Optional.empty();
    }
  }

  /**
   * Empties the lock file and releases the OS lock, keeping the channel open for the next holder;
   * if unlocking fails, closes the channel instead (safe: the lock is ours, so closing releases
   * exactly it). For the holder, while others still use the slot.
   *
   * @throws IOException if emptying or unlocking failed; the OS lock is released nonetheless
   */
  synchronized void unlock() throws IOException {
    FileLock lock = osLock;
    osLock = null;
    if (lock == null) {
      return;
    }
    IOException failure = null;
    try {
      channel().truncate(0);
    } catch (IOException e) {
      failure = e;
    }
    try {
      lock.release();
    } catch (IOException e) {
      failure = add(failure, e);
      failure = add(failure, closeChannel());
    }
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * Closes the channel if that is provably safe, for the registry when the last user leaves: when
   * this slot holds the OS lock (closing releases exactly it; the file is emptied first), when
   * there is no channel, or when {@code tryLock} shows that no other channel of this JVM holds the
   * lock (it returns a lock, which closing releases, or null: another process holds it, and fcntl
   * locks belong to processes, so closing cannot drop it). When {@code tryLock} throws {@link
   * OverlappingFileLockException}, another channel of this JVM (another class loader's registry)
   * holds it and closing ours would drop its lock: the channel is parked, kept open, and never
   * closed while that is so.
   *
   * @return whether the channel is closed (or never was open), so that the slot may be forgotten
   * @throws IOException if emptying or closing the channel failed; it is closed all the same
   */
  synchronized boolean closeIfSafe() throws IOException {
    AsynchronousFileChannel open = channel;
    if (open == null || !open.isOpen()) {
      channel = null;
      return true;
    }
    IOException failure = null;
    if (osLock != null) {
      try {
        open.truncate(0);
      } catch (IOException e) {
        failure = e;
      }
    } else {
      try {
        open.tryLock();
      } catch (OverlappingFileLockException e) {
        return false;
      } catch (IOException e) {
        // cannot tell who holds it: keep the channel, as for a lock of another class loader
        return false;
      } catch (UnsupportedOperationException e) {
        // a provider that cannot lock: there is no lock to drop
      }
    }
    osLock = null;
    failure = add(failure, closeChannel());
    if (failure != null) {
      throw failure;
    }
    return true;
  }

  private @Nullable IOException closeChannel() {
    AsynchronousFileChannel open = channel;
    channel = null;
    if (open == null) {
      return null;
    }
    try {
      open.close();
      return null;
    } catch (IOException e) {
      return e;
    }
  }

  private AsynchronousFileChannel channel() throws IOException {
    AsynchronousFileChannel open = channel;
    if (open == null || !open.isOpen()) {
      open = opener.open(file);
      channel = open;
    }
    return open;
  }

  private static @Nullable IOException add(@Nullable IOException first, @Nullable IOException next) {
    if (first == null) {
      return next;
    }
    if (next != null && next != first) {
      first.addSuppressed(next);
    }
    return first;
  }

  /** Waits for an I/O operation, without being cut short by an interrupt (the flag is kept). */
  private static int await(Future<Integer> operation) throws IOException {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return operation.get();
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          if (cause instanceof IOException io) {
            throw io;
          }
          if (cause instanceof RuntimeException runtime) {
            throw runtime;
          }
          if (cause instanceof Error error) {
            throw error;
          }
          throw new IOException(cause);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

}
