package dev.tierlock.testkit.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.testkit.TestClock;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The fake server's per-object write rate limit (GCS's one write per second to one name), on a test
 * clock so that nothing waits: writes past the rate answer 429 {@code rateLimitExceeded} and change
 * nothing, only writes that changed the object count, each object has its own budget, reads are
 * never limited, and the limit is off unless switched on.
 */
class GcsFaultsWriteRateTest {

  private static final String BUCKET = "rate-limited";

  private final TestClock clock = TestClock.create();
  private GcsFakeServer server;

  @BeforeEach
  void start() throws IOException {
    server = GcsFakeServer.start(clock);
    server.createBucket(BUCKET);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void writesPastTheRate_areAnswered429UntilTheIntervalHasPassed() throws IOException {
    server.faults().limitWritesPerObject(Duration.ofSeconds(1), clock);

    assertThat(upload("a", "1").status()).isEqualTo(200);
    Answer refused = upload("a", "2");
    clock.advance(Duration.ofMillis(999));
    Answer stillRefused = upload("a", "3");
    clock.advance(Duration.ofMillis(1));
    Answer admitted = upload("a", "4");

    assertThat(refused.status()).isEqualTo(429);
    assertThat(refused.body()).contains("rateLimitExceeded");
    assertThat(stillRefused.status()).isEqualTo(429);
    assertThat(admitted.status()).isEqualTo(200);
    assertThat(server.peek(BUCKET, "a")).hasValueSatisfying(bytes ->
        assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo("4"));
  }

  @Test
  void aRefusedWrite_changesNothingAndDoesNotCount() throws IOException {
    server.faults().limitWritesPerObject(Duration.ofSeconds(1), clock);
    upload("a", "1");
    long generation = server.generation(BUCKET, "a").orElseThrow();
    clock.advance(Duration.ofMillis(500));

    assertThat(upload("a", "2").status()).isEqualTo(429);
    assertThat(server.generation(BUCKET, "a")).hasValue(generation);
    clock.advance(Duration.ofMillis(500));
    assertThat(upload("a", "3").status()).isEqualTo(200);
  }

  @Test
  void aWriteRefusedForItsPrecondition_doesNotCount() throws IOException {
    server.faults().limitWritesPerObject(Duration.ofSeconds(1), clock);
    upload("a", "1");
    clock.advance(Duration.ofSeconds(1));

    assertThat(upload("a", "2", "&ifGenerationMatch=0").status()).isEqualTo(412);
    assertThat(upload("a", "3").status()).isEqualTo(200);
    assertThat(upload("a", "4").status()).isEqualTo(429);
  }

  @Test
  void eachObjectHasItsOwnBudget_andReadsAreNeverLimited() throws IOException {
    server.faults().limitWritesPerObject(Duration.ofSeconds(1), clock);
    upload("a", "1");

    assertThat(upload("b", "1").status()).isEqualTo(200);
    assertThat(read("a").status()).isEqualTo(200);
    assertThat(read("a").status()).isEqualTo(200);
    assertThat(upload("a", "2").status()).isEqualTo(429);
  }

  @Test
  void theLimitIsOffByDefault_andClearRemovesIt() throws IOException {
    assertThat(upload("a", "1").status()).isEqualTo(200);
    assertThat(upload("a", "2").status()).isEqualTo(200);

    server.faults().limitWritesPerObject(Duration.ofSeconds(1), clock);
    assertThat(upload("a", "3").status()).isEqualTo(200);
    assertThat(upload("a", "4").status()).isEqualTo(429);
    server.faults().clear();
    assertThat(upload("a", "5").status()).isEqualTo(200);
  }

  @Test
  void aNonPositiveInterval_isRefused() {
    assertThatThrownBy(() -> server.faults().limitWritesPerObject(Duration.ZERO, clock))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot limit writes to one per PT0S: the interval is positive");
  }

  private record Answer(int status, String body) {}

  private Answer upload(String object, String content) throws IOException {
    return upload(object, content, "");
  }

  private Answer upload(String object, String content, String preconditions) throws IOException {
    HttpURLConnection connection =
        open("/upload/storage/v1/b/" + BUCKET + "/o?uploadType=media&name=" + object + preconditions);
    connection.setRequestMethod("POST");
    connection.setDoOutput(true);
    connection.setRequestProperty("Content-Type", "application/octet-stream");
    try (OutputStream out = connection.getOutputStream()) {
      out.write(content.getBytes(StandardCharsets.UTF_8));
    }
    return answer(connection);
  }

  private Answer read(String object) throws IOException {
    HttpURLConnection connection = open("/storage/v1/b/" + BUCKET + "/o/" + object);
    connection.setRequestMethod("GET");
    return answer(connection);
  }

  private HttpURLConnection open(String pathAndQuery) throws IOException {
    HttpURLConnection connection =
        (HttpURLConnection) URI.create(server.endpoint() + pathAndQuery).toURL().openConnection();
    connection.setConnectTimeout(10_000);
    connection.setReadTimeout(10_000);
    return connection;
  }

  private static Answer answer(HttpURLConnection connection) throws IOException {
    int status = connection.getResponseCode();
    try (InputStream in = status >= 400 ? connection.getErrorStream() : connection.getInputStream()) {
      String body = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return new Answer(status, body);
    } finally {
      connection.disconnect();
    }
  }
}
