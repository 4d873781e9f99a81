package dev.tierlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The command line's one voice: the library's lines as {@code tierlock: ...}, each warning once. */
class VoiceTest {

  private final ByteArrayOutputStream said = new ByteArrayOutputStream();

  @AfterEach
  void restore() {
    Voice.start(0);
  }

  private String said() {
    return said.toString(StandardCharsets.UTF_8);
  }

  @Test
  void theLibrarysLines_areTheCommandLinesVoice_andAWarningIsSaidOnce() {
    Voice.start(0, new PrintStream(said, true, StandardCharsets.UTF_8));
    assertThat(LoggerFactory.getILoggerFactory().getClass().getName()).startsWith(Voice.class.getName());
    Logger lease = LoggerFactory.getLogger("dev.tierlock.LeaseAcquisition");
    Logger engine = LoggerFactory.getLogger("dev.tierlock.CommitRun");
    StringWriter err = new StringWriter();

    lease.info("Waiting up to {} s for {}", 60, "lock \"x\"");
    engine.info("fetched version {}", 3);
    engine.warn("The global lock \"x\" was lost during the transaction");
    Voice.warn(new PrintWriter(err, true), "The global lock \"x\" was lost during the transaction");
    Voice.warn(new PrintWriter(err, true), "SHA mismatch");
    engine.debug("a debug line");

    assertThat(said()).isEqualTo("tierlock: waiting up to 60 s for lock \"x\"\n"
        + "tierlock: warning: the global lock \"x\" was lost during the transaction\n");
    assertThat(err.toString()).as("said by the library already: not twice").isEqualTo("tierlock: warning: SHA mismatch\n");
  }

  @Test
  void verbose_saysWhatTheLibraryDoes_andVeryVerbose_itsDebugLines() {
    Voice.start(1, new PrintStream(said, true, StandardCharsets.UTF_8));
    Logger engine = LoggerFactory.getLogger("dev.tierlock.CommitRun");
    engine.info("Fetched version {}", 3);
    engine.debug("not at -v");
    LoggerFactory.getLogger("dev.tierlock.install.Converger").warn("Convergence warning");
    Voice.start(2, new PrintStream(said, true, StandardCharsets.UTF_8));
    engine.debug("at -vv", new IllegalStateException("why"));

    assertThat(said()).startsWith("tierlock: fetched version 3\ntierlock: warning: convergence warning\n"
        + "tierlock: at -vv (java.lang.IllegalStateException: why)\njava.lang.IllegalStateException: why");
  }

  @Test
  void verbosity_countsEachV() {
    assertThat(TierlockCli.verbosity(new String[] {"entries", "list"})).isZero();
    assertThat(TierlockCli.verbosity(new String[] {"-v", "entries", "list"})).isEqualTo(1);
    assertThat(TierlockCli.verbosity(new String[] {"-vv", "entries", "list", "--verbose"})).isEqualTo(3);
    assertThat(TierlockCli.verbosity(new String[] {"entries", "show", "--", "-v"})).isZero();
  }
}
