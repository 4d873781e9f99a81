package dev.tierlock.benchmarks;

import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileEntry;

/** One writer's way to commit a change to the shared lockfile: returns once it is acknowledged, or throws. */
interface Committer {

  /** Sets {@code name} to {@code entry} in the shared lockfile. */
  void put(ExtensionName name, LockfileEntry entry);

  /** Removes {@code name} from the shared lockfile. */
  void remove(ExtensionName name);
}
