package dev.tierlock.datastore.gcs;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import dev.tierlock.testkit.gcs.GcsFakeBucket;
import dev.tierlock.testkit.gcs.GcsFakeServer;
import dev.tierlock.testkit.gcs.GcsFakeServerExtension;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Races of 8 threads on one object of the fake server, through the real client: of 8 writers with
 * the same precondition exactly one wins, in every one of 20 rounds.
 */
@ExtendWith(GcsFakeServerExtension.class)
class GcsFakeServerRaceTest {

  private static final int THREADS = 8;
  private static final int ROUNDS = 20;

  private final GcsFakeServer server;
  private final Storage storage;
  private final ExecutorService pool = Executors.newFixedThreadPool(THREADS);

  GcsFakeServerRaceTest(GcsFakeServer server) {
    this.server = server;
    this.storage = TestStorage.singleAttempt(server);
  }

  @AfterEach
  void stopPool() throws InterruptedException {
    pool.shutdownNow();
    assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void createOnlyRace_ofEightThreads_hasExactlyOneWinnerEveryRound(GcsFakeBucket bucket) throws Exception {
    for (int round = 0; round < ROUNDS; round++) {
      String name = "create-" + round;
      List<Integer> winners = race(writer -> () -> tryCreate(BlobInfo.newBuilder(bucket.name(), name).build(),
          payload(writer), Storage.BlobTargetOption.doesNotExist()));

      assertThat(winners).as("round %d", round).hasSize(1);
      assertThat(server.peek(bucket.name(), name)).hasValueSatisfying(b -> assertThat(b).isEqualTo(payload(winners.get(0))));
    }
  }

  @Test
  void compareAndSwapRace_ofEightThreads_hasExactlyOneWinnerEveryRound(GcsFakeBucket bucket) throws Exception {
    BlobInfo info = BlobInfo.newBuilder(bucket.name(), "cas").build();
    long generation = storage.create(info, payload(-1)).getGeneration();
    for (int round = 0; round < ROUNDS; round++) {
      long expected = generation;
      List<Integer> winners = race(writer -> () -> tryCreate(info, payload(writer),
          Storage.BlobTargetOption.generationMatch(expected)));

      assertThat(winners).as("round %d", round).hasSize(1);
      assertThat(server.peek(bucket.name(), "cas")).hasValueSatisfying(b -> assertThat(b).isEqualTo(payload(winners.get(0))));
      generation = server.generation(bucket.name(), "cas").getAsLong();
      assertThat(generation).isGreaterThan(expected);
    }
  }

  /** Starts 8 writers at one latch and returns the indices of those that won. */
  private List<Integer> race(IntFunction<Callable<Boolean>> writers) throws Exception {
    CountDownLatch ready = new CountDownLatch(THREADS);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Boolean>> results = new ArrayList<>();
    for (int i = 0; i < THREADS; i++) {
      Callable<Boolean> writer = writers.apply(i);
      results.add(pool.submit(() -> {
        ready.countDown();
        assertThat(start.await(10, TimeUnit.SECONDS)).isTrue();
        return writer.call();
      }));
    }
    assertThat(ready.await(10, TimeUnit.SECONDS)).isTrue();
    start.countDown();
    List<Integer> winners = new ArrayList<>();
    for (int i = 0; i < THREADS; i++) {
      if (results.get(i).get(30, TimeUnit.SECONDS)) {
        winners.add(i);
      }
    }
    return winners;
  }

  private boolean tryCreate(BlobInfo info, byte[] bytes, Storage.BlobTargetOption option) {
    try {
      storage.create(info, bytes, option);
      return true;
    } catch (StorageException e) {
      if (e.getCode() == 412) {
        return false;
      }
      throw e;
    }
  }

  private static byte[] payload(int writer) {
    return ("writer " + writer).getBytes(StandardCharsets.UTF_8);
  }
}
