package dev.tierlock.datastore.s3;

import static dev.tierlock.datastore.s3.S3DatastoreTest.body;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.spi.ObjectKey;
import dev.tierlock.spi.ObjectMetadata;
import dev.tierlock.spi.StoredObject;
import dev.tierlock.spi.WriteCondition;
import dev.tierlock.spi.WriteResult;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/** How {@link S3Datastore#list} pages, what it reports and what it costs, against the real S3 server. */
@ExtendWith(S3ServerExtension.class)
class S3DatastoreListingTest {

  @Test
  void list_followsEveryPageAndReturnsKeysRelativeToThePrefix(S3TestBucket bucket) {
    S3Datastore datastore = bucket.datastore("", bucket.client(), b -> b.prefix("tier").listPageSize(2));
    S3Datastore outside = bucket.datastore("other");
    List<ObjectKey> written = new ArrayList<>();
    for (int i = 6; i >= 0; i--) {
      ObjectKey key = ObjectKey.of("config/pulled-archives/@s/n" + i + "/a.tar.gz");
      datastore.write(key, body("a" + i), WriteCondition.mustNotExist(), ObjectMetadata.EMPTY);
      written.add(0, key);
    }
    datastore.write(ObjectKey.of("config/other.json"), body("o"), WriteCondition.none(), ObjectMetadata.EMPTY);
    outside.write(ObjectKey.of("config/pulled-archives/@s/x/a.tar.gz"), body("x"), WriteCondition.none(), ObjectMetadata.EMPTY);

    List<StoredObject> listed = datastore.list("config/pulled-archives/");

    assertThat(listed).extracting(StoredObject::key).containsExactlyElementsOf(written);
    assertThat(listed).allSatisfy(object -> assertThat(object.size()).isEqualTo(2));
    assertThat(listed.get(0).version()).isEqualTo(datastore.stat(written.get(0)).orElseThrow().version());
  }

  @Test
  void list_skipsKeysThatNoDatastoreCouldHaveWritten(S3TestBucket bucket) {
    S3Datastore datastore = bucket.datastore("tier");
    // a "folder" marker as consoles create them: no valid key ends with '/'
    bucket.client().putObject(b -> b.bucket(bucket.name()).key("tier/config/folder/"), RequestBody.fromString(""));
    datastore.write(ObjectKey.of("config/even"), body("y"), WriteCondition.none(), ObjectMetadata.EMPTY);

    assertThat(datastore.list("config/")).extracting(StoredObject::key).containsExactly(ObjectKey.of("config/even"));
  }

  @Test
  void list_costsOneRequestPerPage_andLeavesTheMetadataToStat(S3TestBucket bucket) {
    List<String> requests = new CopyOnWriteArrayList<>();
    try (S3Client client = S3TestServer.newClient(bucket.server().endpoint(), List.of(recording(requests)))) {
      S3Datastore datastore = bucket.datastore("tier", client, b -> b.listPageSize(2));
      List<StoredObject> expected = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        ObjectKey key = ObjectKey.of("config/k" + i);
        ObjectMetadata metadata = ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "c-" + i);
        WriteResult.Written written =
            (WriteResult.Written) datastore.write(key, body("v" + i), WriteCondition.mustNotExist(), metadata);
        expected.add(new StoredObject(key, written.version(), 2, ObjectMetadata.EMPTY));
      }
      requests.clear();

      List<StoredObject> listed = datastore.list("config/");

      assertThat(listed).containsExactlyElementsOf(expected);
      assertThat(requests).containsExactly("ListObjectsV2Request", "ListObjectsV2Request", "ListObjectsV2Request");
      assertThat(datastore.stat(ObjectKey.of("config/k3")).orElseThrow().metadata())
          .isEqualTo(ObjectMetadata.of(ObjectMetadata.COMMIT_ID, "c-3"));
    }
  }

  private static ExecutionInterceptor recording(List<String> requests) {
    return new ExecutionInterceptor() {
      @Override
      public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
        requests.add(context.request().getClass().getSimpleName());
      }
    };
  }
}
