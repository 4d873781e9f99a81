package dev.tierlock.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code tierlock completion bash|zsh}: the shell completion script of every command and option,
 * generated from the command line itself (so it never lags behind it).
 */
@Command(name = "completion", mixinStandardHelpOptions = true,
    description = {"Prints the shell completion script of every command and option.",
      "bash: source <(tierlock completion bash), or save it in /etc/bash_completion.d/tierlock.",
      "zsh: source <(tierlock completion zsh) in ~/.zshrc (it loads bashcompinit)."})
final class CompletionCommand implements Callable<Integer> {

  /** The shells a script is made for. */
  enum Shell { bash, zsh }

  @Parameters(index = "0", paramLabel = "SHELL", description = "bash or zsh.")
  Shell shell;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    // no command named: every command, with every subcommand
    CommandLine whole = TierlockCli.commandLine(new String[0],
        new TierlockCli(Map.of(), Clock.systemUTC(), new PrintWriter(new StringWriter())));
    String script = AutoComplete.bash("tierlock", whole);
    PrintWriter out = spec.commandLine().getOut();
    if (shell == Shell.zsh) {
      out.println("autoload -U +X compinit && compinit");
      out.println("autoload -U +X bashcompinit && bashcompinit");
    }
    out.print(script);
    out.flush();
    return ExitCodes.OK;
  }
}
