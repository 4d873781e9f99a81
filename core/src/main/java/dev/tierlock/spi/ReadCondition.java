package dev.tierlock.spi;

/** The condition of a read: unconditional, or "only if the version differs from this one". */
public sealed interface ReadCondition {

  /**
   * Reads whatever is there.
   *
   * @return the condition
   */
  static ReadCondition always() {
    return Always.INSTANCE;
  }

  /**
   * Reads only if the object's version differs from {@code version}; otherwise the read reports
   * {@link ReadResult.NotModified} and transfers no body ({@code If-None-Match}, {@code
   * ifGenerationNotMatch}).
   *
   * @param version the version the caller already has
   * @return the condition
   */
  static ReadCondition ifNoneMatch(ObjectVersion version) {
    return new IfNoneMatch(version);
  }

  /** Unconditional. */
  enum Always implements ReadCondition {
    /** The only instance. */
    INSTANCE
  }

  /**
   * Conditional on a version change.
   *
   * @param version the version the caller already holds
   */
  record IfNoneMatch(ObjectVersion version) implements ReadCondition {}
}
