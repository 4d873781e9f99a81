package dev.tierlock.cli;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.UsageMessageSpec;

/**
 * The layout of every command's help, set in one place: a command's own options only (the global
 * ones, which every command inherits, are listed once by {@code tierlock options}, and named in one
 * line), an {@code Examples:} section, and the exit codes.
 */
final class HelpLayout {

  /** The examples of each command, by its name as typed after {@code tierlock}. */
  static final Map<String, List<String>> EXAMPLES = examples();

  /** The line that stands for the global options in a command's help. */
  static final String GLOBAL = "Global options: --datastore, --checkout, --namespace, --timeout, -v: see 'tierlock"
      + " options'.";

  private HelpLayout() {}

  private static Map<String, List<String>> examples() {
    Map<String, List<String>> e = new LinkedHashMap<>();
    e.put("init", List.of("tierlock init --datastore /srv/tier", "tierlock init --datastore s3://team-tier/prod?region=eu-west-1"));
    e.put("entries", List.of("tierlock entries list", "tierlock entries put @acme/hello 1.0.0 --checksum sha256:<64 hex>"));
    e.put("entries list", List.of("tierlock entries list", "tierlock entries list --no-headers | cut -f1",
        "tierlock entries list --raw > lockfile.json"));
    e.put("entries show", List.of("tierlock entries show @acme/hello", "tierlock entries show @acme/hello --json"));
    e.put("entries put", List.of("tierlock entries put @acme/hello 1.0.0", "tierlock -v entries put @acme/hello 1.0.1",
        "tierlock entries put @acme/hello 1.1.0 --checksum sha256:<64 hex> --channel beta"));
    e.put("entries remove", List.of("tierlock entries rm @acme/hello", "tierlock entries rm @acme/old --ignore-not-found"));
    e.put("install", List.of("tierlock install @acme/tool@^1 --registry /srv/registry", "tierlock install @acme/tool",
        "tierlock install --registry /srv/registry"));
    e.put("remove", List.of("tierlock remove @acme/tool", "tierlock remove @acme/old --ignore-not-found"));
    e.put("installed", List.of("tierlock installed", "tierlock installed --no-headers", "tierlock installed --json"));
    e.put("converge", List.of("tierlock converge", "tierlock converge --json"));
    e.put("status", List.of("tierlock status", "tierlock status --no-headers", "tierlock status --json"));
    e.put("watch", List.of("tierlock watch --interval 30s"));
    e.put("lock", List.of("tierlock lock status", "tierlock lock release --nonce <nonce>"));
    e.put("lock status", List.of("tierlock lock status", "tierlock lock status --json"));
    e.put("lock release", List.of("tierlock lock release --nonce 6f1c0e2a"));
    e.put("pending", List.of("tierlock pending show", "tierlock pending apply", "tierlock pending discard"));
    e.put("pending show", List.of("tierlock pending show", "tierlock pending show --json"));
    e.put("pending apply", List.of("tierlock pending apply"));
    e.put("pending discard", List.of("tierlock pending show && tierlock pending discard"));
    e.put("doctor", List.of("tierlock doctor", "tierlock doctor --json", "tierlock doctor --self-check"));
    e.put("completion", List.of("tierlock completion bash > /etc/bash_completion.d/tierlock",
        "tierlock completion zsh > ~/.zsh/tierlock.zsh   # then source it in ~/.zshrc"));
    e.put("options", List.of("tierlock options"));
    e.put("help", List.of("tierlock help entries put"));
    e.put("gc", List.of("tierlock gc", "tierlock gc --apply --retention 14d", "tierlock gc --json"));
    return e;
  }

  /** Lays out the help of every command under {@code root}, however deep. */
  static void apply(CommandLine root) {
    Map<String, String> exitCodes = root.getCommandSpec().usageMessage().exitCodeList();
    Set<CommandLine> done = Collections.newSetFromMap(new IdentityHashMap<>());
    for (CommandLine sub : root.getSubcommands().values()) {
      apply(sub, exitCodes, done);
    }
  }

  private static void apply(CommandLine command, Map<String, String> exitCodes, Set<CommandLine> done) {
    if (!done.add(command)) {
      return; // a command is listed once under each of its names (rm and remove)
    }
    UsageMessageSpec usage = command.getCommandSpec().usageMessage();
    usage.abbreviateSynopsis(true);
    usage.sectionMap().put(UsageMessageSpec.SECTION_KEY_OPTION_LIST, help -> {
      List<OptionSpec> own = new ArrayList<>();
      for (OptionSpec option : help.commandSpec().options()) {
        if (!option.inherited() && !option.hidden()) {
          own.add(option);
        }
      }
      return help.optionListExcludingGroups(own, help.createDefaultLayout(), null, help.createDefaultParamLabelRenderer())
          + "  " + GLOBAL + "\n";
    });
    String name = command.getCommandSpec().qualifiedName(" ").replaceFirst("^tierlock ", "");
    List<String> examples = EXAMPLES.get(name);
    List<String> footer = new ArrayList<>();
    if (examples != null) {
      footer.add("%nExamples:");
      examples.forEach(example -> footer.add("  " + example.replace("%", "%%")));
    }
    footer.addAll(List.of(usage.footer()));
    usage.footer(footer.toArray(String[]::new));
    if (usage.exitCodeList().isEmpty()) {
      usage.exitCodeListHeading("%nExit codes:%n");
      usage.exitCodeList(exitCodes);
    }
    for (CommandLine sub : command.getSubcommands().values()) {
      apply(sub, exitCodes, done);
    }
  }
}
