package dev.tierlock;

import dev.tierlock.internal.ReadOnlyChange;
import dev.tierlock.internal.TransactionHooks;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The {@link ReadOnlyChange} of a convergence pass: a view of a lockfile that refuses every edit
 * (convergence never writes the lockfile, whatever the code running in it tries), holding the
 * pulled-extensions lock it was given. Confined to the thread that opened it.
 */
final class ConvergeContext implements TransactionContext, TransactionHooks, ReadOnlyChange {

  private final Lockfile view;
  private final PulledExtensionsLock.Section section;
  private final Thread owner = Thread.currentThread();
  private volatile boolean running = true;

  ConvergeContext(Lockfile view, PulledExtensionsLock.Section section) {
    this.view = view;
    this.section = section;
  }

  @Override
  public TransactionContext context() {
    return this;
  }

  @Override
  public void finish() {
    running = false;
  }

  @Override
  public void close() {
    running = false;
    section.close();
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
  public void deleteAfterPublish(TierPath path) {
    requireOpen("delete " + path);
    throw refused("delete " + path);
  }

  @Override
  public void requireStored(TierPath path, Runnable store) {
    requireOpen("store " + path);
    throw refused("store " + path);
  }

  @Override
  public boolean holdsPulledExtensionsLock() {
    requireOpen("ask for the pulled-extensions lock");
    return section.isOpen();
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
