package dev.tierlock.examples;

import dev.tierlock.CommitMode;
import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import dev.tierlock.PendingChange;
import dev.tierlock.Tierlock;
import dev.tierlock.TransactionResult;
import dev.tierlock.archive.ArchiveTransactions;
import dev.tierlock.archive.ExtensionArchiveKey;
import dev.tierlock.archive.VerifiedArchive;
import dev.tierlock.install.Catalog;
import dev.tierlock.install.ConvergePoller;
import dev.tierlock.install.ConvergeReport;
import dev.tierlock.install.Converger;
import dev.tierlock.install.ExtensionLayout;
import dev.tierlock.install.ExtensionRegistry;
import dev.tierlock.install.InstallRequest;
import dev.tierlock.install.InstallResult;
import dev.tierlock.install.Installer;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The README's examples, compiled and run by {@code ReadmeExamplesTest}, which also checks that
 * the README quotes each region between its {@code README:} markers exactly.
 */
final class ReadmeExamples {

  private ReadmeExamples() {}

  static void putAnEntry(URI datastore, Path checkout, String sha256) {
    // README:start put
    try (Tierlock tierlock = Tierlock.builder()
        .datastore(datastore)              // s3://bucket/prefix, gs://bucket/prefix, file:///srv/tier, ...
        .checkout(checkout)                // its .swamp/ state directory holds locks and pending changes
        .build()) {
      ExtensionName hello = ExtensionName.of("@acme/hello");
      TransactionResult result = tierlock.transaction().run(tx -> {
        tx.entry(hello).ifPresent(old -> System.out.println("was " + old.version()));  // fetched just now
        tx.put(hello, LockfileEntry.builder("1.0.0", Instant.now()).checksum(sha256).build());
        tx.remove(ExtensionName.of("@acme/legacy"));
      });
      System.out.println(result.status() + ": " + result.delta());  // PUBLISHED, NO_CHANGE or DEFERRED
    }
    // README:end
  }

  static TransactionResult commitLocked(URI datastore, Path checkout) {
    // README:start modes
    try (Tierlock tierlock = Tierlock.builder()
        .datastore(datastore)
        .checkout(checkout)
        .commitMode(CommitMode.LOCKED)   // only while the original tool writes beside it for good
        .build()) {
      return tierlock.transaction().run(tx -> tx.put(ExtensionName.of("@acme/hello"),
          LockfileEntry.builder("1.0.1", Instant.now()).channel("beta").build()));
    }
    // README:end
  }

  static Lockfile readWithoutALock(Tierlock tierlock) {
    // README:start read
    Lockfile now = tierlock.snapshot();            // one read, no lock, nothing written
    now.entry(ExtensionName.of("@acme/hello")).ifPresent(e -> System.out.println(e.version()));
    now.foreign().forEach(f -> System.out.println("kept as is: " + f.name() + " (" + f.reason() + ")"));
    // README:end
    return now;
  }

  static Optional<PendingChange> resolveAChangeInDoubt(Tierlock tierlock) {
    // README:start pending
    Optional<PendingChange> pending = tierlock.transaction().pending();
    if (pending.isPresent() && pending.get().blocksTransactions()) {
      // its write went unanswered and the lineage cannot tell whether it landed: decide
      tierlock.transaction().reapplyPending();      // sets again the entries still at their old value
      // or: tierlock.transaction().discardPending();
    }
    // README:end
    return pending;
  }

  static void installAnArchive(Tierlock tierlock, ExtensionArchiveKey key, Path downloaded, LockfileEntry entry,
      Path staging) {
    // README:start archives
    ArchiveTransactions archives = ArchiveTransactions.of(tierlock);
    VerifiedArchive verified = archives.verify(key, downloaded);              // no lock held
    tierlock.transaction().run(tx -> archives.install(tx, verified, entry));  // archive into the tier, then the entry
    archives.restore(key.name(), staging);                                    // on any peer, from the tier alone
    // README:end
  }

  static void installAnExtension(Tierlock tierlock, ExtensionLayout layout, Path registryDirectory, Catalog catalog) {
    // README:start install
    Installer installer = Installer.builder(tierlock, layout)
        .registry(ExtensionRegistry.directory(registryDirectory))  // or your own ExtensionRegistry
        .build();
    InstallResult result = installer.install(InstallRequest.parse("@acme/tool@^1.2"), catalog);
    result.installed().forEach(m -> System.out.println(m.name() + "@" + m.version()));
    installer.remove(ExtensionName.of("@acme/old"), catalog);   // catalog, then lockfile, then files
    // README:end
  }

  static ConvergePoller convergeACheckout(Tierlock tierlock, ExtensionLayout layout, Runnable reloadExtensions) {
    // README:start converge
    Converger converger = Converger.builder(tierlock, layout).build();
    ConvergeReport report = converger.converge();   // from the tier alone: no registry, nothing written remotely
    report.restored().forEach(name -> System.out.println("restored " + name));
    report.unrestorable().forEach(u -> System.out.println(u.name() + ": " + u.reason() + " (" + u.detail() + ")"));

    // a server: one conditional read per interval; a pass and a reload only when the lockfile changed
    ConvergePoller poller = converger.poller(ConvergePoller.Options.builder(changed -> reloadExtensions.run())
        .interval(Duration.ofSeconds(30))
        .build()).start();                          // close() it on shutdown
    // README:end
    return poller;
  }
}
