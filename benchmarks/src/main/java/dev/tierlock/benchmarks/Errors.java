package dev.tierlock.benchmarks;

import dev.tierlock.TierlockException;

/** Names a failed commit by its exception's stable code, as the report counts errors. */
final class Errors {

  private Errors() {}

  /** Returns {@code failure}'s {@code code()}, or its class's simple name when it has none. */
  static String code(Throwable failure) {
    if (failure instanceof TierlockException coded) {
      return coded.code();
    }
    if (failure instanceof BaselineLock.TimeoutException timeout) {
      return timeout.code();
    }
    return failure.getClass().getSimpleName();
  }
}
