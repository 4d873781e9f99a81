package dev.tierlock.datastore.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.api.gax.rpc.DeadlineExceededException;
import com.google.api.gax.rpc.StatusCode;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import dev.tierlock.TierlockException;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.OutcomeUnknownException;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.testkit.gcs.GcsFakeBucket;
import dev.tierlock.testkit.gcs.GcsFakeServer;
import dev.tierlock.testkit.gcs.GcsFakeServerExtension;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * No failure of the GCS client leaves the SPI untranslated: a call against a server that stalls,
 * with a short call timeout; a call interrupted while the client backs off between attempts (the
 * client then fails with a bare {@code NullPointerException}); and what the client may let through
 * unwrapped (cancellation, completion, a gax deadline). The server stalls for real: every request
 * waits on a latch the test releases.
 */
@ExtendWith(GcsFakeServerExtension.class)
class GcsCallTimeoutTest {

  private static final ObjectKey KEY = ObjectKey.of("entries/x.json");
  private static final Duration SHORT = Duration.ofMillis(300);

  private final GcsFakeServer server;
  private final CountDownLatch release = new CountDownLatch(1);

  GcsCallTimeoutTest(GcsFakeServer server) {
    this.server = server;
  }

  @AfterEach
  void clear() {
    release.countDown();
    server.faults().clear();
    Thread.interrupted();
  }

  private GcsDatastore store(GcsFakeBucket bucket, Duration callTimeout) {
    server.plant(bucket.name(), KEY.value(), "x".getBytes(StandardCharsets.UTF_8));
    return GcsDatastore.of(TestStorage.retrying(server), bucket.name(), "", callTimeout);
  }

  private void stallEveryRequest() {
    server.faults().latency(Duration.ofMinutes(1), d -> release.await());
  }

  @Test
  void everyCall_againstAServerThatStalls_endsInAnSpiException(GcsFakeBucket bucket) throws IOException {
    GcsDatastore store = store(bucket, SHORT);
    ObjectStream open = store.openStream(KEY).orElseThrow();
    stallEveryRequest();
    String timedOut = "no answer within the call timeout";

    assertThatThrownBy(() -> store.read(KEY, ReadCondition.always(), 100))
        .isInstanceOf(DatastoreUnavailableException.class).hasMessageContaining(timedOut);
    assertThatThrownBy(() -> store.stat(KEY))
        .isInstanceOf(DatastoreUnavailableException.class).hasMessageContaining(timedOut);
    assertThatThrownBy(() -> store.list(""))
        .isInstanceOf(DatastoreUnavailableException.class).hasMessageContaining(timedOut);
    assertThatThrownBy(() -> store.write(KEY, ObjectBody.of(new byte[] {1}), WriteCondition.none(), ObjectMetadata.EMPTY))
        .isInstanceOf(OutcomeUnknownException.class).hasMessageContaining(timedOut);
    assertThatThrownBy(() -> store.delete(KEY, WriteCondition.none()))
        .isInstanceOf(OutcomeUnknownException.class).hasMessageContaining(timedOut);
    assertThatThrownBy(() -> open.stream().readAllBytes())
        .isInstanceOf(IOException.class).hasMessageStartingWith("Cannot read object entries/x.json");
    assertThat(Thread.interrupted()).as("a timeout is no interrupt").isFalse();
  }

  @Test
  void callsInterruptedWhileTheClientBacksOff_areUnavailable_andKeepTheInterrupt(GcsFakeBucket bucket) {
    GcsDatastore store = store(bucket, Duration.ofSeconds(20));

    for (String call : new String[] {"stat", "list", "read"}) {
      server.faults().failNext(r -> true, 1, 503);
      Thread.currentThread().interrupt();

      assertThatThrownBy(() -> {
        switch (call) {
          case "stat" -> store.stat(KEY);
          case "list" -> store.list("");
          default -> store.read(KEY, ReadCondition.always(), 100);
        }
      }).as(call).isInstanceOf(DatastoreUnavailableException.class).hasMessageContaining("the call was interrupted")
          .satisfies(e -> assertThat(((TierlockException) e).code()).isEqualTo(DatastoreUnavailableException.CODE));
      assertThat(Thread.interrupted()).as(call + ": the interrupt is kept").isTrue();
      server.faults().clear();
    }
  }

  @Test
  void whatTheClientLetsThroughUnwrapped_isAStorageExceptionTheTranslatorReads() {
    StatusCode deadline = new StatusCode() {
      @Override
      public StatusCode.Code getCode() {
        return StatusCode.Code.DEADLINE_EXCEEDED;
      }

      @Override
      public Object getTransportCode() {
        return 504;
      }
    };
    record Case(RuntimeException thrown, String reason) {}
    for (Case c : new Case[] {
        new Case(new CancellationException("lease"), "the call was cancelled (its deadline passed or it was interrupted)"),
        new Case(new CompletionException(new CancellationException("lease")), "the call was cancelled"),
        new Case(new DeadlineExceededException("slow", null, deadline, true), "no answer within the call timeout"),
        new Case(new CompletionException(new StorageException(503, "busy")), "GCS is unavailable (HTTP 503")}) {
      Storage failing = (Storage) Proxy.newProxyInstance(Storage.class.getClassLoader(), new Class<?>[] {Storage.class},
          (proxy, method, args) -> {
            throw c.thrown();
          });
      Storage guarded = GcsCallGuard.guard(failing);

      assertThatThrownBy(() -> guarded.get("b", "k")).as("%s", c.thrown()).isInstanceOf(StorageException.class)
          .satisfies(e -> assertThat(GcsErrorTranslator.failure((StorageException) e, GcsErrorTranslator.Call.READ,
              "read object k in gs://b")).isInstanceOf(DatastoreUnavailableException.class)
              .hasMessageStartingWith("Cannot read object k in gs://b: " + c.reason()));
      assertThat(Thread.interrupted()).isFalse();
    }
    Storage interrupted = GcsCallGuard.guard((Storage) Proxy.newProxyInstance(Storage.class.getClassLoader(),
        new Class<?>[] {Storage.class}, (proxy, method, args) -> {
          throw new StorageException(0, "stop", new InterruptedException("stop"));
        }));
    assertThatThrownBy(() -> interrupted.delete("b", "k")).isInstanceOf(StorageException.class)
        .satisfies(e -> assertThat(GcsErrorTranslator.failure((StorageException) e, GcsErrorTranslator.Call.CHANGE,
            "delete object k in gs://b")).isInstanceOf(OutcomeUnknownException.class)
            .hasMessageStartingWith("Cannot delete object k in gs://b: the call was interrupted"));
    assertThat(Thread.interrupted()).as("the interrupt is restored").isTrue();
  }
}
