package dev.tierlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ctrl-C: a child JVM running {@code tierlock -v entries put} on a datastore that stands still at
 * one step ({@link StallingDatastoreProvider}), sent SIGINT there, exits 130, releases the lease and
 * says what is true of the change.
 */
@EnabledOnOs(OS.LINUX)
class InterruptTest {

  @TempDir Path home;
  @TempDir Path checkout;

  @Test
  void sigint_beforeThePublish_exits130_andSaysNothingWasPublished() throws Exception {
    // the auto mode reads a new lockfile before it takes any lease: the read is where it stands still
    Child child = start("read", "stalled at the lockfile read");

    assertThat(child.interrupt()).isEqualTo(130);
    assertThat(child.err()).contains("tierlock: interrupted: nothing published");
    assertThat(home.resolve("datastore/.datastore.lock")).doesNotExist();
    assertThat(home.resolve("datastore/config/upstream_extensions.json")).doesNotExist();
  }

  @Test
  void sigint_afterThePublishWasSent_saysItsOutcomeIsJudgedByTheNextRun() throws Exception {
    Child child = start("write", "tierlock: publish conditional on ");

    assertThat(child.interrupt()).isEqualTo(130);
    assertThat(child.err()).contains("tierlock: interrupted: released the lease, the change was sent and its outcome"
        + " is judged by the next run on this checkout");
    assertThat(home.resolve("datastore/.datastore.lock")).doesNotExist();
  }

  private Child start(String at, String awaited) throws IOException {
    Path datastore = home.resolve("datastore");
    CliHarness.Run init = new CliHarness(home, checkout).run("init", "--datastore", datastore.toString());
    assertThat(init.code()).as(init.err()).isZero();
    // a child of a background job inherits SIGINT ignored, and a JVM then never handles it: env
    // gives it the default disposition, as a terminal's Ctrl-C finds it
    Process process = new ProcessBuilder("env", "--default-signal=INT",
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), TierlockCli.class.getName(), "-v",
        "--datastore", "stall://" + datastore.toUri().getPath() + "?at=" + at, "--checkout", checkout.toString(),
        "entries", "put", "@acme/hello", "1.0.0").redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    return new Child(process, awaited);
  }

  /** The child, read on its stderr until it says {@code awaited}: it then stands still at the stalled step. */
  private static final class Child {
    private final Process process;
    private final List<String> lines = new ArrayList<>();
    private final CompletableFuture<Void> said = new CompletableFuture<>();
    private final CompletableFuture<Void> ended = new CompletableFuture<>();

    Child(Process process, String awaited) {
      this.process = process;
      Thread reader = new Thread(() -> {
        try (BufferedReader err = new BufferedReader(new InputStreamReader(process.getErrorStream(),
            StandardCharsets.UTF_8))) {
          for (String line = err.readLine(); line != null; line = err.readLine()) {
            synchronized (lines) {
              lines.add(line);
            }
            if (line.startsWith(awaited)) {
              said.complete(null);
            }
          }
        } catch (IOException e) {
          said.completeExceptionally(e);
        }
        said.completeExceptionally(new IllegalStateException("the child ended before saying " + awaited + ": " + err()));
        ended.complete(null);
      }, "child-stderr");
      reader.setDaemon(true);
      reader.start();
    }

    /** Waits for the awaited line, sends SIGINT, and returns the exit code. */
    int interrupt() throws Exception {
      try {
        said.get(120, TimeUnit.SECONDS);
        Process kill = new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).start();
        assertThat(kill.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the child exits on SIGINT").isTrue();
        ended.get(60, TimeUnit.SECONDS);
        return process.exitValue();
      } finally {
        process.destroyForcibly();
      }
    }

    String err() {
      synchronized (lines) {
        return String.join("\n", lines);
      }
    }
  }
}
