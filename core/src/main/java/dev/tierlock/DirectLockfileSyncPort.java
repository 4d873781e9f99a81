package dev.tierlock;

import dev.tierlock.spi.Datastore;
import dev.tierlock.spi.DirectAccess;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The port of a datastore every checkout reaches directly (a shared filesystem): the lockfile is the
 * shared file itself, guarded by a lock in the datastore's lock directory, so hydrate and publish
 * have nothing to do but the deletions a publish names. Thread-safe.
 */
final class DirectLockfileSyncPort implements ManagedLockfileSyncPort {

  private final Datastore datastore;
  private final DirectAccess direct;
  private final Namespace namespace;

  DirectLockfileSyncPort(Datastore datastore, DirectAccess direct, Namespace namespace) {
    this.datastore = datastore;
    this.direct = direct;
    this.namespace = namespace;
  }

  @Override
  public SyncMode mode() {
    return SyncMode.DIRECT;
  }

  @Override
  public String describe() {
    return datastore.describe() + " (direct) " + namespace.key(TierPath.LOCKFILE);
  }

  @Override
  public Path lockfilePath() {
    return direct.pathOf(namespace.key(TierPath.LOCKFILE));
  }

  @Override
  public Path lockPath() {
    String prefix = namespace.name().map(n -> n + ".").orElse("");
    return direct.lockDirectory().resolve(prefix + "upstream_extensions.json.lock");
  }

  @Override
  public Path localPath(TierPath path) {
    return direct.pathOf(namespace.key(path));
  }

  @Override
  public Optional<LockfileHead> hydrate() {
    return Optional.empty();
  }

  @Override
  public Optional<Lockfile> lastSeen() {
    return Optional.empty();
  }

  @Override
  public PublishOutcome publish(PublishRequest request) {
    List<TierPath> notDeleted = RemoteLockfileSyncPort.deleteAll(datastore, namespace, request.deletions());
    return new PublishOutcome.Published(null, null, notDeleted);
  }
}
