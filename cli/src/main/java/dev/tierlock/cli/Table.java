package dev.tierlock.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * A table the command line prints: a header row of uppercase column names, then one row per item,
 * the cells apart by tabs (so that {@code cut -f} and {@code column -t} read it), an absent value
 * as {@code -}. A row may carry one more cell than the header names, a detail that only some rows
 * have. With {@code --no-headers} the header is left out, and so is the line an empty table
 * prints in its place: a script reads only rows. Not thread-safe.
 */
final class Table {

  /** The columns of a table of extensions: {@code installed} and {@code status} print them in this order. */
  static final List<String> EXTENSIONS = List.of("NAME", "PINNED", "INSTALLED", "STATE", "DETAIL");

  private final List<String> columns;
  private final List<List<String>> rows = new ArrayList<>();

  /** A table with {@code columns}, as its header names them. */
  Table(List<String> columns) {
    this.columns = List.copyOf(columns);
  }

  /** The {@code --no-headers} option, a mixin of every command that prints a table. */
  static final class Options {
    @Option(names = "--no-headers", description = "Print the rows alone: no header row, and nothing for an empty"
        + " table (for scripts).")
    boolean noHeaders;
  }

  /**
   * Adds a row; a last cell that is empty is left out.
   *
   * @throws IllegalArgumentException if it has more cells than the table has columns
   */
  Table row(String... cells) {
    List<String> row = new ArrayList<>(List.of(cells));
    while (!row.isEmpty() && row.get(row.size() - 1).isEmpty()) {
      row.remove(row.size() - 1);
    }
    if (row.size() > columns.size()) {
      throw new IllegalArgumentException("Cannot add a row of " + row.size() + " cells to a table of " + columns.size()
          + " columns");
    }
    rows.add(row);
    return this;
  }

  /**
   * Prints the table on {@code out}: the header unless {@code options} says not to, and the rows;
   * an empty table prints {@code empty} instead (nothing with {@code --no-headers}).
   */
  void print(PrintWriter out, Options options, String empty) {
    if (rows.isEmpty()) {
      if (!options.noHeaders) {
        out.println(empty);
      }
      return;
    }
    if (!options.noHeaders) {
      out.println(String.join("\t", columns));
    }
    rows.forEach(row -> out.println(String.join("\t", row)));
  }
}
