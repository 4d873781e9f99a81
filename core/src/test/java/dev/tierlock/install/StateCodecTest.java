package dev.tierlock.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tierlock.ExtensionName;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class StateCodecTest {

  private static final String HEX = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
  private static final String HEX2 = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

  @TempDir Path dir;

  private static ConvergenceState sample() {
    return new ConvergenceState("file:///tier namespace (none)", "v7", HEX, 3, HEX2, Map.of(
        ExtensionName.of("@acme/a"), new ConvergenceState.Record(HEX, HEX2, HEX, null, null),
        ExtensionName.of("@acme/b"), new ConvergenceState.Record(HEX2, "", null,
            new ConvergenceState.Retry(2, Instant.parse("2026-01-01T00:02:00Z"), "DatastoreUnavailableException: down"), null),
        ExtensionName.of("@acme/c"), new ConvergenceState.Record(HEX, null, null, null,
            new ConvergenceState.Blocked(ConvergeReport.Unrestorable.Reason.TAMPERED, "bytes hash to something else"))),
        new java.util.TreeSet<>(java.util.Set.of("stage-1234")));
  }

  @Test
  void writeThenRead_isTheSameState() throws Exception {
    Path file = dir.resolve(StateCodec.FILE);
    StateCodec.write(file, sample());

    assertThat(StateCodec.read(file)).contains(sample());
  }

  /** Writes a settled state of {@code records} records and returns the bytes reading its header took. */
  private long headerBytes(int records) throws Exception {
    Map<ExtensionName, ConvergenceState.Record> map = new java.util.TreeMap<>();
    for (int i = 0; i < records; i++) {
      map.put(ExtensionName.of("@acme/e" + i), new ConvergenceState.Record(HEX, HEX2, HEX, null, null));
    }
    ConvergenceState state = new ConvergenceState("file:///tier namespace (none)", "v7", HEX, 3, null, map,
        new java.util.TreeSet<>());
    Path file = dir.resolve("state-" + records + ".json");
    StateCodec.write(file, state);
    assertThat(Files.size(file)).isGreaterThan(StateCodec.HEADER_CHUNK);
    long before = StateCodec.bytesRead();
    assertThat(StateCodec.readHeader(file)).contains(state.header());
    long read = StateCodec.bytesRead() - before;
    before = StateCodec.bytesRead();
    assertThat(StateCodec.read(file)).contains(state);
    assertThat(StateCodec.bytesRead() - before).as("a whole read reads the whole file").isEqualTo(Files.size(file));
    return read;
  }

  @Test
  void theHeader_isReadAlone_inTheSameBytesFor10And10000Records() throws Exception {
    long ten = headerBytes(10);
    long tenThousand = headerBytes(10_000);

    assertThat(ten).isEqualTo(StateCodec.HEADER_CHUNK);
    assertThat(tenThousand).isEqualTo(ten);
  }

  @Test
  void theHeader_saysWhetherTheStateIsSettled() throws Exception {
    Path file = dir.resolve(StateCodec.FILE);
    StateCodec.write(file, sample());

    ConvergenceState.Header header = StateCodec.readHeader(file).orElseThrow();

    assertThat(header.settled()).as("a retry and an unrestorable record").isFalse();
    assertThat(header).isEqualTo(new ConvergenceState.Header("file:///tier namespace (none)", "v7", HEX, 3, false,
        new java.util.TreeSet<>(java.util.Set.of("stage-1234"))));
  }

  @Test
  void aStateWrittenBeforeHeaders_isReadWhole_andHasNoHeader() throws Exception {
    Path file = dir.resolve(StateCodec.FILE);
    Files.writeString(file, "{\n  \"schemaVersion\" : 1,\n  \"base\" : \"b\",\n  \"restoreGeneration\" : 2,\n"
        + "  \"entries\" : { }\n}\n", StandardCharsets.UTF_8);

    assertThat(StateCodec.readHeader(file)).isEmpty();
    assertThat(StateCodec.read(file)).contains(new ConvergenceState("b", null, null, 2, null, Map.of(),
        new java.util.TreeSet<>()));
  }

  @Test
  void aHeaderThatDisagreesWithTheStateBelowIt_isInvalid() throws Exception {
    String text = new String(StateCodec.encode(sample()), StandardCharsets.UTF_8);
    String altered = text.replaceFirst("\"restoreGeneration\":3", "\"restoreGeneration\":4");
    assertThat(altered).isNotEqualTo(text);

    assertThatThrownBy(() -> StateCodec.decode(altered.getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(StateCodec.InvalidState.class).hasMessageContaining("header");
  }

  @Test
  void read_ofNoFile_isEmpty() throws Exception {
    assertThat(StateCodec.read(dir.resolve("none.json"))).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "", "[]", "{", "{\"schemaVersion\":1}",
      "{\"schemaVersion\":2,\"base\":\"b\",\"restoreGeneration\":0,\"entries\":{}}",
      "{\"schemaVersion\":1,\"base\":\"b\",\"restoreGeneration\":-1,\"entries\":{}}",
      "{\"schemaVersion\":1,\"base\":\"b\",\"restoreGeneration\":0,\"entries\":{},\"extra\":1}",
      "{\"schemaVersion\":1,\"base\":\"b\",\"restoreGeneration\":0,\"entries\":{\"not a name\":{\"entry\":\"" + HEX + "\"}}}",
      "{\"schemaVersion\":1,\"base\":\"b\",\"restoreGeneration\":0,\"entries\":{\"@a/b\":{\"entry\":\"ABC\"}}}",
      "{\"schemaVersion\":1,\"base\":\"b\",\"restoreGeneration\":0,\"entries\":{\"@a/b\":{\"entry\":\"" + HEX
          + "\",\"retry\":{\"attempts\":0,\"next\":\"2026-01-01T00:00:00Z\",\"reason\":\"r\"}}}}",
      "{\"schemaVersion\":1,\"base\":\"b\",\"restoreGeneration\":0,\"entries\":{\"@a/b\":{\"entry\":\"" + HEX
          + "\",\"retry\":{\"attempts\":1,\"next\":\"tomorrow\",\"reason\":\"r\"}}}}",
      "{\"schemaVersion\":1,\"base\":\"b\",\"restoreGeneration\":0,\"entries\":{\"@a/b\":{\"entry\":\"" + HEX
          + "\",\"unrestorable\":{\"reason\":\"BORED\",\"detail\":\"d\"}}}}",
      "{\"schemaVersion\":1,\"base\":\"b\",\"restoreGeneration\":0,\"restoreGeneration\":1,\"entries\":{}}",
      "{\"schemaVersion\":1,\"base\":\"b\",\"restoreGeneration\":0,\"entries\":{}} {}",
      "{\"schemaVersion\":1,\"base\":\"b\",\"restoreGeneration\":99999999999999999999999,\"entries\":{}}",
      "{\"schemaVersion\":1,\"base\":\"b\",\"restoreGeneration\":0,\"entries\":{\"@a/b\":{\"entry\":\"" + HEX
          + "\",\"verified\":\"xyz\"}}}",
      "{\"schemaVersion\":1,\"base\":\"b\",\"lockfile\":{\"version\":\"v\"},\"restoreGeneration\":0,\"entries\":{}}",
      "{\"schemaVersion\":1,\"base\":\"b\",\"restoreGeneration\":0,\"entries\":{},\"left\":[\"../x\"]}",
      "{\"schemaVersion\":1,\"base\":\"b\",\"restoreGeneration\":0,\"entries\":{},\"left\":\"x\"}"})
  void decode_ofAnythingButAValidState_isInvalid(String text) {
    assertThatThrownBy(() -> StateCodec.decode(text.getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(StateCodec.InvalidState.class);
  }

  @Test
  void read_ofALink_isInvalid() throws Exception {
    Path target = dir.resolve("target.json");
    StateCodec.write(target, sample());
    Path link = Files.createSymbolicLink(dir.resolve(StateCodec.FILE), target);

    assertThatThrownBy(() -> StateCodec.read(link)).isInstanceOf(StateCodec.InvalidState.class);
  }

  @Property(tries = 200)
  void retryWait_staysWithinTheUpperQuarterOfItsCap_doublingFromAMinuteToAnHour(
      @ForAll @IntRange(min = 1, max = 64) int attempts, @ForAll long seed) {
    long cap = Math.min(60_000L << Math.min(attempts - 1, 20), 3_600_000L);

    long wait = Converger.retryWait(attempts, new java.util.SplittableRandom(seed)).toMillis();

    assertThat(wait).isBetween(cap - cap / 4, cap);
  }

  @Test
  void retryWait_capsAreOneTwoFourMinutes_thenAnHour() {
    java.util.random.RandomGenerator noJitter = new java.util.random.RandomGenerator() {
      @Override
      public long nextLong() {
        return 0;
      }

      @Override
      public long nextLong(long bound) {
        return 0;
      }
    };
    assertThat(Converger.retryWait(1, noJitter)).hasMinutes(1);
    assertThat(Converger.retryWait(2, noJitter)).hasMinutes(2);
    assertThat(Converger.retryWait(3, noJitter)).hasMinutes(4);
    assertThat(Converger.retryWait(7, noJitter)).hasMinutes(60);
    assertThat(Converger.retryWait(1000, noJitter)).hasMinutes(60);
    assertThatThrownBy(() -> Converger.retryWait(0, noJitter)).isInstanceOf(IllegalArgumentException.class);
  }
}
