package dev.tierlock.datastore.s3;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A fresh bucket on the test S3 server for one test, with datastores over it; deleted, with
 * everything in it, when the test ends. Not thread-safe to create datastores from several threads.
 */
final class S3TestBucket implements AutoCloseable {

  private final S3TestServer server;
  private final String name;
  private final List<S3Datastore> opened = new ArrayList<>();

  S3TestBucket(S3TestServer server) {
    this.server = server;
    this.name = server.createBucket();
  }

  /** Returns the bucket's name. */
  String name() {
    return name;
  }

  /** Returns the server. */
  S3TestServer server() {
    return server;
  }

  /** Returns the shared client. */
  S3Client client() {
    return server.client();
  }

  /** Returns a datastore over this bucket and {@code prefix}, on the shared client. */
  S3Datastore datastore(String prefix) {
    return datastore(prefix, server.client(), UnaryOperator.identity());
  }

  /** Returns a datastore over this bucket and {@code prefix}, on {@code client}, with settings changed. */
  S3Datastore datastore(String prefix, S3Client client, UnaryOperator<S3DatastoreConfig.Builder> settings) {
    S3Datastore datastore = S3Datastore.of(client, settings.apply(S3DatastoreConfig.builder(name).prefix(prefix)).build());
    opened.add(datastore);
    return datastore;
  }

  /** Sets how this bucket treats preconditions. */
  void mode(ServerState.Mode mode) {
    server.state().mode(name, mode);
  }

  /** Makes the next write to this bucket answer {@code status} and {@code code}, before or after applying it. */
  void failNextWrite(ServerState.Phase phase, int status, String code) {
    server.state().failNextWrite(name, phase, status, code);
  }

  /**
   * Starts logging, server-side, every object stored in, deleted from or refused in this bucket,
   * keeping the bytes and metadata stored at the full S3 keys {@code keepBodies} accepts.
   */
  ServerObjectLog recordWrites(Predicate<String> keepBodies) {
    return server.state().record(name, keepBodies);
  }

  @Override
  public void close() {
    opened.forEach(S3Datastore::close);
    server.deleteBucket(name);
  }
}
