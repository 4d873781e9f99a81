package dev.tierlock.testkit;

import static dev.tierlock.testkit.TransactionFixture.LOCKFILE_KEY;
import static dev.tierlock.testkit.TransactionFixture.name;
import static dev.tierlock.testkit.TransactionFixture.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.Lockfile;
import dev.tierlock.LockfileEntry;
import dev.tierlock.LockfileFormatException;
import dev.tierlock.TransactionStatus;
import dev.tierlock.spi.ObjectTooLargeException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/**
 * Lockfile bytes, for {@link LockfileTransactionContract}: what a run writes to the store is the
 * shared lockfile's own bytes with only its changed members rewritten (a real lockfile's unsorted
 * files, tab indentation, unknown fields, one-line entries, line endings, byte order mark and
 * foreign members stay as they are); a foreign member cannot be written; a lockfile too large or
 * not JSON is refused clearly and never replaced. Not thread-safe: one per test.
 */
final class LockfileBytesScenarios {

  /**
   * A lockfile as a person or another tool leaves it: tab indentation, an unknown field holding an
   * object, {@code files} unsorted, a one-line entry, and two foreign members (a key that is no
   * name, and a name whose value is no entry).
   */
  static final String REAL_LOOKING = "{\n"
      + "\t\"@s/b\": {\n"
      + "\t\t\"version\": \"1.0.0\",\n"
      + "\t\t\"x-team\": {\"owner\": \"ops\", \"tags\": [1, 2]},\n"
      + "\t\t\"pulledAt\": \"2025-01-01T00:00:00.000Z\",\n"
      + "\t\t\"files\": [\"z.txt\", \"a.txt\"]\n"
      + "\t},\n"
      + "\t\"@s/a\": {\"version\": \"2.0.0\", \"pulledAt\": \"2025-01-02T00:00:00.000Z\"},\n"
      + "\t\"lockfileVersion\": 2,\n"
      + "\t\"@s/odd\": [\"not\", \"an\", \"entry\"]\n"
      + "}\n";

  private static final String PULLED_AT = "2026-01-01T00:00:00.000Z";

  private final TransactionFixture f;

  LockfileBytesScenarios(TransactionFixture fixture) {
    this.f = fixture;
  }

  /** Finding 6 of issue 8: a write rewrote the whole file, and one foreign member made it unreadable. */
  void aPutOfAnUnrelatedName_leavesEveryOtherMemberByteIdentical_inTheStoredObject() {
    f.plant(utf8(REAL_LOOKING));
    TestCheckout a = f.checkout("a");

    assertThat(a.transaction().run(tx -> tx.put(name("@s/c"), entry("1"))).status())
        .isEqualTo(TransactionStatus.PUBLISHED);

    assertThat(stored()).isEqualTo(REAL_LOOKING.substring(0, REAL_LOOKING.length() - 3) + ",\n"
        + "\t\"@s/c\": {\n"
        + "\t\t\"version\": \"1\",\n"
        + "\t\t\"pulledAt\": \"2026-01-01T00:00:00.000Z\"\n"
        + "\t}\n"
        + "}\n");

    assertThat(a.transaction().run(tx -> tx.remove(name("@s/a"))).status()).isEqualTo(TransactionStatus.PUBLISHED);
    assertThat(a.transaction().run(tx -> tx.put(name("@s/b"), tx.entry(name("@s/b")).orElseThrow().toBuilder()
        .version("1.1.0").build())).status()).isEqualTo(TransactionStatus.PUBLISHED);

    assertThat(stored()).isEqualTo("{\n"
        + "\t\"@s/b\": {\n"
        + "\t\t\"version\": \"1.1.0\",\n"
        + "\t\t\"pulledAt\": \"2025-01-01T00:00:00.000Z\",\n"
        + "\t\t\"files\": [\n"
        + "\t\t\t\"a.txt\",\n"
        + "\t\t\t\"z.txt\"\n"
        + "\t\t],\n"
        + "\t\t\"x-team\": {\n"
        + "\t\t\t\"owner\": \"ops\",\n"
        + "\t\t\t\"tags\": [\n"
        + "\t\t\t\t1,\n"
        + "\t\t\t\t2\n"
        + "\t\t\t]\n"
        + "\t\t}\n"
        + "\t},\n"
        + "\t\"lockfileVersion\": 2,\n"
        + "\t\"@s/odd\": [\"not\", \"an\", \"entry\"],\n"
        + "\t\"@s/c\": {\n"
        + "\t\t\"version\": \"1\",\n"
        + "\t\t\"pulledAt\": \"2026-01-01T00:00:00.000Z\"\n"
        + "\t}\n"
        + "}\n");
  }

