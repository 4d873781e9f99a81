package dev.tierlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.Environment;
import dev.tierlock.HostProcesses;
import dev.tierlock.LockIdentity;
import dev.tierlock.DistributedLock;
import dev.tierlock.Tierlock;
import dev.tierlock.datastore.fs.FileSystemDatastore;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
  void listRaw_printsTheLockfileExactlyAsStored() throws IOException {
    run("entries", "put", "@acme/hello", "1.0.0");

    Run list = run("entries", "list", "--raw");

    assertThat(list.code()).isZero();
    assertThat(list.out()).isEqualTo(Files.readString(sharedLockfile()));
  }

  @Test
  void list_emptyDatastore_saysSo() {
    assertThat(run("init").code()).isZero();

    Run list = run("entries", "list");

    assertThat(list.code()).isZero();
    assertThat(list.out()).isEqualTo("(no entries)\n");
  }

  @Test
  void list_beforeAnyWriteToTheEmbeddedDefault_isAClearError_andCreatesNothing() {
    Run list = run("entries", "list");

    assertThat(list.code()).isEqualTo(2);
    assertThat(list.err()).isEqualTo("tierlock: Cannot read the embedded datastore at " + home.resolve("datastore")
        + ": there is none yet (TIERLOCK_HOME is the directory it lives in); the first 'tierlock entries put' creates"
        + " it there, or run 'tierlock init' [datastore_missing]\n");
    assertThat(home.resolve("datastore")).doesNotExist();
  }

  @Test
  void put_onTheEmbeddedDefault_createsItThere_andSaysSo() {
    String sum = "ab".repeat(32);
    Run put = run("entries", "put", "@acme/hello", "1", "--checksum", sum);

    assertThat(put.code()).isZero();
    assertThat(put.err()).isEqualTo("tierlock: creating the embedded datastore at " + home.resolve("datastore") + "\n");
    assertThat(sharedLockfile()).exists();
    assertThat(run("entries", "put", "@acme/other", "1", "--checksum", sum).err()).as("said once").isEmpty();
  }

  @Test
  void everyCommand_onAMistypedDatastorePath_exitsTwo_andCreatesNothing() {
    Path typo = checkout.resolve("sahred");
    for (String[] command : List.of(new String[] {"entries", "list"}, new String[] {"entries", "put", "@acme/x", "1"},
        new String[] {"entries", "rm", "@acme/x"}, new String[] {"lock", "status"}, new String[] {"pending", "show"})) {
      String[] args = Stream.concat(Stream.of(command), Stream.of("--datastore", typo.toString())).toArray(String[]::new);

      Run run = run(args);

      assertThat(run.code()).as(String.join(" ", command)).isEqualTo(2);
      assertThat(run.err()).isEqualTo("tierlock: Cannot open datastore " + typo + ": no such directory; check the path,"
          + " or create a datastore there with 'tierlock init --datastore " + typo + "' [datastore_missing]\n");
      assertThat(typo).doesNotExist();
    }
  }

  @Test
  void init_createsAMissingDatastore_checksIt_andIsIdempotent() {
    Path shared = checkout.resolve("shared");

    Run init = run("init", "--datastore", shared.toString());
    Run again = run("init", "--datastore", shared.toString());

    assertThat(init.code()).as(init.err()).isZero();
    assertThat(init.out()).isEqualTo("created " + shared + " (it honours the write preconditions)\n");
    assertThat(again.out()).startsWith("ready: ");
    assertThat(run("entries", "list", "--datastore", shared.toString()).out()).isEqualTo("(no entries)\n");
  }

  @Test
  void put_checksumsInAnyCase_orPrefixedAsListPrintsThem_areStoredLowercaseAndBare() throws IOException {
    Run put = run("entries", "put", "@acme/hello", "1", "--checksum", "sha256:" + "AB".repeat(32),
        "--files-checksum", "Cd".repeat(32));

    assertThat(put.code()).as(put.err()).isZero();
    assertThat(Files.readString(sharedLockfile())).contains("\"checksum\": \"" + "ab".repeat(32) + "\"")
        .contains("\"filesChecksum\": \"" + "cd".repeat(32) + "\"");
  }

  @Test
  void put_pulledAt_takesAnInstantOrADate() throws IOException {
    assertThat(run("entries", "put", "@acme/one", "1", "--pulled-at", "2024-01-01").code()).isZero();
    assertThat(run("entries", "put", "@acme/two", "1", "--pulled-at", "2024-02-03T04:05:06+01:00").code()).isZero();

    assertThat(Files.readString(sharedLockfile())).contains("\"pulledAt\": \"2024-01-01T00:00:00.000Z\"")
        .contains("\"pulledAt\": \"2024-02-03T03:05:06.000Z\"");
  }

  @Test
  void put_badInput_isAOneLineError_beforeAnythingIsOpened() {
    Map<String[], String> cases = Map.of(
        new String[] {"--pulled-at", "yesterday"}, "Cannot use --pulled-at \"yesterday\": give an ISO-8601 instant",
        new String[] {"--server-url", "not a url"}, "Cannot use --server-url \"not a url\": give an http or https URL",
        new String[] {"--checksum", "sha256:abc"}, "Cannot use --checksum \"sha256:abc\": give a SHA-256 as 64 hex",
        new String[] {"--channel", "two words"}, "Cannot use --channel \"two words\"",
        new String[] {"--timeout", "soon"}, "Cannot use --timeout \"soon\": give a positive duration");
    cases.forEach((options, message) -> {
      String[] args = Stream.concat(Stream.of("entries", "put", "@acme/hello", "1"), Stream.of(options))
          .toArray(String[]::new);

      Run put = run(args);

      assertThat(put.code()).as(String.join(" ", options)).isEqualTo(2);
      assertThat(put.err()).startsWith("tierlock: " + message).endsWith(" [invalid_input]\n").hasLineCount(1);
      assertThat(home.resolve("datastore")).as("nothing was opened, so nothing was created").doesNotExist();
    });
    Run version = run("entries", "put", "@acme/hello", "not a version!!");
    assertThat(version.code()).isEqualTo(2);
    assertThat(version.err()).startsWith("tierlock: Cannot use version \"not a version!!\": give an exact version");
    for (String accepted : List.of("2026.02.26.1", "^1.2", ">=1.2 <2", "1.x", "*", "1.0.0-beta.1+build.5", "~1")) {
      assertThat(run("entries", "put", "@acme/v", accepted).code()).as(accepted).isZero();
    }
  }

  @Test
  void remove_existingEntry_removesOnlyIt() throws IOException {
    run("entries", "put", "@acme/one", "1");
    run("entries", "put", "@acme/two", "1");

    Run remove = run("entries", "rm", "@acme/one");

    assertThat(remove.code()).isZero();
    assertThat(remove.out()).contains("removed @acme/one 1 (published)");
    assertThat(Files.readString(sharedLockfile())).doesNotContain("@acme/one").contains("@acme/two");
  }

  @Test
  void remove_missingEntry_exitsNotFoundAndChangesNothing() throws IOException {
    run("entries", "put", "@acme/one", "1");
    byte[] before = Files.readAllBytes(sharedLockfile());

    Run remove = run("entries", "remove", "@acme/absent");

    assertThat(remove.code()).isEqualTo(ExitCodes.NOT_FOUND);
    assertThat(remove.err()).contains("Cannot remove entry @acme/absent: the shared lockfile has no such entry"
        + " (--ignore-not-found makes that no error) [not_found]");
    assertThat(Files.readAllBytes(sharedLockfile())).isEqualTo(before);

    Run ignored = run("entries", "rm", "@acme/absent", "--ignore-not-found");
    assertThat(ignored.code()).as(ignored.err()).isZero();
    assertThat(ignored.out()).isEqualTo("(nothing to remove: the shared lockfile has no entry @acme/absent)\n");
    assertThat(Files.readAllBytes(sharedLockfile())).isEqualTo(before);
  }

  @Test
  void put_withoutAChecksum_saysItPinsNoArchive() {
    Run put = run("entries", "put", "@acme/hello", "1.0.0");
    Run pinned = run("entries", "put", "@acme/pinned", "1.0.0", "--checksum", "ab".repeat(32));

    assertThat(put.code()).isZero();
    assertThat(put.err()).contains("tierlock: note: @acme/hello pins no archive (no --checksum): the tier cannot restore"
        + " it; install takes it from a registry");
    assertThat(pinned.err()).doesNotContain("pins no archive");
  }

  @Test
  void pendingApply_withNothingPending_saysNothingPending() {
    run("entries", "put", "@acme/one", "1");

    Run apply = run("pending", "apply");

    assertThat(apply.code()).as(apply.err()).isZero();
    assertThat(apply.out()).isEqualTo("(nothing pending)\n");
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
    assertThat(run("init").code()).isZero();
    Run status = run("lock", "status");

    assertThat(status.code()).isZero();
    assertThat(status.out()).startsWith("free: ").contains(".datastore.lock");
  }

  @Test
  void lockStatus_held_showsHolderAndNonce_andReleaseWithThatNonceFreesIt() {
    try (Tierlock tierlock = Tierlock.builder().datastore(home.resolve("datastore").toUri()).createDatastore().checkout(checkout)
        .environment(Environment.system().withClock(CLOCK)).build()) {
      DistributedLock.Held lease = tierlock.globalLock().acquire();
      String nonce = lease.info().nonce();

      Run status = run("lock", "status");
      Run wrong = run("lock", "release", "--nonce", "not-the-nonce");
      Run release = run("lock", "release", "--nonce", nonce);
      Run after = run("lock", "status");

      assertThat(status.code()).isZero();
      assertThat(status.out()).startsWith("held: ").contains("nonce:      " + nonce).contains(", alive on this host)")
          .contains("pid " + ProcessHandle.current().pid() + ProcessHandle.current().info().startInstant()
              .map(start -> ", started " + start).orElse("") + ", alive")
          .contains("its process is alive: wait for it").doesNotContain("break-glass");
      assertThat(wrong.code()).isEqualTo(ExitCodes.NOT_FOUND);
      assertThat(wrong.err()).contains("Cannot release lock \".datastore.lock\"").contains("no holder with nonce not-the-nonce (it may have been released or taken over already) [not_found]");
      assertThat(release.code()).isZero();
      assertThat(release.out()).contains("released: ");
      assertThat(after.out()).startsWith("free: ");
      lease.release();
    }
  }

  @Test
  void lockStatus_ofAHolderWhoseProcessIsGone_saysSo_andThatBreakGlassIsSafe() throws Exception {
    Process finished = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-version")
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    finished.waitFor();
    LockIdentity here = LockIdentity.current();
    Instant started = Instant.parse("2026-11-29T09:00:00Z");
    try (Tierlock tierlock = Tierlock.builder().datastore(home.resolve("datastore").toUri()).createDatastore()
        .checkout(checkout).environment(Environment.system().withClock(CLOCK).withHostProcesses(startedAt(started))
            .withLockIdentity(LockIdentity.of("gone@" + here.hostname(), here.hostname(), finished.pid()))).build()) {
      DistributedLock.Held lease = tierlock.globalLock().acquire();

      Run status = run("lock", "status");

      assertThat(status.code()).isZero();
      assertThat(status.out()).startsWith("held by a process that is gone: ")
          .contains("pid " + finished.pid() + ", started " + started + ", no such process on this host)")
          .contains("break-glass is safe (its process is gone): tierlock lock release --nonce " + lease.info().nonce());
      lease.release();
    }
  }

  @Test
  void lockStatus_ofAHolderWhosePidNowNamesAnotherProcess_saysItIsGone_andThatBreakGlassIsSafe() {
    // a record naming this JVM's pid on this host, but a process that started an hour earlier: the
    // pid was reused since
    Instant earlier = Instant.parse("2026-11-29T09:00:00Z");
    HostProcesses claimingAnEarlierStart = startedAt(earlier);
    try (FileSystemDatastore store = FileSystemDatastore.open(home.resolve("datastore"));
        Tierlock holder = Tierlock.builder().datastore(store).checkout(home.resolve("holder"))
            .environment(Environment.system().withClock(CLOCK).withHostProcesses(claimingAnEarlierStart)).build()) {
      DistributedLock.Held lease = holder.globalLock().acquire();

      Run status = run("lock", "status");

      assertThat(status.code()).isZero();
      assertThat(status.out()).startsWith("held by a process that is gone: ")
          .contains("pid " + ProcessHandle.current().pid() + ", started " + earlier + ", now another process's on this host)")
          .contains("break-glass is safe (its process is gone): tierlock lock release --nonce " + lease.info().nonce());
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

    assertThat(put.code()).isEqualTo(2);
    assertThat(put.err()).contains("ftp").contains("file");
  }

  @Test
  void help_ofANestedCommand_showsThatCommand_andAnUnknownOneSuggests() {
    Run help = run("help", "entries", "put");
    Run unknown = run("help", "entries", "pt");
    Run typo = run("entris", "list");

    assertThat(help.code()).isZero();
    assertThat(help.out()).startsWith("Usage: tierlock entries put").contains("--checksum=SHA256")
        .contains("--channel=CHANNEL");
    assertThat(unknown.code()).isEqualTo(2);
    assertThat(unknown.err()).contains("Unknown command 'pt' of 'tierlock entries'; did you mean put?");
    assertThat(typo.code()).isEqualTo(2);
    assertThat(typo.err()).contains("Did you mean: entries");
  }

  @Test
  void help_listsCommandsAndExitCodes() {
    Run help = run("--help");
    Run bare = run();

    assertThat(help.code()).isZero();
    assertThat(help.out()).contains("entries").contains("lock").contains("75");
    // only the command a call names is modelled: the listing still names every command
    for (Class<?> command : TierlockCli.COMMANDS) {
      String name = command.getAnnotation(picocli.CommandLine.Command.class).name();
      assertThat(help.out()).as(name).containsPattern("(?m)^  " + name + "\\b");
    }
    assertThat(bare.code()).isEqualTo(2);
    assertThat(bare.err()).contains("Missing required subcommand");
  }

  @Test
  void timeout_boundsEachCallOfAnS3OrGcsDatastore_unlessItsUriSetsItsOwn() {
    TierlockCli cli = new TierlockCli(Map.of(), CLOCK, new PrintWriter(new StringWriter()));
    cli.timeout = "3s";
    assertThat(cli.boundedByTimeout(URI.create("gs://b/p"))).hasToString("gs://b/p?timeout=PT3S");
    assertThat(cli.boundedByTimeout(URI.create("gs://b/p?"))).hasToString("gs://b/p?timeout=PT3S");
    assertThat(cli.boundedByTimeout(URI.create("gs://b/p?endpoint=http://h:1"))).hasToString("gs://b/p?endpoint=http://h:1&timeout=PT3S");
    assertThat(cli.boundedByTimeout(URI.create("gs://b/p?timeout=PT9S"))).hasToString("gs://b/p?timeout=PT9S");
    assertThat(cli.boundedByTimeout(URI.create("S3://b/p?region=eu-west-1"))).hasToString("S3://b/p?region=eu-west-1&apiCallTimeout=PT3S");
    assertThat(cli.boundedByTimeout(URI.create("s3://b/p?apiCallTimeout=PT1S"))).hasToString("s3://b/p?apiCallTimeout=PT1S");
    assertThat(cli.boundedByTimeout(URI.create("file:///srv/tier"))).hasToString("file:///srv/tier");
    TierlockCli without = new TierlockCli(Map.of(), CLOCK, new PrintWriter(new StringWriter()));
    assertThat(without.boundedByTimeout(URI.create("gs://b/p"))).hasToString("gs://b/p");
  }

  @Test
  void anUnreachableGcsDatastore_failsWithinTheTimeout_withItsCode() throws IOException {
    int port;
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    Run list = run("--datastore", "gs://bucket/x?endpoint=http://127.0.0.1:" + port, "--timeout", "1s", "entries", "list");

    assertThat(list.code()).as(list.err()).isEqualTo(ExitCodes.UNAVAILABLE);
    // the provider took the added parameter (an unknown one is refused), and the call gave up after 1 s, not 30
    assertThat(list.err()).contains("GCS cannot be reached").doesNotContain("unknown query parameter")
        .endsWith("[managed_lockfile_unavailable]\n");
  }

  @Test
  void theCommandACallNames_isFoundPastTheGlobalOptionsAndTheirValues() {
    assertThat(TierlockCli.invoked(new String[] {"--datastore", "entries", "--checkout", "lock", "-v", "entries", "list"}))
        .contains(EntriesCommand.class);
    assertThat(TierlockCli.invoked(new String[] {"--timeout=30s", "doctor", "--json"})).contains(DoctorCommand.class);
    assertThat(TierlockCli.invoked(new String[] {"status"})).contains(ConvergeCommands.Status.class);
    assertThat(TierlockCli.invoked(new String[] {"help", "entries"})).as("the help needs them all").isEmpty();
    assertThat(TierlockCli.invoked(new String[] {"entris", "list"})).as("a typo gets them all, to suggest").isEmpty();
    assertThat(TierlockCli.invoked(new String[] {"--version"})).isEmpty();
    assertThat(TierlockCli.invoked(new String[] {"--help", "entries"})).as("the root's help lists them all").isEmpty();
    assertThat(TierlockCli.invoked(new String[] {"entries", "--help"})).contains(EntriesCommand.class);
    Run rootHelp = run("--help", "entries");
    assertThat(rootHelp.code()).isZero();
    assertThat(rootHelp.out()).startsWith("Usage: tierlock ").containsPattern("(?m)^  doctor\\b");
    assertThat(TierlockCli.invoked(new String[] {"--", "entries"})).isEmpty();
    // every command modelled alone parses as it does beside the others
    Run list = run("--namespace", "team", "-v", "entries", "list", "--json");
    assertThat(list.code()).as(list.err()).isEqualTo(2);
    assertThat(list.err()).as("parsed, then refused for the datastore, not the options").endsWith("[datastore_missing]\n");
  }

  /**
   * Returns this host's processes (its name, boot and pid namespace), but claiming that every pid
   * runs and started at {@code start}: a holder built on it records that start and this namespace.
   */
  static HostProcesses startedAt(Instant start) {
    HostProcesses system = HostProcesses.system();
    return new HostProcesses() {
      @Override
      public String hostname() {
        return system.hostname();
      }

      @Override
      public Optional<dev.tierlock.LockInfo.ProcessNamespace> processNamespace() {
        return system.processNamespace();
      }

      @Override
      public boolean isRunning(long pid) {
        return true;
      }

      @Override
      public Optional<Instant> startOf(long pid) {
        return Optional.of(start);
      }
    };
  }
}
