package dev.tierlock.datastore.s3;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.Lockfile;
import dev.tierlock.spi.DatastoreUnavailableException;
import dev.tierlock.TierlockException;
import dev.tierlock.spi.DeleteResult;
import dev.tierlock.spi.ObjectBody;
import dev.tierlock.spi.ObjectBodyUnreadableException;
import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.ObjectStream;
import dev.tierlock.spi.ObjectVersion;
import dev.tierlock.spi.ReadCondition;
import dev.tierlock.spi.ReadResult;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Object;

/** S3-specific behaviour of {@link S3Datastore} against a real S3 server (S3Proxy, in this JVM). */
@ExtendWith(S3ServerExtension.class)
class S3DatastoreTest {

  private static final ObjectKey KEY = ObjectKey.of("config/upstream_extensions.json");

  @Test
  void write_appliesThePrefixOnceAndSendsMetadataAsUserHeaders(S3TestBucket bucket) {
    S3Datastore datastore = bucket.datastore("/team/tier");

    WriteResult result = datastore.write(KEY, body("{}"), WriteCondition.mustNotExist(),
        ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "c-1"));

    assertThat(datastore.config().prefix()).isEqualTo("team/tier/");
    assertThat(rawKeys(bucket)).containsExactly("team/tier/config/upstream_extensions.json");
    HeadObjectResponse head = bucket.client().headObject(b -> b.bucket(bucket.name()).key("team/tier/" + KEY));
    assertThat(head.metadata()).containsExactly(Map.entry(ObjectMetadata.COMMIT_ID, "c-1"));
    assertThat(result).isEqualTo(new WriteResult.Written(ObjectVersion.of(head.eTag())));
  }

  @Test
  void read_ifNoneMatchOnTheCurrentVersion_answersNotModifiedWithoutABody(S3TestBucket bucket) {
    AtomicInteger bodiesRead = new AtomicInteger();
    try (S3Client client = S3TestServer.newClient(bucket.server().endpoint(), List.of(countBodies(bodiesRead)))) {
      S3Datastore datastore = bucket.datastore("", client, b -> b);
      WriteResult.Written written = (WriteResult.Written) datastore.write(
          KEY, body("v1"), WriteCondition.none(), ObjectMetadata.EMPTY);
      bodiesRead.set(0);

      ReadResult result = datastore.read(KEY, ReadCondition.ifNoneMatch(written.version()), Lockfile.MAX_BYTES);

      assertThat(result).isEqualTo(new ReadResult.NotModified(written.version()));
      assertThat(bodiesRead).hasValue(0);
    }
  }

  @Test
  void read_ifNoneMatchOnAnOldVersion_readsTheNewBytesAndMetadata(S3TestBucket bucket) {
    S3Datastore datastore = bucket.datastore("tier");
    WriteResult.Written first =
        (WriteResult.Written) datastore.write(KEY, body("v1"), WriteCondition.none(), ObjectMetadata.EMPTY);
    WriteResult.Written second = (WriteResult.Written) datastore.write(KEY, body("v2"),
        WriteCondition.mustMatch(first.version()), ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "c-2"));

    ReadResult result = datastore.read(KEY, ReadCondition.ifNoneMatch(first.version()), Lockfile.MAX_BYTES);

    assertThat(result).isInstanceOfSatisfying(ReadResult.Found.class, found -> {
      assertThat(found.bytes()).isEqualTo("v2".getBytes(UTF_8));
      assertThat(found.object()).isEqualTo(
          new StoredObject(KEY, second.version(), 2, ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "c-2")));
    });
  }

  @Test
  void write_mustMatchOnAMissingKey_failsThePreconditionAndCreatesNothing(S3TestBucket bucket) {
    S3Datastore datastore = bucket.datastore("");

    WriteResult result = datastore.write(
        KEY, body("x"), WriteCondition.mustMatch(ObjectVersion.of("\"0123456789abcdef0123456789abcdef\"")), ObjectMetadata.EMPTY);

    assertThat(result).isEqualTo(WriteResult.PreconditionFailed.INSTANCE);
    assertThat(rawKeys(bucket)).isEmpty();
  }

  @Test
  void delete_mustMatch_deletesOnlyTheVersionItNames(S3TestBucket bucket) {
    S3Datastore datastore = bucket.datastore("");
    WriteResult.Written first =
        (WriteResult.Written) datastore.write(KEY, body("v1"), WriteCondition.none(), ObjectMetadata.EMPTY);
    WriteResult.Written second = (WriteResult.Written) datastore.write(
        KEY, body("v2"), WriteCondition.mustMatch(first.version()), ObjectMetadata.EMPTY);

    assertThat(datastore.delete(KEY, WriteCondition.mustMatch(first.version()))).isEqualTo(DeleteResult.PRECONDITION_FAILED);
    assertThat(datastore.stat(KEY)).map(StoredObject::version).contains(second.version());
    assertThat(datastore.delete(KEY, WriteCondition.mustMatch(second.version()))).isEqualTo(DeleteResult.DELETED);
    assertThat(datastore.delete(KEY, WriteCondition.mustMatch(second.version()))).isEqualTo(DeleteResult.ABSENT);
    assertThat(datastore.delete(KEY, WriteCondition.none())).isEqualTo(DeleteResult.ABSENT);
    assertThat(rawKeys(bucket)).isEmpty();
  }

  @Test
  void openStream_knowsTheSizeBeforeReadingAndStreamsTheBytes(S3TestBucket bucket) throws Exception {
    S3Datastore datastore = bucket.datastore("");
    byte[] big = new byte[256 * 1024];
    for (int i = 0; i < big.length; i++) {
      big[i] = (byte) (i * 31);
    }
    datastore.write(KEY, ObjectBody.of(big), WriteCondition.none(), ObjectMetadata.of("k", "v"));

    Optional<ObjectStream> opened = datastore.openStream(KEY);

    assertThat(opened).isPresent();
    try (ObjectStream stream = opened.get(); InputStream in = stream.stream()) {
      assertThat(stream.object().size()).isEqualTo(big.length);
      assertThat(stream.object().metadata()).isEqualTo(ObjectMetadata.of("k", "v"));
      assertThat(in.readAllBytes()).isEqualTo(big);
    }
    assertThat(datastore.openStream(ObjectKey.of("missing"))).isEmpty();
  }

  @Test
  void openStream_closedBeforeTheEnd_leavesTheClientUsable(S3TestBucket bucket) throws Exception {
    S3Datastore datastore = bucket.datastore("");
    datastore.write(KEY, ObjectBody.of(new byte[512 * 1024]), WriteCondition.none(), ObjectMetadata.EMPTY);

    try (ObjectStream stream = datastore.openStream(KEY).orElseThrow()) {
      assertThat(stream.stream().read(new byte[10])).isEqualTo(10);
    }

    assertThat(datastore.read(KEY, ReadCondition.always(), Lockfile.MAX_BYTES)).isInstanceOf(ReadResult.Found.class);
  }

  @Test
  void read_ofAMissingBucket_isUnavailableAndNamesTheBucket(S3TestBucket bucket) {
    S3Datastore datastore = S3Datastore.of(bucket.client(), S3DatastoreConfig.of("no-such-bucket-here", ""));

    assertThatThrownBy(() -> datastore.read(KEY, ReadCondition.always(), Lockfile.MAX_BYTES))
        .isInstanceOf(DatastoreUnavailableException.class)
        .hasMessage("Cannot read s3://no-such-bucket-here/config/upstream_extensions.json: "
            + "the bucket does not exist (HTTP 404 NoSuchBucket)")
        .extracting(e -> ((DatastoreUnavailableException) e).code()).isEqualTo("datastore_unavailable");
  }

  @Test
  void write_ofAKeyTooLongWithThePrefix_isRefusedBeforeAnyRequest(S3TestBucket bucket) {
    S3Datastore datastore = bucket.datastore("a/b");
    ObjectKey longKey = ObjectKey.of("k".repeat(ObjectKey.MAX_BYTES - 1));

    assertThatThrownBy(() -> datastore.write(longKey, body("x"), WriteCondition.none(), ObjectMetadata.EMPTY))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot use object key kkk")
        .hasMessageEndingWith("under prefix \"a/b/\": together they are longer than 1024 bytes of UTF-8");
    assertThat(rawKeys(bucket)).isEmpty();
  }

  @Test
  void delete_mustNotExist_isRefused(S3TestBucket bucket) {
    S3Datastore datastore = bucket.datastore("");
    datastore.write(KEY, body("x"), WriteCondition.none(), ObjectMetadata.EMPTY);

    assertThatThrownBy(() -> datastore.delete(KEY, WriteCondition.mustNotExist()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot delete s3://" + bucket.name() + "/" + KEY + ": mustNotExist is not a delete condition");
    assertThat(rawKeys(bucket)).containsExactly(KEY.value());
  }

  @Test
  void write_ofABodyThatCannotBeRead_failsAsSuchAndChangesNothing(S3TestBucket bucket) {
    S3Datastore datastore = bucket.datastore("");
    ObjectBody unopenable = new FailingBody(0);
    ObjectBody breaksMidway = new FailingBody(10);

    for (ObjectBody body : List.of(unopenable, breaksMidway)) {
      assertThatThrownBy(() -> datastore.write(KEY, body, WriteCondition.mustNotExist(), ObjectMetadata.EMPTY))
          .isExactlyInstanceOf(ObjectBodyUnreadableException.class)
          .hasMessageStartingWith("Cannot write s3://" + bucket.name() + "/" + KEY
              + ": the body to upload could not be read (java.io.IOException: disk gone")
          .hasMessageEndingWith("; nothing changed")
          .satisfies(e -> assertThat(((TierlockException) e).code()).isEqualTo("object_body_unreadable"));
    }
    assertThat(rawKeys(bucket)).isEmpty();
  }

  @Test
  void describe_namesBucketPrefixAndEndpoint(S3TestBucket bucket) {
    assertThat(bucket.datastore("team").describe())
        .isEqualTo("s3://" + bucket.name() + "/team/?endpoint=" + bucket.server().endpoint());
  }

  @Test
  void close_leavesTheCallersClientOpen(S3TestBucket bucket) {
    S3Datastore datastore = bucket.datastore("");

    datastore.close();

    assertThat(bucket.client().listObjectsV2(b -> b.bucket(bucket.name())).contents()).isEmpty();
  }

  static ObjectBody body(String text) {
    return ObjectBody.of(text.getBytes(UTF_8));
  }

  static List<String> rawKeys(S3TestBucket bucket) {
    return bucket.client().listObjectsV2Paginator(b -> b.bucket(bucket.name())).contents().stream()
        .map(S3Object::key).toList();
  }

  /** A body of 100 bytes whose stream fails after {@code goodBytes} bytes (at once for 0: open fails). */
  private record FailingBody(int goodBytes) implements ObjectBody {
    @Override
    public long size() {
      return 100;
    }

    @Override
    public InputStream open() throws IOException {
      if (goodBytes == 0) {
        throw new IOException("disk gone");
      }
      return new InputStream() {
        private int served;

        @Override
        public int read() throws IOException {
          if (served >= goodBytes) {
            throw new IOException("disk gone midway");
          }
          served++;
          return 'x';
        }
      };
    }
  }

  private static ExecutionInterceptor countBodies(AtomicInteger bodiesRead) {
    return new ExecutionInterceptor() {
      @Override
      public void afterTransmission(Context.AfterTransmission context, ExecutionAttributes attributes) {
        if (context.httpResponse().statusCode() == 200
            && context.httpResponse().firstMatchingHeader("Content-Length").filter(l -> !l.equals("0")).isPresent()) {
          bodiesRead.incrementAndGet();
        }
      }
    };
  }
}
