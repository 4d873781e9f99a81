package dev.tierlock.cli;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code install-staging}: the journals of installs that did not finish, and staging leftovers
 * without a journal, under {@code extensions/.tierlock-staging}.
 */
final class InstallStagingCheck implements DoctorCheck {

  static final String NAME = "install-staging";

  /** The install engine's staging directory under {@code extensions/}. */
  static final String STAGING = ".tierlock-staging";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public DoctorFinding run(DoctorContext doctor) {
    Path staging = doctor.checkout().resolve(ExtensionsCommands.EXTENSIONS).resolve(STAGING);
    if (!Files.isDirectory(staging)) {
      return DoctorFinding.ok(NAME, "none (" + staging + " absent)");
    }
    List<String> journals = new ArrayList<>();
    List<String> others = new ArrayList<>();
    try (DirectoryStream<Path> children = Files.newDirectoryStream(staging)) {
      for (Path child : children) {
        String id = child.getFileName().toString();
        Path journal = child.resolve("journal.json");
        if (Files.isRegularFile(journal)) {
          journals.add(id + " (" + journalSummary(doctor, journal) + ")");
        } else {
          others.add(id);
        }
      }
    } catch (IOException e) {
      return DoctorFinding.warn(NAME, staging + " cannot be listed (" + e.getMessage() + ")", null, null);
    }
    String leftovers = others.isEmpty() ? "" : others.size() + " staging leftover(s) without a journal ("
        + String.join(", ", others.stream().sorted().toList()) + "), swept by an install once an hour old";
    if (!journals.isEmpty()) {
      journals.sort(null);
      return DoctorFinding.warn(NAME, staging + ": " + journals.size() + " journal(s) of installs that did not finish: "
          + String.join(", ", journals) + (leftovers.isEmpty() ? "" : "; " + leftovers),
          "unless an install is running on this checkout now, the next 'tierlock install' or 'tierlock remove' here"
              + " finishes or rolls them back", null);
    }
    return DoctorFinding.ok(NAME, staging + ": " + (leftovers.isEmpty() ? "empty" : leftovers));
  }

  private static String journalSummary(DoctorContext doctor, Path journal) {
    String age;
    try {
      age = doctor.ago(Files.getLastModifiedTime(journal).toInstant());
    } catch (IOException e) {
      age = "age unknown";
    }
    try {
      if (Json.parse(Files.readAllBytes(journal)) instanceof Map<?, ?> members
          && members.get("extensionName") instanceof String name) {
        return name + (members.get("phase") instanceof String phase ? ", phase " + phase : "") + ", " + age;
      }
      return "a journal recovery cannot judge, " + age;
    } catch (IOException | IllegalArgumentException e) {
      return "journal unreadable: " + e.getMessage() + ", " + age;
    }
  }
}
