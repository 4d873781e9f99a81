package dev.tierlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.DistributedLock;
import dev.tierlock.testkit.gcs.GcsFakeServer;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReader;
import java.lang.module.ModuleReference;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Starts the command line in child JVMs on the module path, {@code --module
 * dev.tierlock.cli/dev.tierlock.cli.TierlockCli}, to prove the module descriptors at run time: the
 * {@code requires}, core's {@code uses} and each datastore's {@code provides} (the command line
 * names no datastore module), and the internals core exports to the filesystem datastore and the
 * testkit only; and that each datastore's {@code provides} names what its {@code META-INF/services}
 * file lists for class-path users. The other tests run on the class path, as most users run
 * Tierlock.
 */
class TierlockCliModulePathTest {

  private static final String MAIN = "dev.tierlock.cli/dev.tierlock.cli.TierlockCli";
  private static final String SHARED_LOCKFILE = "config/upstream_extensions.json";
  private static final String PROVIDER_SERVICE = "dev.tierlock.spi.DatastoreProvider";

  @TempDir Path temp;

  private record Run(int code, String out, String err) {}

  @Test
  void putThenList_onlyTheModulePath_publishesThroughTheFileProviderItsModuleProvides() throws Exception {
    // nothing on the class path: every class, the file: provider included, comes through the module system
    ModulePathLayout layout = ModulePathLayout.resolving(ModulePathLayout.runtimeEntries(),
        "dev.tierlock.cli", "dev.tierlock.datastore.fs").withoutClassPath();
    assertThat(layout.modules()).doesNotContainKeys("dev.tierlock.datastore.s3", "dev.tierlock.datastore.gcs");
    Path datastore = temp.resolve("datastore");
    Path checkout = Files.createDirectories(temp.resolve("checkout"));

    Run missing = cli(layout, List.of(), "--datastore", datastore.toString(), "--checkout", checkout.toString(),
        "entries", "list");
    assertThat(missing.code()).as("a mistyped or missing datastore is bad input, and nothing is created").isEqualTo(2);
    assertThat(missing.err()).endsWith("[datastore_missing]\n");
    assertThat(datastore).doesNotExist();
    Run init = cli(layout, List.of(), "--datastore", datastore.toString(), "--checkout", checkout.toString(), "init");
    assertThat(init.code()).as(init.err()).isZero();

    Run put = cli(layout, List.of("--show-module-resolution"),
        "--datastore", datastore.toString(), "--checkout", checkout.toString(), "entries", "put", "@demo/hello", "1.0.0", "--checksum", "ab".repeat(32));
    Run list = cli(layout, List.of(), "--datastore", datastore.toString(), "--checkout", checkout.toString(), "entries", "list",
        "--no-headers");

    assertThat(put.code()).as(put.err()).isZero();
    assertThat(put.err()).isEmpty();
    assertThat(put.out().lines())
        .contains("dev.tierlock.core binds dev.tierlock.datastore.fs " + layout.location("dev.tierlock.datastore.fs"))
        .noneMatch(line -> line.matches("\\S+ requires dev\\.tierlock\\.datastore\\.fs .*"))
        .last().isEqualTo("put @demo/hello 1.0.0 (published)");
    assertThat(list.code()).as(list.err()).isZero();
    assertThat(list.err()).isEmpty();
    assertThat(list.out()).matches("@demo/hello\t1\\.0\\.0\t\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z\tsha256:abababababab\\R");
    assertThat(Files.readString(datastore.resolve(SHARED_LOCKFILE)))
        .contains("\"@demo/hello\": {").contains("\"version\": \"1.0.0\"");

    // doctor opens the datastore through the command line's own uses, to read it with writes refused
    Run doctor = cli(layout, List.of(), "--datastore", datastore.toString(), "--checkout", checkout.toString(), "doctor");
    assertThat(doctor.code()).as(doctor.out() + doctor.err()).isZero();
    assertThat(doctor.out().lines()).contains("doctor: healthy: every check ok")
        .anyMatch(line -> line.startsWith("ok    datastore-reachable  ") && line.endsWith("parses: 1 entry"));
  }

