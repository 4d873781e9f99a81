package com.example.tierlock.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.ExtensionName;
import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Tierlock;
import java.net.URI;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The guide's usage of the example store, as the guide shows it: opened by its scheme, through its provider. */
class MemoryDatastoreProviderTest {

  @Test
  void theGuidesUsage_opensTheStoreByItsScheme_checksIt_andItsLockfileIsShared(@TempDir Path checkout,
      @TempDir Path peer) {
    ExtensionName name = ExtensionName.of("@acme/tool");
    LockfileEntry entry = LockfileEntry.builder("1.0.0", "2026-01-01T00:00:00.000Z").build();

    try (Tierlock tierlock = Tierlock.builder()
        .datastore(URI.create("mem://team"))      // found through MemoryDatastoreProvider
        .checkout(checkout)                        // the checkout's directory
        .build()) {
      tierlock.checkDatastore();                   // the self-check, now rather than before the first write
      tierlock.transaction().run(tx -> tx.put(name, entry));
      Lockfile shared = tierlock.snapshot();
      assertThat(shared.entry(name)).contains(entry);
    }

    try (Tierlock other = Tierlock.builder().datastore(URI.create("mem://team")).checkout(peer).build()) {
      assertThat(other.snapshot().entry(name)).as("another checkout of the same bucket").contains(entry);
    }
  }
}
