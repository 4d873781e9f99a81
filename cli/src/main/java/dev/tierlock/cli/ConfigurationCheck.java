package dev.tierlock.cli;

import java.util.stream.Collectors;

/**
 * {@code configuration}: each global setting and where it came from (flag, environment variable,
 * configuration file or default), in the order they take precedence.
 */
final class ConfigurationCheck implements DoctorCheck {

  static final String NAME = "configuration";

  private final Settings settings;

  ConfigurationCheck(Settings settings) {
    this.settings = settings;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public DoctorFinding run(DoctorContext doctor) {
    return DoctorFinding.ok(NAME, settings.all().stream()
        .map(v -> v.key() + "=" + v.value().orElse("(default)") + " (" + v.source() + ")")
        .collect(Collectors.joining(", ")) + "; precedence: flag > TIERLOCK_* variable > the checkout's "
        + Settings.CHECKOUT_FILE + " > tierlock/config.toml in the user's configuration directory > default");
  }
}
