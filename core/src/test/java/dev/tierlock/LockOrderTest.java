package dev.tierlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LockOrderTest {

  @AfterEach
  void nothingLeftHeld() {
    assertThat(LockOrder.innermost()).isNull();
  }

  @Test
  void enter_inOrder_isAllowed() {
    try (LockOrder.Ticket global = LockOrder.enter(LockLevel.GLOBAL, "g");
        LockOrder.Ticket pulled = LockOrder.enter(LockLevel.CHECKOUT, "p");
        LockOrder.Ticket lockfile = LockOrder.enter(LockLevel.PULLED_EXTENSIONS, "l")) {
      assertThat(LockOrder.innermost()).isEqualTo(LockLevel.PULLED_EXTENSIONS);
    }
  }

  @Test
  void enter_skippingALevel_isAllowed() {
    try (LockOrder.Ticket global = LockOrder.enter(LockLevel.GLOBAL, "g");
        LockOrder.Ticket lockfile = LockOrder.enter(LockLevel.PULLED_EXTENSIONS, "l")) {
      assertThat(LockOrder.innermost()).isEqualTo(LockLevel.PULLED_EXTENSIONS);
    }
  }

  @Test
  void enter_outerWhileHoldingInner_isRejected() {
    try (LockOrder.Ticket lockfile = LockOrder.enter(LockLevel.PULLED_EXTENSIONS, "the pulled-extensions lock")) {
      assertThatThrownBy(() -> LockOrder.enter(LockLevel.GLOBAL, "lock \".datastore.lock\""))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("Cannot acquire lock \".datastore.lock\": the GLOBAL lock is taken before the PULLED_EXTENSIONS"
              + " lock, and this thread already holds the PULLED_EXTENSIONS lock (lock order is GLOBAL and CHECKOUT,"
              + " then PULLED_EXTENSIONS)");
      assertThat(LockOrder.innermost()).isEqualTo(LockLevel.PULLED_EXTENSIONS);
    }
  }

  @Test
  void enter_theGlobalLevelWhileHoldingACheckoutLock_isAllowed() {
    // the change of a run on one checkout may run a transaction on another store: its lease, then its checkout lock
    try (LockOrder.Ticket global = LockOrder.enter(LockLevel.GLOBAL, "g");
        LockOrder.Ticket checkout = LockOrder.enter(LockLevel.CHECKOUT, "c");
        LockOrder.Ticket otherGlobal = LockOrder.enter(LockLevel.GLOBAL, "another store's g");
        LockOrder.Ticket otherCheckout = LockOrder.enter(LockLevel.CHECKOUT, "another checkout's c")) {
      assertThat(LockOrder.innermost()).isEqualTo(LockLevel.CHECKOUT);
    }
  }

  @Test
  void enter_sameLevelAgain_isAllowed() {
    try (LockOrder.Ticket outer = LockOrder.enter(LockLevel.CHECKOUT, "p");
        LockOrder.Ticket inner = LockOrder.enter(LockLevel.CHECKOUT, "p")) {
      inner.close();
      assertThat(LockOrder.innermost()).isEqualTo(LockLevel.CHECKOUT);
    }
  }

  @Test
  void close_innerTicket_allowsAnotherOuterLevelLater() {
    try (LockOrder.Ticket global = LockOrder.enter(LockLevel.GLOBAL, "g")) {
      LockOrder.Ticket lockfile = LockOrder.enter(LockLevel.PULLED_EXTENSIONS, "l");
      lockfile.close();
      lockfile.close();
      try (LockOrder.Ticket pulled = LockOrder.enter(LockLevel.CHECKOUT, "p")) {
        assertThat(LockOrder.innermost()).isEqualTo(LockLevel.CHECKOUT);
      }
      assertThat(LockOrder.innermost()).isEqualTo(LockLevel.GLOBAL);
    }
  }

  @Test
  void enter_isPerThread() throws Exception {
    try (LockOrder.Ticket lockfile = LockOrder.enter(LockLevel.PULLED_EXTENSIONS, "l")) {
      LockLevel seen = CompletableFuture.supplyAsync(() -> {
        try (LockOrder.Ticket global = LockOrder.enter(LockLevel.GLOBAL, "g")) {
          return LockOrder.innermost();
        }
      }).get(10, TimeUnit.SECONDS);
      assertThat(seen).isEqualTo(LockLevel.GLOBAL);
    }
  }

  @Test
  void close_fromAnotherThread_freesTheLevelOfTheThreadThatEnteredIt() throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      LockOrder.Ticket lockfile = pool.submit(() -> LockOrder.enter(LockLevel.PULLED_EXTENSIONS, "l")).get(10, TimeUnit.SECONDS);
      assertThat(pool.submit(LockOrder::innermost).get(10, TimeUnit.SECONDS)).isEqualTo(LockLevel.PULLED_EXTENSIONS);

      lockfile.close();
      lockfile.close();

      assertThat(LockOrder.innermost()).as("the closing thread took nothing").isNull();
      assertThat(pool.submit(LockOrder::innermost).get(10, TimeUnit.SECONDS)).as("the pool thread is free again").isNull();
      LockLevel seen = pool.submit(() -> {
        try (LockOrder.Ticket global = LockOrder.enter(LockLevel.GLOBAL, "g")) {
          return LockOrder.innermost();
        }
      }).get(10, TimeUnit.SECONDS);
      assertThat(seen).as("an outer level is allowed again on the pool thread").isEqualTo(LockLevel.GLOBAL);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void close_fromAnotherThread_keepsTheOwnersOtherLevels() throws Exception {
    try (LockOrder.Ticket global = LockOrder.enter(LockLevel.GLOBAL, "g")) {
      LockOrder.Ticket lockfile = LockOrder.enter(LockLevel.PULLED_EXTENSIONS, "l");

      CompletableFuture.runAsync(lockfile::close).get(10, TimeUnit.SECONDS);

      assertThat(LockOrder.innermost()).isEqualTo(LockLevel.GLOBAL);
      try (LockOrder.Ticket pulled = LockOrder.enter(LockLevel.CHECKOUT, "p")) {
        assertThat(LockOrder.innermost()).isEqualTo(LockLevel.CHECKOUT);
      }
    }
  }
}
