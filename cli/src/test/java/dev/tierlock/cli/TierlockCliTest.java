package dev.tierlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.LockLease;
import dev.tierlock.Tierlock;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TierlockCliTest {

  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-29T10:00:00.000Z"), ZoneOffset.UTC);
  private static final String SHA = "a".repeat(64);

  @TempDir Path home;
  @TempDir Path checkout;

  private record Run(int code, String out, String err) {}

  private Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    String[] all = Stream.concat(Stream.of("--checkout", checkout.toString()), Stream.of(args)).toArray(String[]::new);
    // Global options may come before or after the subcommand; put them after to exercise inheritance.
    String[] reordered = Stream.concat(Stream.of(args), Stream.of("--checkout", checkout.toString())).toArray(String[]::new);
    int code = TierlockCli.run(args.length > 0 && args[0].equals("--help") ? all : reordered,
        Map.of(TierlockCli.HOME_VARIABLE, home.toString()), CLOCK, new PrintWriter(out, true), new PrintWriter(err, true));
    return new Run(code, out.toString(), err.toString());
  }

  private Path sharedLockfile() {
    return home.resolve("datastore/config/upstream_extensions.json");
  }

  @Test
  void put_thenList_showsTheEntryInTheSharedLockfile() throws IOException {
    Run put = run("entries", "put", "@acme/hello", "1.0.0", "--checksum", SHA);
    Run list = run("entries", "list");

    assertThat(put.code()).isZero();
    assertThat(put.out()).contains("put @acme/hello 1.0.0 (published)");
    assertThat(list.code()).isZero();
    assertThat(list.out()).contains("@acme/hello\t1.0.0\t2026-11-29T10:00:00.000Z\tsha256:aaaaaaaaaaaa");
    assertThat(Files.readString(sharedLockfile())).isEqualTo("""
        {
          "@acme/hello": {
            "version": "1.0.0",
            "pulledAt": "2026-11-29T10:00:00.000Z",
            "checksum": "%s"
          }
        }
        """.formatted(SHA));
  }

  @Test
  void put_existingEntry_keepsItsPosition_andWritesAFreshEntryFromTheArguments() throws IOException {
    run("entries", "put", "@acme/one", "1", "--channel", "beta");
    run("entries", "put", "@acme/two", "1");
    Run update = run("entries", "put", "@acme/one", "2");

    assertThat(update.code()).isZero();
    String text = Files.readString(sharedLockfile());
    assertThat(text.indexOf("@acme/one")).isLessThan(text.indexOf("@acme/two"));
    assertThat(text).contains("\"version\": \"2\"").as("a new version keeps only what its arguments say")
        .doesNotContain("\"channel\"");
  }

  @Test
  void listJson_printsTheLockfileExactlyAsStored() throws IOException {
    run("entries", "put", "@acme/hello", "1.0.0");

    Run list = run("entries", "list", "--json");

    assertThat(list.code()).isZero();
    assertThat(list.out()).isEqualTo(Files.readString(sharedLockfile()));
  }

  @Test
  void list_emptyDatastore_saysSo() {
    Run list = run("entries", "list");

    assertThat(list.code()).isZero();
    assertThat(list.out()).isEqualTo("(no entries)\n");
  }

  @Test
  void remove_existingEntry_removesOnlyIt() throws IOException {
    run("entries", "put", "@acme/one", "1");
    run("entries", "put", "@acme/two", "1");

    Run remove = run("entries", "rm", "@acme/one");

    assertThat(remove.code()).isZero();
    assertThat(remove.out()).contains("removed @acme/one (published)");
    assertThat(Files.readString(sharedLockfile())).doesNotContain("@acme/one").contains("@acme/two");
  }

  @Test
  void remove_missingEntry_exitsNotFoundAndChangesNothing() throws IOException {
    run("entries", "put", "@acme/one", "1");
    byte[] before = Files.readAllBytes(sharedLockfile());

    Run remove = run("entries", "remove", "@acme/absent");

    assertThat(remove.code()).isEqualTo(ExitCodes.NOT_FOUND);
    assertThat(remove.err()).contains("Cannot remove entry @acme/absent: the shared lockfile has no such entry [not_found]");
    assertThat(Files.readAllBytes(sharedLockfile())).isEqualTo(before);
  }

  @Test
  void put_invalidName_exitsUsageAndWritesNothing() {
    Run put = run("entries", "put", "Acme/Hello", "1");

    assertThat(put.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(put.err()).contains("Cannot use extension name \"Acme/Hello\"").contains("[invalid_name]");
    assertThat(sharedLockfile()).doesNotExist();
  }

  @Test
  void put_badChecksum_exitsUsageAndWritesNothing() {
    Run put = run("entries", "put", "@acme/hello", "1", "--checksum", "XYZ");

    assertThat(put.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(put.err()).contains("checksum");
    assertThat(sharedLockfile()).doesNotExist();
  }

  @Test
  void put_missingVersion_exitsUsage() {
    Run put = run("entries", "put", "@acme/hello");

    assertThat(put.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(put.err()).contains("Missing required parameter: 'VERSION'");
  }

  @Test
  void list_corruptSharedLockfile_failsNamingFileAndPosition_andKeepsTheFile() throws IOException {
    Files.createDirectories(sharedLockfile().getParent());
    Files.writeString(sharedLockfile(), "{\n  \"@acme/hello\": {\n", StandardCharsets.UTF_8);

    Run list = run("entries", "list");
    Run put = run("entries", "put", "@acme/other", "1");

    assertThat(list.code()).isEqualTo(ExitCodes.FAILURE);
    assertThat(list.err()).contains("upstream_extensions.json").contains("[lockfile_format]");
    assertThat(put.code()).isNotZero();
    assertThat(Files.readString(sharedLockfile())).isEqualTo("{\n  \"@acme/hello\": {\n");
  }

  @Test
  void lockStatus_free_saysFree() {
    Run status = run("lock", "status");

    assertThat(status.code()).isZero();
    assertThat(status.out()).startsWith("free: ").contains(".datastore.lock");
  }

  @Test
  void lockStatus_held_showsHolderAndNonce_andReleaseWithThatNonceFreesIt() {
    try (Tierlock tierlock = Tierlock.builder().datastore(home.resolve("datastore").toUri()).checkout(checkout).clock(CLOCK).build()) {
      LockLease lease = tierlock.globalLock().acquire();
      String nonce = lease.info().nonce();

      Run status = run("lock", "status");
      Run wrong = run("lock", "release", "--nonce", "not-the-nonce");
      Run release = run("lock", "release", "--nonce", nonce);
      Run after = run("lock", "status");

      assertThat(status.code()).isZero();
      assertThat(status.out()).startsWith("held: ").contains("nonce:      " + nonce);
      assertThat(wrong.code()).isEqualTo(ExitCodes.NOT_FOUND);
      assertThat(wrong.err()).contains("Cannot release lock \".datastore.lock\"").contains("no holder with nonce not-the-nonce (it may have been released or taken over already) [not_found]");
      assertThat(release.code()).isZero();
      assertThat(release.out()).contains("released: ");
      assertThat(after.out()).startsWith("free: ");
      lease.release();
    }
  }

  @Test
  void lockRelease_withoutNonce_exitsUsage() {
    Run release = run("lock", "release");

    assertThat(release.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(release.err()).contains("Missing required option: '--nonce=NONCE'");
  }

  @Test
  void datastoreArgument_plainDirectory_isAFilesystemDatastore() throws IOException {
    Path other = Files.createDirectories(checkout.resolve("shared"));

    Run put = run("entries", "put", "@acme/hello", "1", "--datastore", other.toString());

    assertThat(put.code()).isZero();
    assertThat(other.resolve("config/upstream_extensions.json")).exists();
    assertThat(sharedLockfile()).doesNotExist();
  }

  @Test
  void datastoreArgument_unknownScheme_exitsWithTheKnownSchemes() {
    Run put = run("entries", "list", "--datastore", "ftp://example/x");

    assertThat(put.code()).isNotZero();
    assertThat(put.err()).contains("ftp").contains("file");
  }

  @Test
  void help_listsCommandsAndExitCodes() {
    Run help = run("--help");

    assertThat(help.code()).isZero();
    assertThat(help.out()).contains("entries").contains("lock").contains("75");
  }
}
