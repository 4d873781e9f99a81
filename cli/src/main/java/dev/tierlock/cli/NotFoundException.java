package dev.tierlock.cli;

import dev.tierlock.TierlockException;

/** The thing a command names does not exist. Code {@code not_found}. */
final class NotFoundException extends TierlockException {

  private static final long serialVersionUID = 1L;

  NotFoundException(String message) {
    super("not_found", message);
  }
}
