package dev.tierlock;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The context one change runs in: a view of the lockfile it started from and its edits so far,
 * recorded by name. The delta it yields is computed against the starting lockfile, so a put of the
 * value already there, or a put undone by a later remove, is no change at all. Confined to the
 * thread that runs the change, and only while it runs.
 */
final class ChangeEditor implements TransactionContext {

  private final Lockfile start;
  private final PulledExtensionsLock pulledExtensions;
  private final Thread owner = Thread.currentThread();
  private Lockfile current;
  private Set<ExtensionName> touched = new LinkedHashSet<>();
  private Map<TierPath, Runnable> required = new LinkedHashMap<>();
  private PulledExtensionsLock.@Nullable Held section;
  private volatile boolean open = true;

  ChangeEditor(Lockfile start, PulledExtensionsLock pulledExtensions) {
    this.start = start;
    this.current = start;
    this.pulledExtensions = pulledExtensions;
  }

  @Override
  public Optional<LockfileEntry> entry(ExtensionName name) {
    requireOpen("read entry " + name);
    return current.entry(name);
  }

  @Override
  public Lockfile lockfile() {
    requireOpen("read the lockfile");
    return current;
  }

  @Override
  public void put(ExtensionName name, LockfileEntry entry) {
    requireOpen("set entry " + name);
    current = current.with(name, entry);
    touched.add(name);
  }

  @Override
  public Optional<LockfileEntry> remove(ExtensionName name) {
    requireOpen("remove entry " + name);
    Optional<LockfileEntry> previous = current.entry(name);
    Lockfile next = current.without(name);
    if (next != current) {
      current = next;
      touched.add(name);
    }
    return previous;
  }

  @Override
  public void run(Consumer<TransactionContext> nested) {
    requireOpen("run a nested change");
    Lockfile savedLockfile = current;
    Set<ExtensionName> savedTouched = new LinkedHashSet<>(touched);
    Map<TierPath, Runnable> savedRequired = new LinkedHashMap<>(required);
    try {
      nested.accept(this);
    } catch (RuntimeException | Error e) {
      current = savedLockfile;
      touched = savedTouched;
      required = savedRequired;
      throw e;
    }
  }

  @Override
  public <T> T withPulledExtensionsLock(Supplier<T> action) {
    requireOpen("take the pulled-extensions lock");
    PulledExtensionsLock.Held outer = section;
    if (outer != null && outer.isOpen()) {
      return action.get();
    }
    try (PulledExtensionsLock.Held taken = pulledExtensions.acquire()) {
      section = taken;
      return action.get();
    } finally {
      section = null;
    }
  }

  @Override
  public boolean isRunning() {
    return open;
  }

  @Override
  public boolean holdsPulledExtensionsLock() {
    requireOpen("ask for the pulled-extensions lock");
    PulledExtensionsLock.Held held = section;
    return held != null && held.isOpen();
  }

  @Override
  public void requireStored(TierPath path, Runnable store) {
    requireOpen("require " + path);
    required.put(path, store);
  }

  /** Returns the tier paths the change stored and relies on, each with how to store it again. */
  Map<TierPath, Runnable> required() {
    return new LinkedHashMap<>(required);
  }

  /** Ends the change: every later call is refused. */
  void close() {
    open = false;
  }

  /**
   * Returns what the change did to the starting lockfile: the touched names whose entry differs
   * now, upserts in the order they stand in the lockfile (new names in the order they were added),
   * then removals.
   */
  LockfileDelta delta() {
    return deltaOf(start, current, touched);
  }

  /**
   * Returns what the change wants of every name it touched, changed or not: its entry as the
   * change left it, or a removal. A put of the value the change found is no change against the
   * lockfile it started from, but it is still what the caller asked for: a writer that started from
   * a lockfile that may be stale must check those names too.
   */
  LockfileDelta wanted() {
    Map<ExtensionName, LockfileEntry> upserts = new LinkedHashMap<>();
    SortedSet<ExtensionName> removals = new TreeSet<>();
    for (ExtensionName name : touched) {
      Optional<LockfileEntry> now = current.entry(name);
      if (now.isPresent()) {
        upserts.put(name, now.get());
      } else {
        removals.add(name);
      }
    }
    return new LockfileDelta(upserts, removals);
  }

  /** Returns the change of {@code names} from {@code before} to {@code after}, as {@link #delta()} describes. */
  static LockfileDelta deltaOf(Lockfile before, Lockfile after, Set<ExtensionName> names) {
    // only the names asked about are looked at: no other member of either lockfile is decoded
    Map<ExtensionName, LockfileEntry> upserts = new LinkedHashMap<>();
    for (ExtensionName name : after.inFileOrder(names)) {
      LockfileEntry entry = after.entry(name).orElseThrow();
      if (!before.entry(name).map(entry::equals).orElse(false)) {
        upserts.put(name, entry);
      }
    }
    SortedSet<ExtensionName> removals = new TreeSet<>();
    for (ExtensionName name : names) {
      if (!after.contains(name) && before.contains(name)) {
        removals.add(name);
      }
    }
    return new LockfileDelta(upserts, removals);
  }

  private void requireOpen(String what) {
    if (!open) {
      throw new IllegalStateException("Cannot " + what + ": the transaction's change has returned");
    }
    if (Thread.currentThread() != owner) {
      throw new IllegalStateException("Cannot " + what + " from thread " + Thread.currentThread().getName()
          + ": a transaction's context belongs to the thread running its change (" + owner.getName() + ")");
    }
  }
}
