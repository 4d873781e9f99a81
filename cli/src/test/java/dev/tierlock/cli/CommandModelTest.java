package dev.tierlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * How much of the command line a call models: the command it names alone (and of its subcommands
 * the one it names alone), none for the version alone, every command for the help, no command or a
 * mistyped one (each command modelled costs start-up time).
 */
class CommandModelTest {

  private static CommandLine model(String... args) {
    return TierlockCli.commandLine(args, new TierlockCli(Map.of(), Clock.systemUTC(), new PrintWriter(new StringWriter())));
  }

  @Test
  void theVersionAlone_modelsNoCommand_andStillPrintsTheVersion() {
    assertThat(model("--version").getSubcommands()).isEmpty();
    assertThat(model("-V").getSubcommands()).isEmpty();
    assertThat(model("--datastore", "x", "-V").getSubcommands()).isEmpty();
    StringWriter out = new StringWriter();
    int code = TierlockCli.run(new String[] {"--version"}, Map.of(), Clock.systemUTC(), new PrintWriter(out, true),
        new PrintWriter(new StringWriter(), true));
    assertThat(code).isZero();
    assertThat(out.toString()).startsWith("tierlock ");
  }

  @Test
  void theHelp_noCommand_oraMistypedOne_modelEveryCommand() {
    int every = (int) TierlockCli.COMMANDS.stream()
        .map(c -> c.getAnnotation(CommandLine.Command.class)).mapToLong(a -> 1 + a.aliases().length).sum();
    assertThat(model("--help").getSubcommands()).hasSize(every);
    assertThat(model("--version", "--help").getSubcommands()).hasSize(every);
    assertThat(model().getSubcommands()).hasSize(every);
    assertThat(model("--version", "entires").getSubcommands()).hasSize(every);
    assertThat(model("entries", "list").getSubcommands()).containsOnlyKeys("entries");
  }

  @Test
  void aSubcommandNamed_isModelledAlone_underItsCommand() {
    assertThat(model("entries", "list").getSubcommands().get("entries").getSubcommands()).containsOnlyKeys("list");
    assertThat(model("-v", "--checkout", "list", "entries", "--timeout", "5s", "rm", "@a/b").getSubcommands()
        .get("entries").getSubcommands()).containsOnlyKeys("remove", "rm");
    assertThat(model("lock", "status").getSubcommands().get("lock").getSubcommands()).containsOnlyKeys("status");
    assertThat(model("pending", "discard").getSubcommands().get("pending").getSubcommands()).containsOnlyKeys("discard");
    assertThat(model("entries", "list", "--help").getSubcommands().get("entries").getSubcommands()).containsOnlyKeys("list");
  }

  @Test
  void aCommandsHelp_noSubcommand_oraMistypedOne_modelEverySubcommand() {
    List<String> entries = List.of("list", "show", "put", "remove", "rm");
    assertThat(model("entries").getSubcommands().get("entries").getSubcommands()).containsOnlyKeys(entries);
    assertThat(model("entries", "--help", "list").getSubcommands().get("entries").getSubcommands()).containsOnlyKeys(entries);
    assertThat(model("entries", "lst").getSubcommands().get("entries").getSubcommands()).containsOnlyKeys(entries);
    assertThat(model("entries", "--", "list").getSubcommands().get("entries").getSubcommands()).containsOnlyKeys(entries);
    assertThat(model("--help").getSubcommands().get("entries").getSubcommands()).containsOnlyKeys(entries);
    assertThat(model("help", "lock", "status").getSubcommands().get("lock").getSubcommands())
        .containsOnlyKeys("status", "release");
  }

  @Test
  void aMistypedSubcommand_isStillSuggested() {
    StringWriter err = new StringWriter();
    int code = TierlockCli.run(new String[] {"entries", "lst"}, Map.of(), Clock.systemUTC(),
        new PrintWriter(new StringWriter(), true), new PrintWriter(err, true));
    assertThat(code).isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString()).contains("Did you mean: list?");
  }
}