  @Test
  void aWriteWaitingOnAHeldLock_saysOnceWhoHoldsItSinceWhenAndHowLong_thenTimesOutAsTemporary() throws Exception {
    ModulePathLayout layout = ModulePathLayout.resolving(ModulePathLayout.runtimeEntries(),
        "dev.tierlock.cli", "dev.tierlock.datastore.fs");
    Path datastore = temp.resolve("datastore");
    Path checkout = Files.createDirectories(temp.resolve("checkout"));
    assertThat(cli(layout, List.of(), "--datastore", datastore.toString(), "--checkout", checkout.toString(), "init")
        .code()).isZero();
    assertThat(cli(layout, List.of(), "--datastore", datastore.toString(), "--checkout", checkout.toString(),
        "entries", "put", "@demo/first", "1.0.0").code()).isZero();
    byte[] before = Files.readAllBytes(datastore.resolve(SHARED_LOCKFILE));

    try (dev.tierlock.Tierlock holder = dev.tierlock.Tierlock.builder().datastore(datastore.toUri())
        .checkout(Files.createDirectories(temp.resolve("holder"))).build()) {
      dev.tierlock.DistributedLock.Held lease = holder.globalLock().acquire();
      dev.tierlock.LockInfo held = lease.info();
      Run put = cli(layout, List.of(), "--datastore", datastore.toString(), "--checkout", checkout.toString(),
          "--timeout", "1s", "entries", "put", "@demo/late", "1.0.0");
      Run verbose = cli(layout, List.of(), "--datastore", datastore.toString(), "--checkout", checkout.toString(),
          "--timeout", "1s", "-v", "entries", "put", "@demo/late", "1.0.0");
      Run status = cli(layout, List.of(), "--datastore", datastore.toString(), "--checkout", checkout.toString(),
          "lock", "status");
      lease.release();

      assertThat(verbose.code()).isEqualTo(ExitCodes.TEMPORARY);
      assertThat(verbose.err().lines()).as("--verbose says how the wait goes, and still names the holder once")
          .hasSizeGreaterThan(2).filteredOn(line -> line.contains("waiting up to")).hasSize(1);

      assertThat(put.code()).as(put.err()).isEqualTo(ExitCodes.TEMPORARY);
      List<String> lines = put.err().lines().toList();
      assertThat(lines).as(put.err()).hasSize(2);
      assertThat(lines.get(0)).startsWith("tierlock: waiting up to 1 s for ").contains(".datastore.lock")
          .contains("held by " + held.holder() + " on " + held.hostname() + " (pid " + held.pid() + ", nonce "
              + held.nonce() + ") since " + held.acquiredAt());
      assertThat(lines.get(1)).startsWith("tierlock: ").endsWith("[lock_timeout]");
      assertThat(status.out()).contains(held.nonce()).contains("its process is alive: wait for it");
    }
    assertThat(Files.readAllBytes(datastore.resolve(SHARED_LOCKFILE))).as("nothing published").isEqualTo(before);
  }

