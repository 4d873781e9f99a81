package dev.tierlock.datastore.gcs;

import com.google.api.gax.rpc.DeadlineExceededException;
import com.google.cloud.BaseServiceException;
import com.google.cloud.storage.StorageException;
import dev.tierlock.spi.DatastoreAccessDeniedException;
import dev.tierlock.spi.DatastoreException;
import dev.tierlock.spi.DatastoreBusyException;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.OutcomeUnknownException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * The one place that reads {@link StorageException} codes. It sorts each exception into an
 * expected answer (not modified, precondition failed, not found) or a failure, and translates
 * failures into Tierlock's exceptions, so that no vendor type leaves this module.
 *
 * <table>
 *   <caption>Translation</caption>
 *   <tr><th>GCS</th><th>read, stat, list</th><th>write, delete</th></tr>
 *   <tr><td>304</td><td>not modified</td><td>failure: unavailable</td></tr>
 *   <tr><td>404</td><td>absent</td><td>absent (delete); unavailable (write: no bucket)</td></tr>
 *   <tr><td>412</td><td>unavailable</td><td>precondition failed; outcome unknown when the
 *       exception shows an earlier attempt of the same call</td></tr>
 *   <tr><td>401, 403</td><td colspan="2">access denied</td></tr>
 *   <tr><td>409</td><td colspan="2">unavailable (a concurrent request conflicted; nothing changed)</td></tr>
 *   <tr><td>429</td><td colspan="2">busy, message says throttled (about one write per second
 *       to one object name)</td></tr>
 *   <tr><td>408, 5xx</td><td>unavailable</td><td>outcome unknown (the server may have applied it)</td></tr>
 *   <tr><td>0: connection refused, unknown host</td><td colspan="2">unavailable (nothing was sent)</td></tr>
 *   <tr><td>0: timeout, reset, other I/O or error; interrupted, cancelled or past a deadline
 *       ({@link GcsCallGuard})</td><td>unavailable</td><td>outcome unknown</td></tr>
 *   <tr><td>other 4xx</td><td colspan="2">unavailable (the request was refused)</td></tr>
 * </table>
 */
final class GcsErrorTranslator {

  /** Whether the call that failed may change the store. */
  enum Call {
    /** A read, stat, listing or download. */
    READ,
    /** A write or delete. */
    CHANGE
  }

  /** The expected answer a {@link StorageException} stands for, if any. */
  enum Answer {
    /** 304: the read's {@code ifGenerationNotMatch} held the current generation. */
    NOT_MODIFIED,
    /** 404: no such object. */
    NOT_FOUND,
    /** 412 on a change that the client sent exactly once: nothing changed. */
    PRECONDITION_FAILED,
    /** Anything else: translate with {@link #failure}. */
    FAILURE
  }

  private GcsErrorTranslator() {}

  /** Sorts an exception into an expected answer or a failure. */
  static Answer answer(StorageException e, Call call) {
    return switch (e.getCode()) {
      case 304 -> call == Call.READ ? Answer.NOT_MODIFIED : Answer.FAILURE;
      case 404 -> Answer.NOT_FOUND;
      case 412 -> call == Call.CHANGE && !showsEarlierAttempt(e) ? Answer.PRECONDITION_FAILED : Answer.FAILURE;
      default -> Answer.FAILURE;
    };
  }

