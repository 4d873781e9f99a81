package dev.tierlock.spi;

/**
 * The precondition of a write or delete. Evaluated by the store atomically with the change: when it
 * does not hold, nothing changes and the operation reports a precondition failure.
 */
public sealed interface WriteCondition {

  /**
   * No precondition: last writer wins. Never used by Tierlock for shared state.
   *
   * @return the condition
   */
  static WriteCondition none() {
    return None.INSTANCE;
  }

  /**
   * Holds only when no object exists at the key ({@code If-None-Match: *}, {@code ifGenerationMatch=0}).
   *
   * @return the condition
   */
  static WriteCondition mustNotExist() {
    return MustNotExist.INSTANCE;
  }

  /**
   * Holds only when the object exists with exactly this version ({@code If-Match}, {@code ifGenerationMatch=N}).
   *
   * @param version the version the object must have
   * @return the condition
   */
  static WriteCondition mustMatch(ObjectVersion version) {
    return new MustMatch(version);
  }

  /** No precondition. */
  enum None implements WriteCondition {
    /** The only instance. */
    INSTANCE
  }

  /** The key must be free. */
  enum MustNotExist implements WriteCondition {
    /** The only instance. */
    INSTANCE
  }

  /**
   * The object must exist at this version.
   *
   * @param version the version the object must have
   */
  record MustMatch(ObjectVersion version) implements WriteCondition {}
}