  @Test
  void aFilesystemCall_withEveryDatastoreBesideIt_loadsNoClassOfACloudSdk() throws Exception {
    // providers are looked up by scheme: the first that matches is the only one opened, and asking
    // any provider its scheme loads nothing of its SDK, so even an unknown scheme loads none of it
    ModulePathLayout layout = ModulePathLayout.resolving(ModulePathLayout.runtimeEntries(), "dev.tierlock.cli",
        "dev.tierlock.datastore.fs", "dev.tierlock.datastore.s3", "dev.tierlock.datastore.gcs");
    Path datastore = temp.resolve("datastore");
    Path checkout = Files.createDirectories(temp.resolve("checkout"));
    String[] where = {"--datastore", datastore.toString(), "--checkout", checkout.toString()};
    assertThat(cli(layout, List.of(), concat(where, "init")).code()).isZero();
    assertThat(cli(layout, List.of(), concat(where, "entries", "put", "@demo/hello", "1.0.0")).code()).isZero();

    Path listed = temp.resolve("list-classes.txt");
    Run list = cli(layout, List.of("-Xlog:class+load=info:file=" + listed), concat(where, "entries", "list", "--no-headers"));
    Path unknown = temp.resolve("unknown-classes.txt");
    Run foreign = cli(layout, List.of("-Xlog:class+load=info:file=" + unknown),
        "--datastore", "foo://bucket/prefix", "--checkout", checkout.toString(), "entries", "list");

    assertThat(list.code()).as(list.err()).isZero();
    assertThat(list.out()).startsWith("@demo/hello\t1.0.0\t");
    assertThat(foreign.code()).isEqualTo(2);
    assertThat(foreign.err()).contains("known schemes: file, gs, s3").endsWith("[unknown_scheme]\n");
    for (Path log : List.of(listed, unknown)) {
      List<String> loaded = Files.readAllLines(log);
      assertThat(loaded).as("the log records class loading").anyMatch(line -> line.contains(" dev.tierlock.cli.TierlockCli "));
      assertThat(loaded).as(log.getFileName().toString())
          .noneMatch(line -> line.contains(" software.amazon.") || line.contains(" com.google.")
              || line.contains(" io.grpc.") || line.contains(" io.netty."));
    }
    assertThat(Files.readAllLines(unknown)).as("every provider was asked its scheme")
        .anyMatch(line -> line.contains(" dev.tierlock.datastore.s3.S3DatastoreProvider "))
        .anyMatch(line -> line.contains(" dev.tierlock.datastore.gcs.GcsDatastoreProvider "));
  }

  private static String[] concat(String[] first, String... then) {
    String[] all = java.util.Arrays.copyOf(first, first.length + then.length);
    System.arraycopy(then, 0, all, first.length, then.length);
    return all;
  }

  @Test
  void aWriteWaitingOnAStoppedHolderOfTheCheckoutLock_saysOnceItsPidAndThatItIsStopped_thenTimesOut() throws Exception {
    ModulePathLayout layout = ModulePathLayout.resolving(ModulePathLayout.runtimeEntries(),
        "dev.tierlock.cli", "dev.tierlock.datastore.fs");
    Path datastore = temp.resolve("datastore");
    Path checkout = Files.createDirectories(temp.resolve("checkout"));
    assertThat(cli(layout, List.of(), "--datastore", datastore.toString(), "--checkout", checkout.toString(), "init")
        .code()).isZero();
    assertThat(cli(layout, List.of(), "--datastore", datastore.toString(), "--checkout", checkout.toString(),
        "entries", "put", "@demo/first", "1.0.0").code()).isZero();
    byte[] before = Files.readAllBytes(datastore.resolve(SHARED_LOCKFILE));
    Path lockFile = checkout.resolve(".swamp").resolve("transaction.lock");

    Run put;
    long holderPid;
    try (dev.tierlock.testkit.ChildLockHolder holder = dev.tierlock.testkit.ChildLockHolder.start(lockFile,
        "a run stopped half-way")) {
      holderPid = holder.pid();
      holder.stop();
      try {
        put = cli(layout, List.of(), "--datastore", datastore.toString(), "--checkout", checkout.toString(),
            "--timeout", "1s", "entries", "put", "@demo/late", "1.0.0");
      } finally {
        holder.resume();
      }
    }

    assertThat(put.code()).as(put.err()).isEqualTo(ExitCodes.TEMPORARY);
    List<String> lines = put.err().lines().toList();
    assertThat(lines).as(put.err()).hasSize(2);
    assertThat(lines.get(0)).startsWith("tierlock: waiting up to 1 s for transaction lock ")
        .contains(lockFile.getFileName().toString()).contains("held by pid " + holderPid + " on host ")
        .contains("guards a run stopped half-way").endsWith("; its process is stopped");
    assertThat(lines.get(1)).startsWith("tierlock: ").contains("transaction.lock").endsWith("[lock_timeout]");
    assertThat(Files.readAllBytes(datastore.resolve(SHARED_LOCKFILE))).as("nothing published").isEqualTo(before);
  }

