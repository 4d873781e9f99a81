package dev.tierlock;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The context of one running change: the repository, the pulled-extensions section (joined by
 * nested calls) and the tier paths to delete after the publish. Used by the thread that runs the
 * change only.
 */
final class RunContext implements TransactionContext {

  private final SyncMode mode;
  private final LockfileRepository repository;
  private final Lockfile fetched;
  private final PulledExtensionsLock pulledExtensions;
  private final Set<TierPath> deletions = new LinkedHashSet<>();
  private PulledExtensionsLock.@Nullable Section section;
  private volatile boolean open = true;

  RunContext(SyncMode mode, LockfileRepository repository, Lockfile fetched, PulledExtensionsLock pulledExtensions) {
    this.mode = mode;
    this.repository = repository;
    this.fetched = fetched;
    this.pulledExtensions = pulledExtensions;
  }

  @Override
  public SyncMode mode() {
    return mode;
  }

  @Override
  public LockfileRepository repository() {
    return repository;
  }

  @Override
  public Lockfile fetched() {
    return fetched;
  }

  @Override
  public void run(Consumer<TransactionContext> nested) {
    requireOpen("run a nested change");
    nested.accept(this);
  }

  @Override
  public <T> T withPulledExtensionsLock(Function<PulledExtensionsLock.Section, T> action) {
    requireOpen("take the pulled-extensions lock");
    PulledExtensionsLock.Section outer = section;
    if (outer != null && outer.isOpen()) {
      try (PulledExtensionsLock.Section nested = outer.nested()) {
        return action.apply(nested);
      }
    }
    try (PulledExtensionsLock.Section taken = pulledExtensions.acquire()) {
      section = taken;
      return action.apply(taken);
    } finally {
      section = null;
    }
  }

  @Override
  public void deleteAfterPublish(TierPath path) {
    requireOpen("delete " + path);
    if (path.equals(TierPath.LOCKFILE)) {
      throw new IllegalArgumentException("Cannot delete " + path + " through a transaction");
    }
    deletions.add(path);
  }

  /** Ends the change: later calls are refused. */
  void close() {
    open = false;
  }

  List<TierPath> deletions() {
    return List.copyOf(deletions);
  }

  boolean hasPaths() {
    return !deletions.isEmpty();
  }

  private void requireOpen(String what) {
    if (!open) {
      throw new IllegalStateException("Cannot " + what + ": the transaction's change has returned");
    }
  }
}
