package dev.tierlock.datastore.s3;

import static dev.tierlock.datastore.s3.S3DatastoreTest.body;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.Lockfile;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Racing writers against the real S3 server: whatever the interleaving, exactly one conditional
 * writer wins each round, and the object holds the winner's bytes.
 */
@ExtendWith(S3ServerExtension.class)
class S3DatastoreRaceTest {

  private static final int THREADS = 8;
  private static final int ROUNDS = 20;

  private static ExecutorService pool;

  @BeforeAll
  static void startPool() {
    pool = Executors.newFixedThreadPool(THREADS);
  }

  @AfterAll
  static void stopPool() throws InterruptedException {
    pool.shutdownNow();
    assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void createOnly_eightWritersOnOneKey_exactlyOneWinsEveryRound(S3TestBucket bucket) throws Exception {
    S3Datastore datastore = bucket.datastore("race");
    for (int round = 0; round < ROUNDS; round++) {
      ObjectKey key = ObjectKey.of("locks/create-" + round);

      List<WriteResult> results = race(writer -> () -> datastore.write(
          key, body("writer-" + writer), WriteCondition.mustNotExist(), ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "w" + writer)));

      assertExactlyOneWinner(datastore, key, results);
    }
  }

  @Test
  void compareAndSwap_eightWritersOnOneVersion_exactlyOneWinsEveryRound(S3TestBucket bucket) throws Exception {
    S3Datastore datastore = bucket.datastore("race");
    for (int round = 0; round < ROUNDS; round++) {
      ObjectKey key = ObjectKey.of("config/cas-" + round);
      WriteResult.Written base =
          (WriteResult.Written) datastore.write(key, body("base"), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);

      List<WriteResult> results = race(writer -> () -> datastore.write(
          key, body("writer-" + writer), WriteCondition.mustMatch(base.version()), ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "w" + writer)));

      assertExactlyOneWinner(datastore, key, results);
    }
  }

  @Test
  void conditionalDeleteAgainstCompareAndSwap_onOneVersion_exactlyOneWinsEveryRound(S3TestBucket bucket) throws Exception {
    S3Datastore datastore = bucket.datastore("race");
    for (int round = 0; round < ROUNDS; round++) {
      ObjectKey key = ObjectKey.of("locks/release-" + round);
      WriteResult.Written base =
          (WriteResult.Written) datastore.write(key, body("held"), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);

      List<Object> results = race(actor -> actor % 2 == 0
          ? () -> datastore.delete(key, WriteCondition.mustMatch(base.version()))
          : () -> datastore.write(key, body("taker-" + actor), WriteCondition.mustMatch(base.version()), ObjectMetadata.EMPTY));

      long deleted = results.stream().filter(DeleteResult.DELETED::equals).count();
      long written = results.stream().filter(WriteResult.Written.class::isInstance).count();
      assertThat(deleted + written).as("round %d: %s", round, results).isEqualTo(1);
      assertThat(results).as("round %d", round).allMatch(r -> r == DeleteResult.DELETED || r instanceof WriteResult.Written
          || r == DeleteResult.PRECONDITION_FAILED || r == DeleteResult.ABSENT || r == WriteResult.PreconditionFailed.INSTANCE);
      assertThat(datastore.stat(key).isPresent()).as("round %d", round).isEqualTo(written == 1);
    }
  }

  private static <T> List<T> race(IntFunction<Callable<T>> actors) throws Exception {
    CountDownLatch ready = new CountDownLatch(THREADS);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<T>> futures = new ArrayList<>();
    for (int i = 0; i < THREADS; i++) {
      Callable<T> actor = actors.apply(i);
      futures.add(pool.submit(() -> {
        ready.countDown();
        assertThat(go.await(30, TimeUnit.SECONDS)).isTrue();
        return actor.call();
      }));
    }
    assertThat(ready.await(30, TimeUnit.SECONDS)).isTrue();
    go.countDown();
    List<T> results = new ArrayList<>();
    for (Future<T> future : futures) {
      results.add(future.get(60, TimeUnit.SECONDS));
    }
    return results;
  }

  private static void assertExactlyOneWinner(S3Datastore datastore, ObjectKey key, List<WriteResult> results) {
    List<Integer> winners = new ArrayList<>();
    for (int i = 0; i < results.size(); i++) {
      if (results.get(i) instanceof WriteResult.Written) {
        winners.add(i);
      } else {
        assertThat(results.get(i)).isEqualTo(WriteResult.PreconditionFailed.INSTANCE);
      }
    }
    assertThat(winners).as("winners at %s", key).hasSize(1);
    int winner = winners.get(0);
    ReadResult.Found stored = (ReadResult.Found) datastore.read(key, ReadCondition.always(), Lockfile.MAX_BYTES);
    assertThat(new String(stored.bytes(), StandardCharsets.UTF_8)).isEqualTo("writer-" + winner);
    assertThat(stored.object().version()).isEqualTo(((WriteResult.Written) results.get(winner)).version());
    assertThat(stored.object().metadata()).isEqualTo(ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "w" + winner));
  }
}
