package dev.tierlock.datastore.gcs;

import com.google.api.gax.paging.Page;
import com.google.api.gax.rpc.ApiException;
import com.google.cloud.ReadChannel;
import com.google.cloud.RetryHelper;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.SocketTimeoutException;
import java.nio.channels.ClosedByInterruptException;
import java.util.Iterator;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;

/**
 * Makes every failure of a {@link Storage} call, and of the read channels, pages and iterators it
 * returns, a {@link StorageException} for {@link GcsErrorTranslator} (or the {@link IOException}
 * a channel declares), so that nothing the client lets through unwrapped leaves this module.
 *
 * <p>What the client may let through, and what it becomes (a {@code StorageException} of code 0
 * whose cause is the original, which the translator reads):
 *
 * <ul>
 *   <li>a {@link CompletionException}: what it wraps, translated the same way;
 *   <li>a {@link CancellationException}, a gax {@link ApiException} (such as a deadline exceeded)
 *       or a {@link RetryHelper.RetryHelperException}: the client's own cancellation, deadline or
 *       retry failure;
 *   <li>any other runtime failure while the thread is interrupted, or with an interruption in its
 *       chain: the client failing on the interrupt (an interrupt during its retry backoff ends in a
 *       {@code NullPointerException} inside {@code StorageException.coalesce}).
 * </ul>
 *
 * <p>An interruption anywhere in a failure's chain ({@link InterruptedException}, {@link
 * ClosedByInterruptException}, an {@link InterruptedIOException} that is not a socket timeout)
 * restores the thread's interrupt flag. Other runtime failures (a bug in a caller's argument, say)
 * pass unchanged. Thread-safe when the guarded object is.
 */
final class GcsCallGuard implements InvocationHandler {

  /** The returned types guarded in turn: where a later call of the client happens. */
  private static final Set<Class<?>> GUARDED = Set.of(Storage.class, ReadChannel.class, Page.class, Iterable.class,
      Iterator.class);

  private final Object target;

  private GcsCallGuard(Object target) {
    this.target = target;
  }

  /** {@return {@code storage}, guarded} */
  static Storage guard(Storage storage) {
    return proxy(Storage.class, storage);
  }

  private static <T> T proxy(Class<T> type, T target) {
    return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, new GcsCallGuard(target)));
  }

  @Override
  public @Nullable Object invoke(Object proxy, Method method, @Nullable Object @Nullable [] args) throws Throwable {
    if (method.getDeclaringClass() == Object.class) {
      return switch (method.getName()) {
        case "equals" -> args != null && proxy == args[0];
        case "hashCode" -> System.identityHashCode(proxy);
        default -> "guarded " + target;
      };
    }
    Object result;
    try {
      result = method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw translate(e.getCause() == null ? e : e.getCause());
    }
    return result == null ? null : guardResult(method.getReturnType(), result);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Object guardResult(Class<?> type, Object result) {
    return GUARDED.contains(type) ? proxy((Class) type, result) : result;
  }

  /**
   * Returns what to throw for {@code failure}, thrown by a call of the client.
   *
   * @param failure what the client threw
   * @return a {@link StorageException}, the {@link IOException} a channel threw, or {@code failure}
   *     itself when it is no failure of the client's
   */
  static Throwable translate(Throwable failure) {
    Throwable cause = failure;
    while (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    boolean interrupted = interruptionIn(cause) || Thread.currentThread().isInterrupted();
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    if (cause instanceof StorageException || cause instanceof IOException || cause instanceof Error) {
      return cause;
    }
    if (cause instanceof CancellationException) {
      return new StorageException(0, "the call was cancelled (its deadline passed or it was interrupted)", cause);
    }
    if (cause instanceof ApiException || cause instanceof RetryHelper.RetryHelperException) {
      return new StorageException(0, "the client gave up (" + cause + ")", cause);
    }
    if (interrupted && cause instanceof RuntimeException) {
      return new StorageException(0, "the call was interrupted (the client then failed: " + cause + ")", cause);
    }
    return cause;
  }

  /** Returns whether an interruption is in the chain of {@code failure}. */
  static boolean interruptionIn(Throwable failure) {
    int depth = 0;
    for (Throwable t = failure; t != null && depth < 16; t = t.getCause() == t ? null : t.getCause(), depth++) {
      if (t instanceof InterruptedException || t instanceof ClosedByInterruptException
          || t instanceof InterruptedIOException && !(t instanceof SocketTimeoutException)) {
        return true;
      }
    }
    return false;
  }
}
