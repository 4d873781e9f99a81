package dev.tierlock;

/**
 * A thread started a transaction while already running one on the same {@link LockfileTransaction}
 * (it would wait on its own global lock). A programming error: nested work joins the running
 * transaction through {@link TransactionContext#run}. Nothing was changed. Code {@code
 * nested_transaction}.
 */
public final class NestedTransactionException extends TierlockException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "nested_transaction";

  /**
   * Creates the exception.
   *
   * @param target the transaction's lockfile
   */
  public NestedTransactionException(String target) {
    super(CODE, "Cannot start a transaction on " + target
        + ": this thread is already running one there; join it with TransactionContext.run instead");
  }
}
