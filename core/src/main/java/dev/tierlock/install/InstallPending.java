package dev.tierlock.install;

import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileEntry;
import dev.tierlock.TransactionContext;
import java.util.List;
import java.util.Optional;

/** The {@link PendingInstall} of one {@link Installer#apply}: its extension and the dependencies applied with it. */
final class InstallPending implements PendingInstall {

  private final TransactionContext tx;
  private final List<AppliedInstall> applied;
  private boolean ended;

  InstallPending(TransactionContext tx, List<AppliedInstall> applied) {
    this.tx = tx;
    this.applied = List.copyOf(applied);
  }

  @Override
  public ExtensionName name() {
    return applied.get(0).name();
  }

  @Override
  public List<ExtensionManifest> installed() {
    return applied.stream().map(AppliedInstall::manifest).toList();
  }

  @Override
  public Optional<LockfileEntry> previous() {
    return applied.get(0).previous();
  }

  @Override
  public Optional<LockfileEntry> written() {
    return applied.get(0).written();
  }

  @Override
  public void commit() {
    if (tx.isRunning()) {
      throw new IllegalStateException("Cannot commit the install of " + name() + " while its transaction's change runs:"
          + " commit once run(...) has returned (or thrown with the change kept), so the old files are deleted only"
          + " after a lockfile that no longer names them is published or pending");
    }
    end("commit");
    RuntimeException failure = null;
    for (AppliedInstall one : applied) {
      try {
        one.commit();
      } catch (RuntimeException e) {
        // the new files are live and recorded: what is left is old staging, which recovery deletes
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public void rollback() {
    if (!tx.isRunning()) {
      throw new IllegalStateException("Cannot roll back the install of " + name() + ": its transaction's change has"
          + " ended; roll back inside it, before it returns");
    }
    end("roll back");
    RuntimeException failure = null;
    for (int i = applied.size() - 1; i >= 0; i--) {
      try {
        applied.get(i).rollback(tx);
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private void end(String what) {
    if (ended) {
      throw new IllegalStateException("Cannot " + what + " the install of " + name() + ": it was committed or rolled"
          + " back already");
    }
    ended = true;
  }

  @Override
  public String toString() {
    return "PendingInstall[" + installed().stream().map(m -> m.name() + "@" + m.version()).toList() + "]";
  }
}
