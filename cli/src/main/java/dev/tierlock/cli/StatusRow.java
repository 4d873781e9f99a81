package dev.tierlock.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileDelta;
import dev.tierlock.LockfileEntry;
import dev.tierlock.PendingChange;
import dev.tierlock.Tierlock;
import dev.tierlock.install.ConvergeStatus;
import dev.tierlock.install.InstalledExtension;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One row of a table of extensions, as {@code installed} and {@code status} print it (in {@link
 * Table#EXTENSIONS}' order) and as their {@code --json} writes it: the name, the version the shared
 * lockfile pins, the version installed, the state in words, and a detail.
 *
 * @param name the extension
 * @param pinned the version the shared lockfile pins, if any
 * @param installed the version in {@code extensions/}, if any
 * @param state the state, spelled as the text prints it
 * @param detail why, or what next; empty if nothing
 * @param nextAttempt when a pending restore is tried again, if it is pending
 * @param localChange the version a change of this checkout, saved locally and not known to be
 *     published, sets ({@code "removal"} for a removal), if there is one
 */
record StatusRow(ExtensionName name, Optional<String> pinned, Optional<String> installed, String state, String detail,
    Optional<String> nextAttempt, Optional<String> localChange) {

  /** The state of an extension whose entry this checkout changed locally, not yet known to be published. */
  static final String PENDING_PUBLISH = "pending publish";

  /**
   * The rows of {@code status}: one per status, but an entry this checkout's pending change touches
   * is {@link #PENDING_PUBLISH}, with what the shared lockfile pins (read once more, only then), not
   * the pending value, as pinned.
   */
  static List<StatusRow> of(List<ConvergeStatus> statuses, Tierlock tierlock) {
    Optional<LockfileDelta> local = tierlock.transaction().pending().map(PendingChange::delta);
    Lockfile shared = local.isPresent() ? tierlock.snapshot() : Lockfile.EMPTY;
    List<StatusRow> rows = new ArrayList<>();
    for (ConvergeStatus s : statuses) {
      if (local.isPresent() && local.get().touches(s.name())) {
        String change = local.get().target(s.name()).map(LockfileEntry::version).orElse("removal");
        rows.add(new StatusRow(s.name(), shared.entry(s.name()).map(LockfileEntry::version), s.installed(),
            PENDING_PUBLISH, "saved locally, not yet published: " + (change.equals("removal") ? "its removal"
                : change) + " (tierlock pending show)", Optional.empty(), Optional.of(change)));
        continue;
      }
      String detail = s.state() == ConvergeStatus.State.PENDING
          ? "next attempt " + s.nextAttempt().map(Object::toString).orElse("-") + s.reason().map(w -> ": " + w).orElse("")
          : s.reason().orElse("");
      rows.add(new StatusRow(s.name(), s.pinned(), s.installed(), JsonReport.words(s.state()), detail,
          s.nextAttempt().map(Object::toString), Optional.empty()));
    }
    return rows;
  }

  /** The row of {@code installed} for {@code e}. */
  static StatusRow of(InstalledExtension e) {
    return new StatusRow(e.name(), e.entry().map(LockfileEntry::version), e.installedVersion(),
        JsonReport.words(e.state()), "", Optional.empty(), Optional.empty());
  }

  /** {@return the row's cells, in {@link Table#EXTENSIONS}' order} */
  String[] cells() {
    return new String[] {name.toString(), pinned.orElse("-"), installed.orElse("-"), state, detail};
  }

  /** Writes the row as one JSON object: name, pinned, installed, state, detail, nextAttempt, localChange. */
  void json(JsonGenerator g) throws IOException {
    g.writeStartObject();
    g.writeStringField("name", name.toString());
    JsonReport.optional(g, "pinned", pinned);
    JsonReport.optional(g, "installed", installed);
    g.writeStringField("state", state);
    JsonReport.optional(g, "detail", Optional.of(detail).filter(d -> !d.isEmpty()));
    JsonReport.optional(g, "nextAttempt", nextAttempt);
    JsonReport.optional(g, "localChange", localChange);
    g.writeEndObject();
  }
}