  /**
   * Translates a failure.
   *
   * @param action what was attempted, e.g. {@code write object config/a in gs://bucket/prefix}
   */
  static DatastoreException failure(StorageException e, Call call, String action) {
    int code = e.getCode();
    String what = describe(e);
    if (code == 401 || code == 403) {
      return new DatastoreAccessDeniedException("Cannot " + action + ": GCS refused the credentials or"
          + " permissions (" + what + ")", e);
    }
    if (code == 429) {
      return new DatastoreBusyException("Cannot " + action + ": throttled by GCS (" + what
          + "); GCS allows about one write per second to one object name, back off and retry", e);
    }
    if (code == 409) {
      return new DatastoreUnavailableException("Cannot " + action + ": a concurrent request conflicted ("
          + what + "); nothing changed, retry", e);
    }
    if (code == 412) {
      return call == Call.CHANGE
          ? new OutcomeUnknownException("Cannot " + action + ": the precondition failed on a retried attempt ("
              + what + "); an earlier attempt of this call may have landed", e)
          : new DatastoreUnavailableException("Cannot " + action + ": a precondition failed (" + what + ")", e);
    }
    if (code == 408 || code >= 500) {
      return call == Call.CHANGE
          ? new OutcomeUnknownException("Cannot " + action + ": GCS answered " + what
              + " after the request was sent; the change may have landed", e)
          : new DatastoreUnavailableException("Cannot " + action + ": GCS is unavailable (" + what + ")", e);
    }
    if (code >= 300) {
      return new DatastoreUnavailableException("Cannot " + action + ": GCS refused the request (" + what + ")", e);
    }
    Throwable io = ioCause(e);
    if (io instanceof ConnectException || io instanceof UnknownHostException || io instanceof NoRouteToHostException) {
      return new DatastoreUnavailableException("Cannot " + action + ": GCS cannot be reached (" + io + ")", e);
    }
    String cut = cutShort(e, what);
    String reason = cut != null ? cut
        : io instanceof SocketTimeoutException ? "no answer within the call timeout (" + io + ")"
        : io != null ? "the connection failed (" + io + ")" : "the client failed (" + what + ")";
    return call == Call.CHANGE
        ? new OutcomeUnknownException("Cannot " + action + ": " + reason + "; the change may have landed", e)
        : new DatastoreUnavailableException("Cannot " + action + ": " + reason, e);
  }

  /**
   * Returns the {@link StorageException} an I/O failure of a download carries (the client's read
   * channel wraps the answer it got, such as a 404 for a replaced generation), or null when it
   * carries none.
   */
  static @Nullable StorageException storageExceptionIn(IOException e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof StorageException storage) {
        return storage;
      }
    }
    return null;
  }

  /**
   * Returns whether the exception carries the failure of an earlier attempt of the same call (the
   * client library attaches them as suppressed exceptions when it gives up after retrying).
   */
  static boolean showsEarlierAttempt(StorageException e) {
    for (Throwable suppressed : e.getSuppressed()) {
      if (suppressed instanceof BaseServiceException || suppressed instanceof IOException) {
        return true;
      }
    }
    return false;
  }

  /**
   * Returns why a call with no answer was cut short by the client itself, or null: interrupted
   * ({@link GcsCallGuard#interruptionIn}), cancelled, or past a gax deadline.
   */
  private static @Nullable String cutShort(StorageException e, String what) {
    if (GcsCallGuard.interruptionIn(e)) {
      return "the call was interrupted (" + what + ")";
    }
    for (Throwable t = e.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
      if (t instanceof CancellationException) {
        return "the call was cancelled (its deadline passed or it was interrupted)";
      }
      if (t instanceof DeadlineExceededException || t instanceof TimeoutException) {
        return "no answer within the call timeout (" + t + ")";
      }
    }
    return null;
  }

  private static @Nullable Throwable ioCause(Throwable e) {
    for (Throwable t = e.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
      if (t instanceof IOException) {
        return t;
      }
    }
    return null;
  }

  private static String describe(StorageException e) {
    StringBuilder out = new StringBuilder();
    if (e.getCode() != 0) {
      out.append("HTTP ").append(e.getCode());
    }
    String reason = e.getReason();
    if (reason != null && !reason.isEmpty()) {
      out.append(out.length() == 0 ? "" : " ").append(reason);
    }
    String message = e.getMessage();
    if (message != null && !message.isEmpty()) {
      String firstLine = message.lines().findFirst().orElse("");
      out.append(out.length() == 0 ? "" : ": ").append(firstLine.length() > 200 ? firstLine.substring(0, 200) : firstLine);
    }
    return out.toString();
  }
}
