package dev.tierlock.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Spec;

/** {@code tierlock options}: the global options every command takes, listed once. */
@Command(name = "options", mixinStandardHelpOptions = true,
    description = "Lists the global options every command takes (before or after the command), and where else each"
        + " can come from.")
final class OptionsCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    CommandSpec root = spec.root();
    CommandLine.Help help = new CommandLine.Help(root, CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.OFF));
    List<OptionSpec> global = new ArrayList<>();
    for (OptionSpec option : root.options()) {
      if (option.scopeType() == CommandLine.ScopeType.INHERIT && !option.usageHelp() && !option.versionHelp()) {
        global.add(option);
      }
    }
    PrintWriter out = spec.commandLine().getOut();
    out.println("Global options (before or after the command):");
    out.print(help.optionListExcludingGroups(global, help.createDefaultLayout(), null, help.createDefaultParamLabelRenderer()));
    out.println();
    out.println("Each can also come from its TIERLOCK_* variable (TIERLOCK_DATASTORE, TIERLOCK_CHECKOUT, TIERLOCK_NAMESPACE,");
    out.println("TIERLOCK_TIMEOUT), the checkout's .tierlock.toml or ~/.config/tierlock/config.toml, in that order after");
    out.println("the flag; 'tierlock doctor' shows where each came from.");
    out.flush();
    return ExitCodes.OK;
  }
}
