package dev.tierlock.datastore.gcs;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.storage.StorageException;
import dev.tierlock.spi.DatastoreAccessDeniedException;
import dev.tierlock.spi.DatastoreException;
import dev.tierlock.spi.DatastoreBusyException;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.OutcomeUnknownException;
import dev.tierlock.datastore.gcs.GcsErrorTranslator.Answer;
import dev.tierlock.datastore.gcs.GcsErrorTranslator.Call;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The translation of real {@link StorageException}s, as the client builds them, for reads and changes. */
class GcsErrorTranslatorTest {

  private static final String ACTION = "write object config/a in gs://bucket/p";

  static Stream<Arguments> failures() {
    return Stream.of(
        Arguments.of(http(401, "required"), Call.READ, DatastoreAccessDeniedException.class, "GCS refused the credentials"),
        Arguments.of(http(403, "forbidden"), Call.CHANGE, DatastoreAccessDeniedException.class, "GCS refused the credentials"),
        Arguments.of(http(429, "rateLimitExceeded"), Call.CHANGE, DatastoreBusyException.class, "throttled by GCS"),
        Arguments.of(http(429, "rateLimitExceeded"), Call.READ, DatastoreBusyException.class, "throttled by GCS"),
        Arguments.of(http(409, "conflict"), Call.CHANGE, DatastoreUnavailableException.class, "a concurrent request conflicted"),
        Arguments.of(http(408, "requestTimeout"), Call.CHANGE, OutcomeUnknownException.class, "the change may have landed"),
        Arguments.of(http(500, "internalError"), Call.CHANGE, OutcomeUnknownException.class, "the change may have landed"),
        Arguments.of(http(503, "backendError"), Call.READ, DatastoreUnavailableException.class, "GCS is unavailable"),
        Arguments.of(http(502, "badGateway"), Call.READ, DatastoreUnavailableException.class, "GCS is unavailable"),
        Arguments.of(http(400, "invalid"), Call.CHANGE, DatastoreUnavailableException.class, "GCS refused the request"),
        Arguments.of(http(304, "notModified"), Call.CHANGE, DatastoreUnavailableException.class, "GCS refused the request"),
        Arguments.of(http(412, "conditionNotMet"), Call.READ, DatastoreUnavailableException.class, "a precondition failed"),
        Arguments.of(io(new ConnectException("Connection refused")), Call.CHANGE, DatastoreUnavailableException.class,
            "GCS cannot be reached"),
        Arguments.of(io(new UnknownHostException("storage.example")), Call.READ, DatastoreUnavailableException.class,
            "GCS cannot be reached"),
        Arguments.of(io(new SocketTimeoutException("Read timed out")), Call.CHANGE, OutcomeUnknownException.class,
            "no answer within the call timeout"),
        Arguments.of(io(new SocketTimeoutException("Read timed out")), Call.READ, DatastoreUnavailableException.class,
            "no answer within the call timeout"),
        Arguments.of(io(new SocketException("Unexpected end of file from server")), Call.CHANGE,
            OutcomeUnknownException.class, "the connection failed"),
        Arguments.of(new StorageException(0, "client gave up", null), Call.CHANGE, OutcomeUnknownException.class,
            "the client failed (client gave up)"),
        Arguments.of(new StorageException(0, "client gave up", null), Call.READ, DatastoreUnavailableException.class,
            "the client failed (client gave up)"));
  }

  @ParameterizedTest
  @MethodSource("failures")
  void failure_translatesByCodeCauseAndCall(StorageException e, Call call, Class<? extends DatastoreException> type,
      String reason) {
    DatastoreException translated = GcsErrorTranslator.failure(e, call, ACTION);

    assertThat(translated).isInstanceOf(type).hasCause(e);
    assertThat(translated.getMessage()).startsWith("Cannot " + ACTION + ": ").contains(reason);
    assertThat(translated.code()).isEqualTo(type == DatastoreAccessDeniedException.class ? "access_denied"
        : type == OutcomeUnknownException.class ? "outcome_unknown"
        : type == DatastoreBusyException.class ? "datastore_busy" : "datastore_unavailable");
  }

  static Stream<Arguments> answers() {
    return Stream.of(
        Arguments.of(http(304, "notModified"), Call.READ, Answer.NOT_MODIFIED),
        Arguments.of(http(304, "notModified"), Call.CHANGE, Answer.FAILURE),
        Arguments.of(http(404, "notFound"), Call.READ, Answer.NOT_FOUND),
        Arguments.of(http(404, "notFound"), Call.CHANGE, Answer.NOT_FOUND),
        Arguments.of(http(412, "conditionNotMet"), Call.CHANGE, Answer.PRECONDITION_FAILED),
        Arguments.of(http(412, "conditionNotMet"), Call.READ, Answer.FAILURE),
        Arguments.of(retried412(), Call.CHANGE, Answer.FAILURE),
        Arguments.of(http(429, "rateLimitExceeded"), Call.CHANGE, Answer.FAILURE),
        Arguments.of(io(new SocketTimeoutException()), Call.READ, Answer.FAILURE));
  }

  @ParameterizedTest
  @MethodSource("answers")
  void answer_sortsExpectedOutcomesFromFailures(StorageException e, Call call, Answer expected) {
    assertThat(GcsErrorTranslator.answer(e, call)).isEqualTo(expected);
  }

  private static StorageException http(int code, String reason) {
    return new StorageException(code, "HTTP " + code + " from GCS", reason, null);
  }

  private static StorageException io(IOException cause) {
    return new StorageException(cause);
  }

  private static StorageException retried412() {
    StorageException e = http(412, "conditionNotMet");
    e.addSuppressed(io(new SocketException("Unexpected end of file from server")));
    return e;
  }
}
