package dev.tierlock.archive;

import dev.tierlock.Namespace;
import dev.tierlock.spi.Datastore;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * The archives of the config tier, addressed by {@link ExtensionArchiveKey}: the lockfile says
 * which extension bytes a checkout needs, this store holds the bytes, verified by SHA-256 on every
 * read and every store. A checkout's own store is {@link ArchiveTransactions#store()}; {@link #over}
 * makes one over any datastore.
 *
 * <p><b>Order with the lockfile.</b> A writer stores an archive <em>before</em> it publishes a
 * lockfile that references it (the lockfile must never pin bytes the tier lacks), and never
 * deletes one: archives leave the tier only through a collection by reachability ({@link
 * dev.tierlock.ArchiveCollector}, {@code tierlock gc}). The store cannot see the lockfile: {@link
 * ArchiveTransactions} keeps that order inside a {@link dev.tierlock.LockfileTransaction}, through
 * this same store; call {@link #store} directly only outside a transaction (a backfill).
 *
 * <p><b>Failures.</b> {@link ArchiveException}s with the codes documented per method, and the {@link
 * dev.tierlock.spi.DatastoreException}s of the datastore calls (every one bounded by its backend's
 * deadline). After any failure, the cache holds no unverified bytes.
 *
 * <p>Implementations are thread-safe, and safe to share one datastore between many stores and
 * processes, each with its own cache.
 */
public interface ArchiveStore {

  /**
   * Returns a store over {@code datastore}, keyed under {@code namespace} ({@code
   * <ns>/config/pulled-archives/<name>/<sha256>.tar.gz}), caching verified archives under {@code
   * cacheRoot} laid out like the tier ({@link dev.tierlock.Namespace#localPath}): for archives
   * outside a checkout, such as a tool that backfills a tier or an operator's clean-up, and for the
   * testkit's contract of any datastore. A checkout's own store, behind its precondition
   * self-check, is {@code ArchiveTransactions.of(tierlock).store()}.
   *
   * @param datastore the shared datastore; not closed by the store
   * @param namespace the namespace the checkout shares the datastore under, applied once
   * @param cacheRoot the checkout's local cache of the tier; created on first use
   * @param limits the caps; {@link ArchiveLimits#DEFAULTS} unless the operator changed them
   * @param clock the clock read deadlines are measured on
   * @return a thread-safe store
   */
  static ArchiveStore over(Datastore datastore, Namespace namespace, Path cacheRoot, ArchiveLimits limits,
      Clock clock) {
    return new DatastoreArchiveStore(datastore, namespace, cacheRoot, limits, clock);
  }

  /** The whole-read deadline {@link #read(ExtensionArchiveKey)} uses: 5 minutes. */
  Duration DEFAULT_READ_TIMEOUT = Duration.ofMinutes(5);

  /**
   * {@return a verified local copy of an archive, with {@link #DEFAULT_READ_TIMEOUT}}
   *
   * @param key the archive to read
   * @see #read(ExtensionArchiveKey, Duration)
   */
  default Optional<ArchiveFile> read(ExtensionArchiveKey key) {
    return read(key, DEFAULT_READ_TIMEOUT);
  }

  /**
   * Returns a verified local copy of an archive: the cached file when its SHA-256 still matches the
   * key (a cached file that does not is removed), otherwise the one object downloaded from the
   * datastore, refused before download when it is larger than the compressed cap, hashed while
   * streaming into a temp file beside the cache file, and moved into the cache only if it matches.
   *
   * @param key the archive
   * @param timeout the deadline for the whole read, checked before every buffer on the store's
   *     clock; each datastore call is also bounded by its backend
   * @return the verified file, or empty when the datastore holds no object for the key
   * @throws ArchiveException ({@code archive_tampered}) if the downloaded bytes do not match the key (they were
   *     discarded; the cache holds nothing for the key)
   * @throws ArchiveException ({@code archive_limit}) if the object is larger than the compressed cap
   * @throws ArchiveException ({@code archive_timeout}) if the deadline passed
   * @throws ArchiveException ({@code archive_cancelled}) if the thread was interrupted (the flag stays set)
   * @throws ArchiveException ({@code archive_io}) if the cache cannot be read or written
   * @throws dev.tierlock.spi.DatastoreException if the datastore fails (a broken download is {@link
   *     dev.tierlock.spi.DatastoreUnavailableException})
   */
  Optional<ArchiveFile> read(ExtensionArchiveKey key, Duration timeout);

  /**
   * Returns whether the datastore holds an object under the key: one stat, the local cache not
   * consulted and the bytes not verified (a {@link #read} or a {@link #store} verifies them). What a
   * backfill asks before it stores an archive the tier may lack.
   *
   * @param key the archive
   * @return whether the tier has an object at the key's tier path
   * @throws dev.tierlock.spi.DatastoreException if the datastore fails
   */
  boolean contains(ExtensionArchiveKey key);

  /**
   * Stores an archive from a file: verifies its SHA-256 equals the key while copying it into the
   * cache (atomically), then writes it to the datastore create-only. An object already present
   * with the same size is success and writes nothing (idempotent; concurrent stores of one key
   * all succeed and leave one object); an object of another size is replaced conditionally.
   *
   * @param key the archive
   * @param file the archive's bytes; read once, not modified
   * @return what happened and the tier path the archive lives at
   * @throws ArchiveException ({@code archive_tampered}) if the bytes do not match the key (nothing cached or written)
   * @throws ArchiveException ({@code archive_limit}) if the file is larger than the compressed cap
   * @throws ArchiveException ({@code archive_cancelled}) if the thread was interrupted
   * @throws ArchiveException ({@code archive_io}) if the file or the cache cannot be read or written
   * @throws dev.tierlock.spi.DatastoreException if the datastore fails; an {@link
   *     dev.tierlock.spi.OutcomeUnknownException} is resolved by a stat first, and thrown only when
   *     the object is still absent or wrong
   */
  ArchiveChange store(ExtensionArchiveKey key, Path file);

  /**
   * Stores an archive read from {@code in} (read to its end, not closed), as {@link
   * #store(ExtensionArchiveKey, Path)} does.
   *
   * @param key the archive's key, which names the SHA-256 its bytes must have
   * @param in the archive's bytes
   * @return what happened, as {@link #store(ExtensionArchiveKey, Path)} returns it
   * @throws ArchiveException ({@code archive_tampered}) if the bytes do not match the key (nothing cached or written)
   * @throws ArchiveException ({@code archive_limit}) if the stream yields more than the compressed cap
   * @throws ArchiveException ({@code archive_cancelled}) if the thread was interrupted
   * @throws ArchiveException ({@code archive_io}) if the stream or the cache cannot be read or written
   * @throws dev.tierlock.spi.DatastoreException if the datastore fails
   */
  ArchiveChange store(ExtensionArchiveKey key, InputStream in);

  /**
   * Deletes an archive from the datastore (a stat, then a delete conditional on the version seen,
   * so an archive a peer stores again in between is kept) and from the local cache.
   *
   * <p>Nothing here checks the shared lockfile, and a writer may pin the archive again at any
   * moment (a rollback): this is for a tier no writer uses (an operator's repair). To remove
   * unpinned archives from a live tier, run a collection ({@link dev.tierlock.ArchiveCollector}).
   *
   * @param key the archive to delete
   * @return {@link ArchiveChange.Outcome#DELETED} with the tier path, or {@link
   *     ArchiveChange.Outcome#ABSENT} / {@link ArchiveChange.Outcome#KEPT} with no path
   * @throws ArchiveException ({@code archive_io}) if the cached file cannot be removed
   * @throws dev.tierlock.spi.DatastoreException if the datastore fails
   */
  ArchiveChange delete(ExtensionArchiveKey key);
}
