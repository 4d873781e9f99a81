package dev.tierlock.testkit;

import dev.tierlock.spi.ObjectKey;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link FaultyDatastore} saw: one {@link LoggedOperation} per call, appended when the call
 * finishes (for calls that do not overlap, that is call order). Thread-safe; every accessor returns
 * an immutable snapshot.
 */
public final class OperationLog {

  private final List<Line> lines = new ArrayList<>();

  OperationLog() {}

  /** {@return every logged call, in the order the calls finished} */
  public synchronized List<LoggedOperation> entries() {
    return lines.stream().map(Line::operation).toList();
  }

  /**
   * {@return the logged calls of one operation, in the order they finished}
   *
   * @param operation the operation
   */
  public synchronized List<LoggedOperation> entries(DatastoreOperation operation) {
    return lines.stream().map(Line::operation).filter(o -> o.operation() == operation).toList();
  }

  /**
   * {@return the keys of the writes that landed, in order: every write whose outcome is {@code
   * WRITTEN}, and every write that landed although an injected {@link Fault#LOSE_RESPONSE} hid its
   * answer from the caller}
   */
  public synchronized List<ObjectKey> writtenKeys() {
    List<ObjectKey> keys = new ArrayList<>();
    for (Line line : lines) {
      if (line.landed() != null) {
        keys.add(line.landed());
      }
    }
    return List.copyOf(keys);
  }

  /**
   * {@return how many calls of {@code operation} were logged}
   *
   * @param operation the operation
   */
  public synchronized long count(DatastoreOperation operation) {
    return lines.stream().filter(l -> l.operation().operation() == operation).count();
  }

  /** {@return how many calls were logged in all} */
  public synchronized long size() {
    return lines.size();
  }

  /** Forgets every logged call. */
  public synchronized void clear() {
    lines.clear();
  }

  synchronized void append(LoggedOperation operation, @Nullable ObjectKey landed) {
    lines.add(new Line(operation, landed));
  }

  @Override
  public synchronized String toString() {
    StringBuilder out = new StringBuilder("OperationLog[");
    for (Line line : lines) {
      LoggedOperation o = line.operation();
      out.append("\n  ").append(o.operation()).append(' ').append(o.target()).append(' ').append(o.condition())
          .append(" -> ").append(o.outcome());
    }
    return out.append(lines.isEmpty() ? "]" : "\n]").toString();
  }

  private record Line(LoggedOperation operation, @Nullable ObjectKey landed) {}
}
