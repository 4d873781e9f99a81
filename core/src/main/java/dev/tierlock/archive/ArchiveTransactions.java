package dev.tierlock.archive;

import dev.tierlock.ExtensionName;
import dev.tierlock.LockfileEntry;
import dev.tierlock.Tierlock;
import dev.tierlock.TransactionContext;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Installs, updates, removes and restores extension archives together with the shared lockfile of
 * one checkout ({@link Tierlock}): the lockfile says which bytes, the archive store holds them.
 *
 * <pre>{@code
 * ArchiveTransactions archives = ArchiveTransactions.of(tierlock);
 * VerifiedArchive verified = archives.verify(key, downloaded);          // outside any lock
 * tierlock.transaction().run(tx -> archives.install(tx, verified, entry)); // archive, then entry
 * // on a peer, with nothing but the datastore reachable:
 * archives.restore(key.name(), stagingDirectory);
 * }</pre>
 *
 * <p><b>One way for archive bytes to reach the tier.</b> Inside a transaction as outside, archive
 * bytes reach the tier only through the archive store's create-only write ({@link
 * ArchiveStore#store}); the transaction publishes no archive file of its own, only the lockfile. It
 * is the mechanism that keeps every invariant:
 *
 * <ul>
 *   <li><em>The lockfile never references bytes the tier lacks.</em> {@link #install} writes the
 *       archive, and has it confirmed present (created, or already there with the same size), before
 *       it writes the entry that pins it. A write that fails throws before the entry exists, so no
 *       lockfile, published now or replayed later, pins that archive. Nothing in the commit path
 *       deletes an archive, and a collection ({@link dev.tierlock.ArchiveCollector}) that took it
 *       before the publish finds the pin's mark changed and stores it back, or the writer finds it
 *       missing after its publish and stores it again.
 *   <li><em>A failed publish never loses the archive.</em> When the lockfile publish fails after
 *       the archive landed, the archive stays in the tier, and the pending record has only the
 *       lockfile change to replay. No replay depends on a local file surviving until the next run.
 *   <li><em>One upload path, verified.</em> The bytes are hashed again just before the write, an
 *       object already under the key counts only if it has the same size (another one is replaced
 *       conditionally), and the object records its digest. A generic upload of a cache file could do
 *       none of that.
 *   <li><em>Internal files never travel.</em> The only object written is the key's own tier path,
 *       built from a validated key (a tier path refuses internal names), holding bytes the store
 *       verified and moved into its cache itself.
 *   <li><em>No archive is deleted on the strength of a lease.</em> An archive that {@link #install}
 *       supersedes or {@link #remove} unpins stays in the tier; a collection ({@link
 *       dev.tierlock.ArchiveCollector}) deletes it once no lockfile version within the retention
 *       window pins it and it is older than the window, so a peer that pins it again (a rollback,
 *       even by a process that took a lease over from a live holder) always finds it.
 *   <li><em>Every datastore is the same code.</em> A filesystem datastore's objects are the shared
 *       directory, so the same create-only write puts the archive there, atomically, before the
 *       lockfile that pins it is published.
 * </ul>
 *
 * <p>The cost: an archive write that fails fails the change, whatever the publish-failure policy
 * (nothing was published; run the install again); superseded archives take space until a
 * collection runs ({@code tierlock gc}).
 *
 * <p>Thread-safe. The methods taking a {@link TransactionContext} run on that transaction's thread,
 * while its change runs.
 */
public final class ArchiveTransactions {

  private final DatastoreArchiveStore store;
  private final TarGzReader reader;
  private final Tierlock tierlock;

  private ArchiveTransactions(DatastoreArchiveStore store, Tierlock tierlock) {
    this.store = store;
    this.reader = TarGzReader.of(store.limits());
    this.tierlock = tierlock;
  }

  /**
   * {@return the archives of {@code tierlock} with {@link ArchiveLimits#DEFAULTS}, timing reads on
   * the system clock}
   *
   * @param tierlock the Tierlock instance whose datastore, namespace and cache the archives use
   * @see #of(Tierlock, ArchiveLimits, Clock)
   */
  public static ArchiveTransactions of(Tierlock tierlock) {
    return of(tierlock, ArchiveLimits.DEFAULTS, Clock.systemUTC());
  }

  /**
   * {@return the archives of {@code tierlock}: a store over its datastore and namespace, caching in
   * its cache directory (beside the cached lockfile, laid out like the tier)}
   *
   * @param tierlock the Tierlock instance whose datastore, namespace and cache the archives use
   * @param limits the caps every verify, write, read and extraction applies
   * @param clock the clock read deadlines are measured on
   */
  public static ArchiveTransactions of(Tierlock tierlock, ArchiveLimits limits, Clock clock) {
    DatastoreArchiveStore store = new DatastoreArchiveStore(tierlock.datastore(), tierlock.namespace(),
        tierlock.cacheDirectory(), limits, clock);
    return new ArchiveTransactions(store, tierlock);
  }

  /** {@return the archive store underneath, for reads and for writes outside a transaction} */
  public ArchiveStore store() {
    return store;
  }

  /** {@return the caps applied} */
  public ArchiveLimits limits() {
    return store.limits();
  }

  /**
   * Verifies an archive before any lock is taken: copies {@code file} into the store's cache
   * (atomically, only if its SHA-256 is the key's), then lists it, checking every cap and entry
   * rule. Writes nothing to the datastore.
   *
   * @param key the archive's key (the extension name and the expected SHA-256)
   * @param file the archive's bytes; read once, not modified
   * @return the archive, ready for {@link #install}
   * @throws ArchiveException ({@code archive_tampered}) if the bytes do not match the key (nothing cached)
   * @throws ArchiveException ({@code archive_limit}) if the archive is over a cap (nothing left cached)
   * @throws ArchiveException ({@code archive_rejected}) if an entry is hostile or unsupported (nothing left cached)
   * @throws ArchiveException ({@code archive_corrupt}) if the archive is not a well-formed tar.gz (nothing left cached)
   * @throws ArchiveException ({@code archive_io}) if {@code file} or the cache cannot be read or written
   * @throws ArchiveException ({@code archive_cancelled}) if the thread was interrupted
   */
  public VerifiedArchive verify(ExtensionArchiveKey key, Path file) {
    long size = store.stage(key, file);
    Path staged = store.cachePath(key);
    ArchiveListing listing;
    try (InputStream in = Files.newInputStream(staged)) {
      listing = reader.list(in, key.toString());
    } catch (IOException e) {
      ArchiveException failure = ArchiveException.io(key.toString(), "Cannot verify archive " + key + " at "
          + staged + ": " + e.getMessage(), e);
      throw discarding(key, failure);
    } catch (ArchiveException e) {
      throw discarding(key, e);
    }
    return new VerifiedArchive(key, staged, size, listing);
  }

  /**
   * Extracts the local archive {@code archive} into {@code staging}, within this instance's caps,
   * in one streaming pass: for an archive this checkout fetched itself, such as a registry's
   * download (an archive the lockfile pins is restored with {@link #restore}). It reads nothing from
   * the datastore and checks no digest. The whole archive is refused when an entry is hostile or
   * unsupported: a name that is empty, absolute, holds {@code ..}, a backslash or a control
   * character, or is not UTF-8; a link that escapes the root, directly or through other links; an
   * entry under a link or a file; a hard link to anything but an earlier regular file; a device, a
   * FIFO, a sparse entry; a duplicate path. Bytes are counted as gzip yields them, never as headers
   * claim, and trailing data is refused. Extraction never follows a link and creates symbolic links
   * last, once every check has passed; permission bits are kept where the filesystem has them.
   *
   * @param archive the {@code .tar.gz} file; read once, not modified; it names the archive in errors
   * @param staging where to extract: a directory that does not exist (its parent must) or is empty
   * @return the entries written
   * @throws ArchiveException {@code archive_rejected}, {@code archive_limit} or {@code
   *     archive_corrupt} if the archive is refused, {@code archive_io} if a read or write fails,
   *     {@code archive_cancelled} if the thread was interrupted; in every case nothing written is left
   *     behind
   */
  public ArchiveListing extract(Path archive, Path staging) {
    return reader.extract(archive, staging);
  }

  /**
   * Installs or updates an extension in the running transaction: writes the archive to the tier
   * create-only (after hashing its staged copy again), then sets the name's entry to {@code entry}
   * with {@code checksum} set to the archive's SHA-256; an archive the entry it replaces pinned is
   * left in the tier for a collection. The transaction publishes the lockfile after the change
   * returns, so after the archive is in the tier, and proves it present again after the publish.
   *
   * @param tx the running transaction
   * @param archive what {@link #verify} returned, on this instance
   * @param entry the entry to write; its {@code checksum}, if set, must be the archive's SHA-256
   * @return what the write did ({@link ArchiveChange.Outcome#CREATED}, {@link
   *     ArchiveChange.Outcome#ALREADY_PRESENT} or {@link ArchiveChange.Outcome#REPLACED})
   * @throws IllegalArgumentException if the entry's checksum is another digest, or {@code archive}
   *     was verified by another store; nothing changed
   * @throws IllegalStateException if {@code tx}'s change has returned; nothing changed
   * @throws ArchiveException ({@code archive_tampered}) if the staged copy changed since it was verified (it is
   *     removed); nothing was written
   * @throws ArchiveException ({@code archive_io}) if the staged copy is gone or unreadable; nothing was written
   * @throws dev.tierlock.spi.DatastoreException if the archive write fails; the entry was not written
   * @throws dev.tierlock.TierlockException as {@link TransactionContext#put} does
   */
  public ArchiveChange install(TransactionContext tx, VerifiedArchive archive, LockfileEntry entry) {
    ExtensionArchiveKey key = archive.key();
    LockfileEntry pinned = pin(key, entry);
    if (!archive.path().equals(store.cachePath(key))) {
      throw new IllegalArgumentException("Cannot install archive " + key + ": it was verified at " + archive.path()
          + ", not by this archive store (" + store.cachePath(key) + ")");
    }
    AtomicReference<ArchiveChange> stored = new AtomicReference<>();
    tx.run(inner -> {
      stored.set(store.storeStaged(key));
      inner.requireStored(key.tierPath(), () -> store.storeStaged(key));
      inner.put(key.name(), pinned);
    });
    return stored.get();
  }

  /**
   * Removes an extension in the running transaction: removes the name's entry; an archive it
   * pinned is left in the tier for a collection ({@link dev.tierlock.ArchiveCollector}).
   *
   * @param tx the running transaction
   * @param name the extension
   * @return the archive the entry pinned; empty when the lockfile has no entry for {@code name} (nothing
   *     changes) or the entry pins no archive
   * @throws IllegalStateException if {@code tx}'s change has returned; nothing changed
   * @throws dev.tierlock.TierlockException as {@link TransactionContext#remove} does
   */
  public Optional<ExtensionArchiveKey> remove(TransactionContext tx, ExtensionName name) {
    AtomicReference<Optional<ExtensionArchiveKey>> removed = new AtomicReference<>(Optional.empty());
    tx.run(inner -> inner.remove(name).ifPresent(entry -> {
      removed.set(entry.checksum().map(checksum -> ExtensionArchiveKey.of(name, checksum)));
    }));
    return removed.get();
  }

  /**
   * Restores what the shared lockfile pins for {@code name}: reads the shared lockfile as it is now
   * ({@link Tierlock#snapshot()}: no lock, nothing written), then restores its entry as {@link
   * #restore(ExtensionName, LockfileEntry, Path)} does.
   *
   * @param name the extension to restore
   * @param staging where to extract: a directory that does not exist (its parent must) or is empty
   * @return what was extracted; empty when the shared lockfile has no entry for {@code name}
   * @throws ArchiveException ({@code archive_missing}) if the entry pins no archive or the tier lacks it
   * @throws ArchiveException ({@code archive_tampered}) if the tier's bytes do not match the entry's checksum
   * @throws ArchiveException if the archive is refused or cannot be extracted
   * @throws dev.tierlock.TierlockException as {@link Tierlock#snapshot()} does
   */
  public Optional<RestoredArchive> restore(ExtensionName name, Path staging) {
    return tierlock.snapshot().entry(name).map(e -> restore(name, e, staging));
  }

  /**
   * Restores the archive {@code entry} pins, from the tier alone (never a registry): reads it by
   * its checksum (the verified cache copy, or the one object downloaded and hashed while it
   * streams), then extracts it into {@code staging}, which must not exist (its parent must) or be
   * an empty directory.
   *
   * @param name the extension
   * @param entry its lockfile entry
   * @param staging a fresh staging directory
   * @return what was extracted
   * @throws ArchiveException ({@code archive_missing}) if {@code entry} has no checksum or the tier lacks the archive;
   *     nothing was written
   * @throws ArchiveException ({@code archive_tampered}) if the tier's bytes do not match the checksum; nothing was
   *     cached or extracted
   * @throws ArchiveException if the archive is refused or cannot be extracted; nothing written is
   *     left behind
   * @throws dev.tierlock.spi.DatastoreException if the datastore fails
   */
  public RestoredArchive restore(ExtensionName name, LockfileEntry entry, Path staging) {
    String checksum = entry.checksum().orElseThrow(() -> ArchiveException.missing(name.value(),
        "its lockfile entry has no checksum, so it pins no archive"));
    ExtensionArchiveKey key = ExtensionArchiveKey.of(name, checksum);
    ArchiveFile file = store.read(key).orElseThrow(() -> ArchiveException.missing(key.toString(),
        "the lockfile pins it but the tier holds no object at " + key.tierPath()));
    ArchiveListing listing = reader.extract(file.path(), staging);
    return new RestoredArchive(key, staging, listing, file.origin());
  }

  private static LockfileEntry pin(ExtensionArchiveKey key, LockfileEntry entry) {
    Optional<String> checksum = entry.checksum();
    if (checksum.isEmpty()) {
      return entry.toBuilder().checksum(key.sha256()).build();
    }
    if (!checksum.get().equals(key.sha256())) {
      throw new IllegalArgumentException("Cannot install archive " + key + ": the entry's checksum " + checksum.get()
          + " is not the archive's SHA-256");
    }
    return entry;
  }

  private ArchiveException discarding(ExtensionArchiveKey key, ArchiveException failure) {
    try {
      store.discardStaged(key);
    } catch (ArchiveException e) {
      failure.addSuppressed(e);
    }
    return failure;
  }
}