  void aPut_keepsTheByteOrderMarkTheLineEndingsAndAOneLineObject() {
    String crlf = "\uFEFF{\r\n    \"@s/b\": {\r\n        \"version\": \"1.0.0\",\r\n        \"pulledAt\":"
        + " \"2025-01-01T00:00:00.000Z\"\r\n    }\r\n}";
    f.plant(utf8(crlf));
    TestCheckout a = f.checkout("a");

    a.transaction().run(tx -> tx.put(name("@s/c"), entry("1")));

    assertThat(stored()).isEqualTo("\uFEFF{\r\n    \"@s/b\": {\r\n        \"version\": \"1.0.0\",\r\n        \"pulledAt\":"
        + " \"2025-01-01T00:00:00.000Z\"\r\n    },\r\n    \"@s/c\": {\r\n        \"version\": \"1\",\r\n        \"pulledAt\":"
        + " \"2026-01-01T00:00:00.000Z\"\r\n    }\r\n}");
    f.plant(utf8("{\"@s/b\":{\"version\":\"1.0.0\",\"pulledAt\":\"2025-01-01T00:00:00.000Z\"}}\n"));

    a.transaction().run(tx -> tx.put(name("@s/c"), entry("1")));

    assertThat(stored()).isEqualTo("{\"@s/b\":{\"version\":\"1.0.0\",\"pulledAt\":\"2025-01-01T00:00:00.000Z\"},"
        + "\"@s/c\":{\"version\":\"1\",\"pulledAt\":\"2026-01-01T00:00:00.000Z\"}}\n");
  }

  void aWriteToAForeignMember_isRefused_andChangesNothing() {
    f.plant(utf8(REAL_LOOKING));
    TestCheckout a = f.checkout("a");

    for (ThrowingCallable write : List.<ThrowingCallable>of(
        () -> a.transaction().run(tx -> tx.put(name("@s/odd"), entry("1"))),
        () -> a.transaction().run(tx -> tx.remove(name("@s/odd"))))) {
      assertThatThrownBy(write)
          .isInstanceOf(LockfileFormatException.class)
          .hasMessageStartingWith("Cannot ")
          .hasMessageContaining(" lockfile entry @s/odd: the lockfile holds it as a foreign member (the entry of @s/odd"
              + " must be a JSON object, found an array), kept byte for byte; only a hand edit of the file can change it")
          .extracting(e -> ((LockfileFormatException) e).code()).isEqualTo("foreign_entry");
    }

    assertThat(stored()).isEqualTo(REAL_LOOKING);
    assertThat(f.lockfileWrites()).isZero();
    assertThat(a.transaction().pending()).isEmpty();
    assertThat(a.tierlock().snapshot().foreign()).extracting(f2 -> f2.name()).containsExactly("lockfileVersion", "@s/odd");
  }

  /** Finding 7 of issue 8: a huge object at the lockfile's key was read whole (an OutOfMemoryError). */
  void aHugeObjectAtTheLockfileKey_isAClearObjectTooLargeError_andChangesNothing() {
    byte[] huge = new byte[Lockfile.MAX_BYTES + 1];
    Arrays.fill(huge, (byte) ' ');
    huge[0] = '{';
    huge[huge.length - 1] = '}';
    f.plant(huge);
    TestCheckout a = f.checkout("a");
    String version = f.sharedObject().orElseThrow().version().value();

    for (ThrowingCallable read : List.<ThrowingCallable>of(() -> a.put("@s/x", "1"), () -> a.transaction().refresh(),
        () -> a.tierlock().snapshot())) {
      assertThatThrownBy(read)
          .isInstanceOf(ObjectTooLargeException.class)
          .hasMessageStartingWith("Cannot read ")
          .hasMessageContaining(LOCKFILE_KEY.value())
          .hasMessageEndingWith("more than the " + Lockfile.MAX_BYTES + " this read accepts; nothing was changed")
          .extracting(e -> ((ObjectTooLargeException) e).code()).isEqualTo("object_too_large");
    }

    assertThat(f.sharedObject().orElseThrow().version().value()).isEqualTo(version);
    assertThat(f.lockfileWrites()).isZero();
    assertThat(a.transaction().pending()).isEmpty();
    assertThat(a.cachePath()).doesNotExist();
  }

  void aLockfileThatIsNotJson_isRefusedNamingThePosition_andNeverReplaced() {
    String broken = "{\n  \"@s/a\": [\n";
    f.plant(utf8(broken));
    TestCheckout a = f.checkout("a");

    for (ThrowingCallable read : List.<ThrowingCallable>of(() -> a.put("@s/x", "1"), () -> a.transaction().refresh(),
        () -> a.tierlock().snapshot())) {
      assertThatThrownBy(read)
          .isInstanceOf(LockfileFormatException.class)
          .hasMessageStartingWith("Cannot read lockfile " + a.transaction().describe() + ": ")
          .hasMessageContaining("(at line 2, column 11)")
          .extracting(e -> ((LockfileFormatException) e).code()).isEqualTo("lockfile_format");
    }

    assertThat(stored()).isEqualTo(broken);
    assertThat(f.lockfileWrites()).isZero();
    assertThat(a.transaction().pending()).isEmpty();
  }

  private static LockfileEntry entry(String version) {
    return LockfileEntry.builder(version, PULLED_AT).build();
  }

  private String stored() {
    return new String(f.sharedBytes().orElseThrow(), StandardCharsets.UTF_8);
  }
}
