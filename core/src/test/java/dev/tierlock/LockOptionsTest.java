package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class LockOptionsTest {

  @Test
  void defaults_matchTheDesign() {
    assertThat(LockOptions.DEFAULTS.ttl()).isEqualTo(Duration.ofSeconds(30));
    assertThat(LockOptions.DEFAULTS.retryInterval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(LockOptions.DEFAULTS.maxRetryInterval()).isEqualTo(Duration.ofSeconds(8));
    assertThat(LockOptions.DEFAULTS.maxWait()).isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void heartbeatInterval_isAThirdOfTheTtl() {
    assertThat(LockOptions.DEFAULTS.heartbeatInterval()).isEqualTo(Duration.ofSeconds(10));
    assertThat(LockOptions.DEFAULTS.withTtl(Duration.ofMillis(900)).heartbeatInterval()).isEqualTo(Duration.ofMillis(300));
  }

  @Test
  void withers_changeOneValue() {
    LockOptions changed = LockOptions.DEFAULTS.withTtl(Duration.ofSeconds(5)).withMaxWait(Duration.ZERO);

    assertThat(changed).isEqualTo(new LockOptions(Duration.ofSeconds(5), Duration.ofSeconds(1), Duration.ofSeconds(8), Duration.ZERO));
  }

  @Test
  void constructor_nonPositiveTtl_isRejected() {
    assertThatThrownBy(() -> LockOptions.DEFAULTS.withTtl(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot use lock options: ttl must be positive, got PT0S");
  }

  @Test
  void constructor_nonPositiveRetryInterval_isRejected() {
    assertThatThrownBy(() -> new LockOptions(Duration.ofSeconds(1), Duration.ofMillis(-1), Duration.ofSeconds(1), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot use lock options: retryInterval must be positive, got PT-0.001S");
  }

  @Test
  void constructor_negativeMaxWait_isRejected() {
    assertThatThrownBy(() -> LockOptions.DEFAULTS.withMaxWait(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot use lock options: maxWait is negative: PT-1S");
  }

  @Test
  void constructor_retryIntervalAboveMaximum_isRejected() {
    assertThatThrownBy(() -> new LockOptions(Duration.ofSeconds(1), Duration.ofSeconds(9), Duration.ofSeconds(8), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot use lock options: retryInterval PT9S exceeds maxRetryInterval PT8S");
  }
}
