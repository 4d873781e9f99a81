package dev.tierlock.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Runs the command line in this JVM, as a test of its output does: on the embedded default datastore
 * under a home directory, with a checkout, a fixed clock, and stdout and stderr captured apart.
 */
final class CliHarness {

  /** The clock every run reads. */
  static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-29T10:00:00.000Z"), ZoneOffset.UTC);

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final Path home;
  private final Path checkout;
  private final Map<String, String> environment;

  /** A harness on {@code home}'s embedded datastore ({@code TIERLOCK_HOME}) and {@code checkout}. */
  CliHarness(Path home, Path checkout) {
    this(home, checkout, Map.of());
  }

  private CliHarness(Path home, Path checkout, Map<String, String> environment) {
    this.home = home;
    this.checkout = checkout;
    this.environment = environment;
  }

  /** {@return this harness, with {@code variables} also in the environment} */
  CliHarness with(Map<String, String> variables) {
    Map<String, String> all = new java.util.HashMap<>(environment);
    all.putAll(variables);
    return new CliHarness(home, checkout, Map.copyOf(all));
  }

  /** One run: its exit code, stdout and stderr. */
  record Run(int code, String out, String err) {
    /** {@return stdout's lines} */
    List<String> lines() {
      return out.lines().toList();
    }

    /** {@return stdout parsed as one JSON document} */
    JsonNode json() {
      try {
        return MAPPER.readTree(out);
      } catch (IOException e) {
        throw new UncheckedIOException("not JSON: " + out, e);
      }
    }
  }

  /** Runs {@code args} on the checkout. */
  Run run(String... args) {
    return runIn(checkout, args);
  }

  /** Runs {@code args} on {@code at}, another checkout of the same datastore. */
  Run runIn(Path at, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    String[] all = Stream.concat(Stream.of(args), Stream.of("--checkout", at.toString())).toArray(String[]::new);
    Map<String, String> variables = new java.util.HashMap<>(environment);
    variables.put(TierlockCli.HOME_VARIABLE, home.toString());
    int code = TierlockCli.run(all, variables, CLOCK,
        new PrintWriter(out, true), new PrintWriter(err, true));
    return new Run(code, out.toString(), err.toString());
  }

  /** {@return the embedded datastore's directory} */
  Path datastore() {
    return home.resolve("datastore");
  }
}
