package dev.tierlock;

import java.util.List;

/**
 * No datastore provider on the class path opens a URI's scheme. Add the datastore module that
 * provides it (for instance {@code tierlock-datastore-s3} for {@code s3://}). Code {@code
 * unknown_scheme}.
 */
public final class UnknownSchemeException extends TierlockException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  public static final String CODE = "unknown_scheme";

  /**
   * Creates the exception.
   *
   * @param uri the URI that could not be opened (without credentials)
   * @param known the schemes the providers found do open
   */
  public UnknownSchemeException(String uri, List<String> known) {
    super(CODE, "Cannot open datastore " + uri + ": no datastore provider handles its scheme; known schemes: "
        + (known.isEmpty() ? "none (add a tierlock-datastore-* module to the class path)" : String.join(", ", known)));
  }
}
