package dev.tierlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Every command's help: its own options, one line for the global ones, examples and the exit codes. */
class HelpLayoutTest {

  private record Run(int code, String out) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    int code = TierlockCli.run(args, Map.of(), Clock.systemUTC(), new PrintWriter(out, true),
        new PrintWriter(new StringWriter(), true));
    return new Run(code, out.toString());
  }

  /** Every command path, however deep ({@code entries put}), under its primary name. */
  private static List<List<String>> commands() {
    // no command named: every command, with every subcommand
    CommandLine whole = TierlockCli.commandLine(new String[0],
        new TierlockCli(Map.of(), Clock.systemUTC(), new PrintWriter(new StringWriter())));
    List<List<String>> paths = new ArrayList<>();
    collect(whole, new ArrayList<>(), paths);
    return paths;
  }

  private static void collect(CommandLine command, List<String> path, List<List<String>> paths) {
    command.getSubcommands().forEach((name, sub) -> {
      if (name.equals(sub.getCommandName())) {
        List<String> next = new ArrayList<>(path);
        next.add(name);
        paths.add(next);
        collect(sub, next, paths);
      }
    });
  }

  @Test
  void everyCommandsHelp_hasItsOwnOptions_oneLineForTheGlobalOnes_examples_andTheExitCodes() {
    List<List<String>> commands = commands();
    assertThat(commands).hasSizeGreaterThan(20);
    for (List<String> path : commands) {
      if (path.get(0).equals("help")) {
        continue; // 'help --help' is the root's help, as 'help' alone
      }
      List<String> args = new ArrayList<>(path);
      args.add("--help");

      Run help = run(args.toArray(String[]::new));

      String name = String.join(" ", path);
      assertThat(help.code()).as(name).isZero();
      assertThat(help.out()).as(name).contains(HelpLayout.GLOBAL).doesNotContain("--namespace=NS")
          .doesNotContain("--datastore=URI").contains("Exit codes:").contains("69   ");
      assertThat(help.out()).as(name).contains("Examples:\n  tierlock ");
    }
  }

  @Test
  void entriesPutsHelp_listsItsOptions_notTheGlobalOnes() {
    Run help = run("entries", "put", "--help");

    assertThat(help.out()).startsWith("Usage: tierlock entries put [OPTIONS] NAME VERSION\n")
        .contains("--checksum=SHA256").contains("--pulled-at=WHEN")
        .contains("Examples:\n  tierlock entries put @acme/hello 1.0.0\n");
  }

  @Test
  void options_listsTheGlobalOptionsOnce() {
    Run options = run("options");

    assertThat(options.code()).isZero();
    assertThat(options.out()).startsWith("Global options (before or after the command):\n")
        .contains("--datastore=URI").contains("--checkout=DIR").contains("--namespace=NS").contains("--timeout=DURATION")
        .contains("-v, --verbose").contains("TIERLOCK_DATASTORE");
  }
}
