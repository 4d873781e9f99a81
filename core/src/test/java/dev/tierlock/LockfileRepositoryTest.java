package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LockfileRepositoryTest {

  private static final ExtensionName A = ExtensionName.of("@s/a");
  private static final ExtensionName B = ExtensionName.of("@s/b");

  @TempDir Path dir;

  private final List<Duration> sleeps = new CopyOnWriteArrayList<>();
  private final Sleeper recordingSleeper = sleeps::add;

  private static LockfileEntry entry(String version) {
    return LockfileEntry.builder(version, "2026-01-01T00:00:00.000Z").build();
  }

  private Path lockfile() {
    return dir.resolve("cache/config/upstream_extensions.json");
  }

  private LockfileRepository open() {
    return LockfileRepository.open(lockfile(), dir.resolve("state/lockfile.lock"), recordingSleeper);
  }

  @Test
  void open_missingFile_isEmptyAndCreatesNothing() {
    LockfileRepository repo = open();

    assertThat(repo.snapshot()).isEqualTo(Lockfile.EMPTY);
    assertThat(lockfile()).doesNotExist();
  }

  @Test
  void writeEntry_replacesFileAtomicallyAndUpdatesSnapshot() throws IOException {
    LockfileRepository repo = open();

    Lockfile written = repo.writeEntry(A, entry("1"));
    repo.writeEntry(B, entry("1"));
    repo.writeEntry(A, entry("2"));

    assertThat(written).isEqualTo(Lockfile.EMPTY.with(A, entry("1")));
    assertThat(repo.snapshot().names()).containsExactly(A, B);
    assertThat(repo.entry(A)).contains(entry("2"));
    assertThat(Files.readAllBytes(lockfile())).isEqualTo(LockfileCodec.encode(repo.snapshot()));
    try (Stream<Path> files = Files.list(lockfile().getParent())) {
      assertThat(files).containsExactly(lockfile());
    }
    assertThat(sleeps).isEmpty();
  }

  @Test
  void readers_neverSeeATornFile() throws Exception {
    LockfileRepository repo = open();
    repo.writeEntry(A, entry("0"));
    AtomicBoolean done = new AtomicBoolean();
    List<String> torn = new CopyOnWriteArrayList<>();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<?> reader = pool.submit(() -> {
        while (!done.get()) {
          try {
            LockfileCodec.decode(Files.readAllBytes(lockfile()), "reader");
          } catch (IOException | LockfileFormatException e) {
            torn.add(e.toString());
          }
        }
      });
      for (int i = 1; i <= 200; i++) {
        repo.writeEntry(ExtensionName.of("@s/e" + i), entry(Integer.toString(i)));
      }
      done.set(true);
      reader.get(30, TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }

    assertThat(torn).isEmpty();
    assertThat(repo.refresh().size()).isEqualTo(201);
  }

  @Test
  void concurrentWriters_inOneJvm_loseNothing() throws Exception {
    int writers = 6;
    int each = 15;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> futures = new ArrayList<>();
    try {
      for (int w = 0; w < writers; w++) {
        int id = w;
        LockfileRepository repo = open();
        futures.add(pool.submit(() -> {
          start.await();
          for (int i = 0; i < each; i++) {
            repo.writeEntry(ExtensionName.of("@w" + id + "/e" + i), entry("1"));
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> f : futures) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(open().snapshot().size()).isEqualTo(writers * each);
  }

  @Test
  void write_whileLockHeldElsewhere_failsBusyAfterTenAttemptsAndChangesNothing() throws IOException {
    LockfileRepository repo = open();
    repo.writeEntry(A, entry("1"));
    byte[] before = Files.readAllBytes(lockfile());

    try (FileChannel channel = FileChannel.open(repo.lockPath(), StandardOpenOption.WRITE);
        FileLock held = channel.lock()) {
      assertThatThrownBy(() -> repo.writeEntry(B, entry("1")))
          .isInstanceOf(LockfileBusyException.class)
          .hasMessage("Cannot lock lockfile " + lockfile().toAbsolutePath() + ": its lock " + repo.lockPath()
              + " stayed held by another writer through 10 attempts; another operation may be in progress, retry shortly")
          .extracting(e -> ((LockfileBusyException) e).code()).isEqualTo("lockfile_busy");
    }

    assertThat(sleeps).hasSize(9).allMatch(d -> d.equals(Duration.ofMillis(100)));
    assertThat(Files.readAllBytes(lockfile())).isEqualTo(before);
    assertThat(repo.snapshot()).isEqualTo(Lockfile.EMPTY.with(A, entry("1")));
    assertThat(repo.writeEntry(B, entry("1")).names()).containsExactly(A, B);
  }

  @Test
  void snapshot_isStableUntilRefresh() {
    LockfileRepository first = open();
    LockfileRepository second = open();

    second.writeEntry(A, entry("1"));

    assertThat(first.snapshot()).isEqualTo(Lockfile.EMPTY);
    assertThat(first.entry(A)).isEmpty();
    assertThat(first.refresh()).isEqualTo(Lockfile.EMPTY.with(A, entry("1")));
    assertThat(first.entry(A)).contains(entry("1"));
  }

  @Test
  void write_rereadsUnderTheLock_soAStaleSnapshotLosesNothing() {
    LockfileRepository first = open();
    LockfileRepository second = open();
    second.writeEntry(A, entry("1"));

    first.writeEntry(B, entry("1"));

    assertThat(first.snapshot().names()).containsExactly(A, B);
  }

  @Test
  void corruptFile_isAnErrorAndNeverReplacedByEmpty() throws IOException {
    LockfileRepository repo = open();
    repo.writeEntry(A, entry("1"));
    byte[] corrupt = "{\"@s/a\": {\"version\": \"1\",".getBytes(StandardCharsets.UTF_8);
    Files.write(lockfile(), corrupt);

    assertThatThrownBy(() -> repo.writeEntry(B, entry("1")))
        .isInstanceOf(LockfileFormatException.class)
        .hasMessageStartingWith("Cannot read lockfile " + lockfile().toAbsolutePath() + ": ")
        .hasMessageContaining("(at line 1,")
        .extracting(e -> ((LockfileFormatException) e).code()).isEqualTo("lockfile_format");
    assertThatThrownBy(repo::refresh).isInstanceOf(LockfileFormatException.class);
    assertThatThrownBy(() -> repo.removeEntry(A)).isInstanceOf(LockfileFormatException.class);
    assertThatThrownBy(this::open)
        .isInstanceOf(LockfileFormatException.class)
        .hasMessageContaining("Cannot read lockfile");

    assertThat(Files.readAllBytes(lockfile())).isEqualTo(corrupt);
    assertThat(repo.snapshot()).isEqualTo(Lockfile.EMPTY.with(A, entry("1")));
  }

  @Test
  void removeEntry_ofMissingName_stillWritesTheFile() throws IOException {
    LockfileRepository repo = open();

    assertThat(repo.removeEntry(A)).isEqualTo(Lockfile.EMPTY);
    assertThat(Files.readString(lockfile())).isEqualTo("{}\n");
  }

  @Test
  void apply_restoresEntriesVerbatimOnTheCurrentFile() {
    LockfileRepository repo = open();
    open().writeEntry(A, entry("1"));
    LockfileEntry withUnknown = LockfileEntry.builder("2", "t").unknownField("later", "[1,2]").build();

    Lockfile out = repo.apply(LockfileDelta.of(Map.of(B, withUnknown), List.of(A)));

    assertThat(out).isEqualTo(Lockfile.EMPTY.with(B, withUnknown));
    assertThat(open().entry(B).orElseThrow().unknownFields()).containsEntry("later", "[1,2]");
  }

  @Test
  void replaceAll_replacesWithoutMerging() {
    LockfileRepository repo = open();
    open().writeEntry(A, entry("1"));

    repo.replaceAll(Lockfile.EMPTY.with(B, entry("1")));

    assertThat(open().snapshot()).isEqualTo(Lockfile.EMPTY.with(B, entry("1")));
  }

  @Test
  void lockOrder_outerLockUnderTheLockfileLock_isRejected() {
    LockfileRepository repo = open();

    assertThatThrownBy(() -> repo.update(l -> {
      try (LockOrder.Ticket t = LockOrder.enter(LockLevel.PULLED_EXTENSIONS, "pulled-extensions lock")) {
        return l;
      }
    }))
        .isInstanceOf(LockOrderException.class)
        .hasMessageStartingWith("Cannot acquire pulled-extensions lock: the PULLED_EXTENSIONS lock is taken before the LOCKFILE lock")
        .extracting(e -> ((LockOrderException) e).code()).isEqualTo("lock_order");
    assertThat(LockOrder.innermost()).isNull();
    assertThat(repo.writeEntry(A, entry("1")).size()).isEqualTo(1);
  }
}
