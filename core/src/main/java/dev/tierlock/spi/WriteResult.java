package dev.tierlock.spi;

/** The outcome of {@link Datastore#write}. */
public sealed interface WriteResult {

  /**
   * The write landed.
   *
   * @param version the version it created
   */
  record Written(ObjectVersion version) implements WriteResult {}

  /**
   * The precondition did not hold and the store changed nothing. A backend reports this only when
   * it knows that no attempt of this call was applied; when an earlier attempt may have landed it
   * throws {@link dev.tierlock.spi.OutcomeUnknownException} instead.
   */
  enum PreconditionFailed implements WriteResult {
    /** The only instance. */
    INSTANCE
  }
}
