package dev.tierlock;

import java.io.IOException;

/**
 * The outermost section of a {@link PulledExtensionsLock}: holds its {@link CheckoutLock} layers (the
 * in-JVM mutex and the OS file lock) until closed. Thread-safe.
 */
final class CheckoutSection implements PulledExtensionsLock.Section {

  private final PulledExtensionsLock lock;
  private final CheckoutLock.Held held;
  private boolean closed;

  CheckoutSection(PulledExtensionsLock lock, CheckoutLock.Held held) {
    this.lock = lock;
    this.held = held;
  }

  @Override
  public PulledExtensionsLock lock() {
    return lock;
  }

  @Override
  public synchronized PulledExtensionsLock.Section nested() {
    if (closed) {
      throw new IllegalStateException("Cannot enter a nested section of " + lock.describe() + ": the section is closed");
    }
    return new Nested(this, LockOrder.enter(LockLevel.PULLED_EXTENSIONS, lock.describe()));
  }

  @Override
  public synchronized boolean isOpen() {
    return !closed;
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      held.unlock();
    } catch (IOException e) {
      throw new LocalFileException("Cannot unlock " + lock.lockFile() + ": " + e.getMessage(), e);
    }
  }

  @Override
  public String toString() {
    return "section of " + lock.describe() + (closed ? " (closed)" : "");
  }

  /** A nested section: runs inline in its outermost one and releases nothing. */
  private static final class Nested implements PulledExtensionsLock.Section {
    private final CheckoutSection root;
    private final LockOrder.Ticket ticket;
    private volatile boolean closed;

    Nested(CheckoutSection root, LockOrder.Ticket ticket) {
      this.root = root;
      this.ticket = ticket;
    }

    @Override
    public PulledExtensionsLock lock() {
      return root.lock;
    }

    @Override
    public PulledExtensionsLock.Section nested() {
      if (closed) {
        throw new IllegalStateException("Cannot enter a nested section of " + root.lock.describe() + ": the section is closed");
      }
      return root.nested();
    }

    @Override
    public boolean isOpen() {
      return !closed && root.isOpen();
    }

    @Override
    public void close() {
      closed = true;
      ticket.close();
    }

    @Override
    public String toString() {
      return "nested " + root;
    }
  }
}
