package dev.tierlock.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code tierlock help [COMMAND...]}: the help of any command, however deep ({@code tierlock help
 * entries put}); an unknown name is a usage error that suggests the names it is close to.
 */
@Command(name = "help", helpCommand = true, description = "Shows the help of a command, e.g. 'tierlock help entries put'.")
final class HelpCommand implements Runnable {

  @Parameters(paramLabel = "COMMAND", arity = "0..*", description = "The command, and subcommands, to show.")
  List<String> names = new ArrayList<>();

  @Spec CommandSpec spec;

  @Override
  public void run() {
    CommandLine target = spec.parent().commandLine();
    List<String> path = new ArrayList<>();
    for (String name : names) {
      Map<String, CommandLine> subcommands = target.getSubcommands();
      CommandLine next = subcommands.get(name);
      if (next == null) {
        String where = path.isEmpty() ? "tierlock" : "tierlock " + String.join(" ", path);
        List<String> close = subcommands.keySet().stream().filter(s -> !s.equals("help")
            && (s.startsWith(name.substring(0, 1)) || s.contains(name) || name.contains(s))).toList();
        throw new CommandLine.ParameterException(spec.commandLine(), "Unknown command '" + name + "' of '" + where + "'"
            + (close.isEmpty() ? "; its commands are " + String.join(", ", subcommands.keySet())
                : "; did you mean " + String.join(" or ", close) + "?"));
      }
      path.add(name);
      target = next;
    }
    PrintWriter out = spec.commandLine().getOut();
    target.usage(out);
    out.flush();
  }
}