  @Test
  void s3AndGcsDatastoresOnTheModulePath_resolveAndOpen() throws Exception {
    // Google's jars that split packages stay on the class path; the four the GCS module requires do not
    ModulePathLayout layout = ModulePathLayout.resolving(ModulePathLayout.runtimeEntries(), "dev.tierlock.cli",
        "dev.tierlock.datastore.fs", "dev.tierlock.datastore.s3", "dev.tierlock.datastore.gcs");
    assertThat(layout.modules()).containsKeys("google.cloud.storage", "google.cloud.core", "google.cloud.core.http", "gax")
        .doesNotContainKeys("proto.google.common.protos", "gax.grpc", "grpc.google.cloud.storage.v2");
    int closedPort = closedLoopbackPort();
    try (GcsFakeServer gcs = GcsFakeServer.start()) {
      String bucket = gcs.newBucket();

      // S3: no server, so the client is built, sends, and its refusal is translated; no credentials leave.
      // GCS: a real round trip to the testkit's fake server. The two JVMs run side by side.
      Run s3;
      Run gs;
      try (Child s3Child = start(layout, List.of("--show-module-resolution", "-Daws.accessKeyId=probe",
              "-Daws.secretAccessKey=probe", "-Daws.disableEc2Metadata=true",
              "-Daws.configFile=" + temp.resolve("no-aws-config"),
              "-Daws.sharedCredentialsFile=" + temp.resolve("no-aws-credentials")),
              "--datastore", "s3://tierlock-probe/p?region=us-east-1&pathStyle=true&endpoint=http://127.0.0.1:"
                  + closedPort + "&apiCallTimeout=PT2S&apiCallAttemptTimeout=PT1S",
              "--checkout", Files.createDirectories(temp.resolve("s3-checkout")).toString(), "entries", "list");
          Child gsChild = start(layout, List.of(), "--datastore", "gs://" + bucket + "/p?endpoint=" + gcs.endpoint(),
              "--checkout", Files.createDirectories(temp.resolve("gcs-checkout")).toString(),
              "entries", "put", "@demo/hello", "1.0.0", "--checksum", "ab".repeat(32))) {
        s3 = s3Child.await();
        gs = gsChild.await();
      }

      assertThat(s3.out().lines()).contains(
          "dev.tierlock.core binds dev.tierlock.datastore.s3 " + layout.location("dev.tierlock.datastore.s3"),
          "dev.tierlock.core binds dev.tierlock.datastore.gcs " + layout.location("dev.tierlock.datastore.gcs"),
          "dev.tierlock.core binds dev.tierlock.datastore.fs " + layout.location("dev.tierlock.datastore.fs"));
      assertThat(s3.code()).as(s3.err()).isEqualTo(ExitCodes.UNAVAILABLE);
      assertThat(s3.err()).startsWith("tierlock: Cannot read the shared lockfile from s3://tierlock-probe/p")
          .contains("127.0.0.1:" + closedPort).endsWith("[managed_lockfile_unavailable]" + System.lineSeparator());
      assertThat(gs.code()).as(gs.err()).isZero();
      assertThat(gs.err()).isEmpty();
      assertThat(gs.out().lines()).containsExactly("put @demo/hello 1.0.0 (published)");
      assertThat(gcs.peek(bucket, "p/" + SHARED_LOCKFILE)).hasValueSatisfying(
          bytes -> assertThat(new String(bytes, StandardCharsets.UTF_8)).contains("\"version\": \"1.0.0\""));
    }
  }

  @Test
  void testkitOnTheModulePath_resolvesOpensItsContractsToJUnitAndReadsCoreInternals() throws Exception {
    ModulePathLayout layout = ModulePathLayout.resolving(ModulePathLayout.testEntries(), "dev.tierlock.testkit");

    ModuleLayer layer = layout.layer("dev.tierlock.testkit");

    Module testkit = layer.findModule("dev.tierlock.testkit").orElseThrow();
    Module junit = layer.findModule("org.junit.platform.commons").orElseThrow();
    Module core = layer.findModule("dev.tierlock.core").orElseThrow();
    assertThat(testkit.isOpen("dev.tierlock.testkit", junit)).isTrue();
    assertThat(testkit.isOpen("dev.tierlock.testkit")).isFalse();
    assertThat(core.isExported("dev.tierlock.internal", testkit)).isTrue();
    assertThat(core.isExported("dev.tierlock.internal")).isFalse();
    // the GCS fake server starts inside the layer: jdk.httpserver is read, and Jackson resolves
    Class<?> server = layer.findLoader("dev.tierlock.testkit").loadClass(GcsFakeServer.class.getName());
    assertThat(server.getModule()).isSameAs(testkit);
    try (AutoCloseable started = (AutoCloseable) server.getMethod("start").invoke(null)) {
      assertThat(server.getMethod("endpoint").invoke(started).toString()).matches("http://127\\.0\\.0\\.1:\\d+");
    }
  }

