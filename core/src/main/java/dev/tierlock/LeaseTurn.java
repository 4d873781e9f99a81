package dev.tierlock;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One lease handed to one caller: a turn of its {@link LeaseLine} riding on a remote {@link
 * HeldLease}. Every acquisition gets its own, also when the holding is handed over from the turn
 * before, so closing one twice, or closing one whose turn has passed, never touches the next
 * caller's: only the first release of the turn that owns the line ends it (handing the holding on,
 * or releasing it remotely). Thread-safe.
 */
final class LeaseTurn implements LockLease {

  private final LeaseLine line;
  private final LeaseLine.Turn turn;
  private final HeldLease holding;
  private final LockOrder.Ticket ticket;
  private final AtomicBoolean released = new AtomicBoolean();

  LeaseTurn(LeaseLine line, LeaseLine.Turn turn, HeldLease holding, LockOrder.Ticket ticket) {
    this.line = line;
    this.turn = turn;
    this.holding = holding;
    this.ticket = ticket;
  }

  /**
   * {@inheritDoc} A lease handed over in this JVM carries the record of the remote holding it
   * continues: the same nonce as the lease before it.
   */
  @Override
  public LockInfo info() {
    return holding.info();
  }

  @Override
  public boolean isHeld() {
    return !released.get() && holding.isHeld();
  }

  @Override
  public void release() {
    if (!released.compareAndSet(false, true)) {
      return;
    }
    try {
      HeldLease detached = line.handOverOrDetach(turn);
      if (detached != null) {
        try {
          detached.release();
        } finally {
          line.end(turn);
        }
      }
    } finally {
      try {
        ticket.close();
      } finally {
        line.leave();
      }
    }
  }

  @Override
  public String toString() {
    return (released.get() ? "released " : "") + holding;
  }
}
