package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LockIdentityTest {

  @Test
  void current_namesThisProcess() {
    LockIdentity identity = LockIdentity.current();

    assertThat(identity.pid()).isEqualTo(ProcessHandle.current().pid());
    assertThat(identity.holder()).endsWith("@" + identity.hostname());
    assertThat(identity.hostname()).isNotBlank();
  }

  @Test
  void of_blankHolder_isRejected() {
    assertThatThrownBy(() -> LockIdentity.of(" ", "h", 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot use lock identity: the holder is blank");
  }

  @Test
  void of_blankHostname_isRejected() {
    assertThatThrownBy(() -> LockIdentity.of("a@h", "", 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot use lock identity of a@h: the hostname is blank");
  }

  @Test
  void of_negativePid_isRejected() {
    assertThatThrownBy(() -> LockIdentity.of("a@h", "h", -2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot use lock identity of a@h: negative pid -2");
  }
}
