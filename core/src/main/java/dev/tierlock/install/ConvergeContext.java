package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import dev.tierlock.TierPath;
import dev.tierlock.TransactionContext;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The change a convergence pass swaps files in: a view of a lockfile that refuses every edit
 * (convergence never writes the lockfile or the tier, whatever the code running in it tries),
 * opened only while the pass holds the checkout's pulled-extensions lock ({@link
 * dev.tierlock.Tierlock#tryWithPulledExtensionsLock}). {@link #finish()} ends the change, so what
 * was applied in it may be committed while the lock is still held. Confined to the thread that
 * opened it.
 */
final class ConvergeContext implements TransactionContext, AutoCloseable {

  private final Lockfile view;
  private final Thread owner = Thread.currentThread();
  private volatile boolean running = true;

  /** Opens the change; the caller holds the pulled-extensions lock until it is closed. */
  ConvergeContext(Lockfile view) {
    this.view = view;
  }

  /** Ends the change; every later call but {@link #isRunning()} is refused. Idempotent. */
  void finish() {
    running = false;
  }

  /** Same as {@link #finish()}. */
  @Override
  public void close() {
    finish();
  }

  @Override
  public Optional<LockfileEntry> entry(ExtensionName name) {
    requireOpen("read entry " + name);
    return view.entry(name);
  }

  @Override
  public Lockfile lockfile() {
    requireOpen("read the lockfile");
    return view;
  }

  @Override
  public void put(ExtensionName name, LockfileEntry entry) {
    requireOpen("set entry " + name);
    throw refused("set entry " + name);
  }

  @Override
  public Optional<LockfileEntry> remove(ExtensionName name) {
    requireOpen("remove entry " + name);
    throw refused("remove entry " + name);
  }

  @Override
  public void run(Consumer<TransactionContext> nested) {
    requireOpen("run a nested change");
    nested.accept(this);
  }

  @Override
  public <T> T withPulledExtensionsLock(Supplier<T> action) {
    requireOpen("take the pulled-extensions lock");
    return action.get();
  }

  @Override
  public void requireStored(TierPath path, Runnable store) {
    requireOpen("store " + path);
    throw refused("store " + path);
  }

  @Override
  public boolean holdsPulledExtensionsLock() {
    requireOpen("ask for the pulled-extensions lock");
    return true;  // opened only under it, and ended before it is released
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  private static IllegalStateException refused(String what) {
    return new IllegalStateException("Cannot " + what + " during convergence: convergence never writes the lockfile"
        + " or the tier");
  }

  private void requireOpen(String what) {
    if (!running) {
      throw new IllegalStateException("Cannot " + what + ": the convergence change has ended");
    }
    if (Thread.currentThread() != owner) {
      throw new IllegalStateException("Cannot " + what + " from " + Thread.currentThread().getName()
          + ": the convergence change runs on " + owner.getName());
    }
  }

  @Override
  public String toString() {
    return "ConvergeContext[" + view.size() + " entries]";
  }
}
