package dev.tierlock.archive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.ExtensionName;
import dev.tierlock.Namespace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two checkouts' processes caching archives at once create the same cache directories: neither fails. */
class ArchiveCacheRaceTest {

  @TempDir Path dir;

  @Test
  void newTemp_fromManyThreadsAtOnce_intoDirectoriesNoneHasYet_neverFails() throws Exception {
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      for (int round = 0; round < 40; round++) {
        ArchiveCache cache = new ArchiveCache(dir.resolve("cache-" + round), ArchiveLimits.DEFAULTS);
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Future<Path>> temps = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          String digest = String.format("%064x", t);
          ExtensionArchiveKey key = ExtensionArchiveKey.of(ExtensionName.of("@acme/tool"), digest);
          temps.add(pool.submit(() -> {
            start.await();
            return cache.newTemp(key, cache.path(Namespace.NONE, key));
          }));
        }
        for (Future<Path> temp : temps) {
          assertThat(Files.isRegularFile(temp.get())).isTrue();
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
