package dev.tierlock.testkit.gcs;

import dev.tierlock.TierlockException;

/**
 * An error answer of the fake server: the HTTP status, the GCS error reason and the message that
 * go into the JSON error body. Thrown inside request handling and turned into the response by
 * {@link Router}; the public methods of {@link GcsFakeServer} wrap it in an {@link
 * IllegalArgumentException}, so it is never thrown to users.
 */
final class GcsFakeException extends TierlockException {

  private static final long serialVersionUID = 1L;

  /** The stable code. */
  static final String CODE = "gcs_fake_error_answer";

  private final int status;
  private final String reason;

  GcsFakeException(int status, String reason, String message) {
    super(CODE, message);
    this.status = status;
    this.reason = reason;
  }

  int status() {
    return status;
  }

  String reason() {
    return reason;
  }

  static GcsFakeException notFound(String message) {
    return new GcsFakeException(404, "notFound", message);
  }

  static GcsFakeException conditionNotMet(String message) {
    return new GcsFakeException(412, "conditionNotMet", message);
  }

  static GcsFakeException notModified() {
    return new GcsFakeException(304, "notModified", "Not modified");
  }

  static GcsFakeException invalid(String message) {
    return new GcsFakeException(400, "invalid", message);
  }

  /** Returns the reason GCS gives for an error status, for injected failures. */
  static String reasonFor(int status) {
    return switch (status) {
      case 400 -> "invalid";
      case 401 -> "required";
      case 403 -> "forbidden";
      case 404 -> "notFound";
      case 408 -> "requestTimeout";
      case 409 -> "conflict";
      case 412 -> "conditionNotMet";
      case 429 -> "rateLimitExceeded";
      case 500 -> "internalError";
      case 502 -> "badGateway";
      case 503 -> "backendError";
      case 504 -> "gatewayTimeout";
      default -> "error";
    };
  }
}