  @Test
  void datastoreModules_provideExactlyTheProvidersTheirServiceFilesList() throws Exception {
    // class-path users find providers through the file, module-path users through the descriptor
    ModulePathLayout layout = ModulePathLayout.resolving(ModulePathLayout.runtimeEntries(),
        "dev.tierlock.datastore.fs", "dev.tierlock.datastore.s3", "dev.tierlock.datastore.gcs");
    for (String name : List.of("dev.tierlock.datastore.fs", "dev.tierlock.datastore.s3", "dev.tierlock.datastore.gcs")) {
      ModuleReference module = ModuleFinder.of(Path.of(layout.location(name))).find(name).orElseThrow();
      List<String> listed;
      try (ModuleReader reader = module.open();
          InputStream file = reader.open("META-INF/services/" + PROVIDER_SERVICE).orElseThrow()) {
        listed = new String(file.readAllBytes(), StandardCharsets.UTF_8).lines()
            .map(line -> line.replaceFirst("#.*", "").strip()).filter(line -> !line.isEmpty()).toList();
      }

      assertThat(module.descriptor().provides()).as(name).singleElement().satisfies(provides -> {
        assertThat(provides.service()).isEqualTo(PROVIDER_SERVICE);
        assertThat(provides.providers()).hasSize(1).containsExactlyElementsOf(listed);
      });
    }
  }

  /** Runs the command line in a JVM of this JDK and waits for it; see {@link #start}. */
  private Run cli(ModulePathLayout layout, List<String> options, String... args) throws IOException, InterruptedException {
    try (Child child = start(layout, options, args)) {
      return child.await();
    }
  }

  /**
   * Starts the command line in a JVM of this JDK with {@code layout}, the JVM {@code options} and
   * the command line's {@code args}, in a scrubbed environment.
   */
  private Child start(ModulePathLayout layout, List<String> options, String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xshare:auto", "-XX:TieredStopAtLevel=1"));
    command.addAll(options);
    command.addAll(List.of("--module-path", join(layout.modulePath())));
    if (!layout.classPath().isEmpty()) {
      command.addAll(List.of("--class-path", join(layout.classPath())));
    }
    command.addAll(List.of("--module", MAIN));
    command.addAll(List.of(args));
    Path out = Files.createTempFile(temp, "out", ".txt");
    Path err = Files.createTempFile(temp, "err", ".txt");
    ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
        .directory(temp.toFile());
    Map<String, String> environment = builder.environment();
    // nothing of this machine's Java, AWS or Google setup reaches the child
    environment.keySet().removeIf(name -> name.equals("CLASSPATH") || name.equals("JDK_JAVA_OPTIONS")
        || name.equals("JAVA_TOOL_OPTIONS") || name.equals("_JAVA_OPTIONS") || name.startsWith("AWS_")
        || name.startsWith("GOOGLE_") || name.startsWith("CLOUDSDK_") || name.equals("TIERLOCK_HOME"));
    return new Child(builder.start(), out, err, String.join(" ", args));
  }

  /** A started command line whose output goes to files, read once it has exited; closing kills it. */
  private record Child(Process process, Path out, Path err, String args) implements AutoCloseable {

    Run await() throws IOException, InterruptedException {
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
        throw new AssertionError("The command line did not exit within 60 s: " + args);
      }
      return new Run(process.exitValue(), Files.readString(out), Files.readString(err));
    }

    @Override
    public void close() {
      process.destroyForcibly();
    }
  }

  private static String join(List<Path> entries) {
    return entries.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator));
  }

  /** {@return a loopback port nothing listens on: bound by the system, then released} */
  private static int closedLoopbackPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
