package dev.tierlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tierlock gc} on the embedded filesystem datastore: a dry run lists, {@code --apply}
 * deletes, only an archive that nothing pins and whose file (the store's own clock) is older than
 * the window, and {@code --json} says the same as one object.
 */
class GcCommandTest {

  private static final String OLD = "b".repeat(64);
  private static final String PINNED = "c".repeat(64);

  @TempDir Path home;
  @TempDir Path checkout;

  private record Run(int code, String out, String err) {}

  private Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    String[] all = Stream.concat(Stream.of(args), Stream.of("--checkout", checkout.toString())).toArray(String[]::new);
    int code = TierlockCli.run(all, Map.of(TierlockCli.HOME_VARIABLE, home.toString()), Clock.systemUTC(),
        new PrintWriter(out, true), new PrintWriter(err, true));
    return new Run(code, out.toString(), err.toString());
  }

  /** Puts an archive file into the datastore directory, dated {@code age} before now by the file system. */
  private Path archive(String sha, Duration age) throws IOException {
    Path file = home.resolve("datastore/config/pulled-archives/@acme/tool/" + sha + ".tar.gz");
    Files.createDirectories(file.getParent());
    Files.write(file, sha.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    FileTime now = Files.getLastModifiedTime(file);
    Files.setLastModifiedTime(file, FileTime.from(now.toInstant().minus(age)));
    return file;
  }

  @Test
  void gc_listsByDefault_deletesWithApply_andKeepsWhatIsPinnedOrRecent() throws IOException {
    assertThat(run("init").code()).isZero();
    assertThat(run("entries", "put", "@acme/tool", "2.0.0", "--checksum", PINNED).code()).isZero();
    Path old = archive(OLD, Duration.ofDays(30));
    Path pinned = archive(PINNED, Duration.ofDays(30));
    Path recent = archive("d".repeat(64), Duration.ofDays(1));

    Run dry = run("gc");

    assertThat(dry.code()).as(dry.err()).isZero();
    assertThat(dry.out()).contains("collectable config/pulled-archives/@acme/tool/" + OLD + ".tar.gz (age 30d)")
        .contains("pinned config/pulled-archives/@acme/tool/" + PINNED)
        .contains("recent config/pulled-archives/@acme/tool/" + "d".repeat(64))
        .contains("3 archive(s); 1 collectable").contains("dry run: --apply deletes");
    assertThat(old).exists();

    Run json = run("gc", "--json", "--retention", "P40D");
    assertThat(json.code()).isZero();
    Map<?, ?> report = (Map<?, ?>) Json.parse(json.out());
    assertThat(report.get("schema")).isEqualTo(new Json.Number("1"));
    assertThat(report.get("applied")).isEqualTo(false);
    assertThat(report.get("retention")).isEqualTo("PT960H");
    assertThat(report.get("storeTime")).isInstanceOf(String.class);
    Map<?, ?> judged = ((List<?>) report.get("archives")).stream().map(a -> (Map<?, ?>) a)
        .filter(a -> a.get("archive").equals("config/pulled-archives/@acme/tool/" + OLD + ".tar.gz")).findFirst()
        .orElseThrow();
    assertThat(judged.get("verdict")).isEqualTo("recent");
    assertThat(judged.get("ageSeconds")).isEqualTo(new Json.Number(Long.toString(Duration.ofDays(30).toSeconds())));

    Run applied = run("gc", "--apply");

    assertThat(applied.code()).as(applied.err()).isZero();
    assertThat(applied.out()).contains("deleted config/pulled-archives/@acme/tool/" + OLD).contains("1 deleted");
    assertThat(old).doesNotExist();
    assertThat(pinned).exists();
    assertThat(recent).exists();
  }

  @Test
  void gc_withABadRetention_isAUsageError() {
    assertThat(run("init").code()).isZero();

    Run bad = run("gc", "--retention", "soon");

    assertThat(bad.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(bad.err()).contains("--retention");
  }
}
