package dev.tierlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tierlock.ExtensionName;
import dev.tierlock.Namespace;
import dev.tierlock.TierPath;
import dev.tierlock.TransactionResult;
import dev.tierlock.TransactionStatus;
import dev.tierlock.internal.CodecTally;
import dev.tierlock.spi.ObjectKey;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A put on a 5,000-entry shared lockfile through the public transaction API, on the fake remote: the
 * bytes fetched are parsed once (the whole file checked, no member decoded but the one put), the
 * entry put is formatted once, and the bytes published, and cached, are the bytes fetched with that
 * one member spliced in. Counted with {@link CodecTally} on the transaction's thread; nothing is
 * timed.
 */
class LargeLockfilePutTest {

  private static final int SIZE = 5_000;
  private static final String T = "2026-01-01T00:00:00.000Z";
  private static final ObjectKey KEY = Namespace.NONE.key(TierPath.LOCKFILE);

  /**
   * Written by an older tool beside Tierlock: a foreign member first, files unsorted, an unknown
   * field; otherwise {@code JSON.stringify(lockfile, null, 2)}.
   */
  private static final String BIG = big();

  private final FakeRemote remote = FakeRemote.create();
  private final TestClock clock = TestClock.create();

  @TempDir
  Path dir;

  @AfterEach
  void closeRemote() {
    remote.close();
  }

  private static String value(int i) {
    return "{\n    \"version\": \"1." + i + "\",\n    \"pulledAt\": \"" + T + "\",\n    \"files\": [\n"
        + "      \"z" + i + ".ts\",\n      \"a" + i + ".ts\"\n    ],\n    \"future\": {\"n\": 2.50}\n  }";
  }

  private static String big() {
    StringBuilder text = new StringBuilder("{\n  \"lockfileVersion\": 2");
    for (int i = 0; i < SIZE; i++) {
      text.append(",\n  \"@s").append(i).append("/n\": ").append(value(i));
    }
    return text.append("\n}\n").toString();
  }

  private static String written(String version) {
    return "{\n    \"version\": \"" + version + "\",\n    \"pulledAt\": \"" + T + "\"\n  }";
  }

  private TestCheckout checkout(String name) {
    return TestCheckout.builder(remote, dir.resolve(name), clock).build();
  }

  private String shared() {
    return new String(remote.peek(KEY).orElseThrow(), StandardCharsets.UTF_8);
  }

  @Test
  void put_ofAnExistingEntry_parsesTheFetchedBytesOnceAndSplicesOnlyThatMember() throws IOException {
    remote.plant(KEY, BIG.getBytes(StandardCharsets.UTF_8));
    try (TestCheckout a = checkout("a"); CodecTally tally = CodecTally.open()) {
      TransactionResult result = a.transaction().run(tx -> tx.put(ExtensionName.of("@s2500/n"), a.entry("9.0.0")));
      tally.close();

      assertThat(result.status()).isEqualTo(TransactionStatus.PUBLISHED);
      assertThat(tally.parses()).as("the bytes fetched, once").isEqualTo(1);
      assertThat(tally.decodes()).as("only the entry replaced, to compare").isEqualTo(1);
      assertThat(tally.formats()).as("only the entry put, once").isEqualTo(1);
      assertThat(tally.assemblies()).as("the bytes published, and those cached").isLessThanOrEqualTo(2);
      assertThat(shared()).isEqualTo(BIG.replace("\"@s2500/n\": " + value(2500), "\"@s2500/n\": " + written("9.0.0")));
      assertThat(new String(Files.readAllBytes(a.cachePath()), StandardCharsets.UTF_8)).isEqualTo(shared());
    }
  }

  @Test
  void put_ofANewEntry_appendsItAndDecodesNoOtherMember() {
    remote.plant(KEY, BIG.getBytes(StandardCharsets.UTF_8));
    try (TestCheckout a = checkout("a"); CodecTally tally = CodecTally.open()) {
      a.put("@x/new", "1.0.0");
      tally.close();

      assertThat(tally.parses()).isEqualTo(1);
      assertThat(tally.decodes()).isZero();
      assertThat(tally.formats()).isEqualTo(1);
      assertThat(shared()).isEqualTo(BIG.substring(0, BIG.length() - 3) + ",\n  \"@x/new\": " + written("1.0.0") + "\n}\n");
    }
  }

  @Test
  void puts_fromAWarmCache_parseNothing_andAfterAPeerWrote_parseItsVersionOnce() {
    remote.plant(KEY, BIG.getBytes(StandardCharsets.UTF_8));
    try (TestCheckout a = checkout("a"); TestCheckout b = checkout("b")) {
      a.put("@s1/n", "2.0.0");
      try (CodecTally tally = CodecTally.open()) {
        a.put("@s2/n", "2.0.0");
        tally.close();

        assertThat(tally.parses()).as("the version a published is the one it cached").isZero();
        assertThat(tally.formats()).isEqualTo(1);
      }
      b.put("@s3/n", "2.0.0");
      try (CodecTally tally = CodecTally.open()) {
        a.put("@s4/n", "2.0.0");
        tally.close();

        assertThat(tally.parses()).isEqualTo(1);
        assertThat(tally.decodes()).isEqualTo(1);
        assertThat(tally.formats()).isEqualTo(1);
      }
      String expected = BIG;
      for (int i = 1; i <= 4; i++) {
        expected = expected.replace("\"@s" + i + "/n\": " + value(i), "\"@s" + i + "/n\": " + written("2.0.0"));
      }
      assertThat(shared()).isEqualTo(expected);
      assertThat(a.shared().foreign()).singleElement().satisfies(f -> assertThat(f.json()).isEqualTo("2"));
    }
  }
}
