package dev.tierlock.benchmarks;

import java.util.ArrayList;
import java.util.List;

/** A Markdown table, built row by row. */
final class MarkdownTable {

  private final List<String> header;
  private final List<List<String>> rows = new ArrayList<>();

  MarkdownTable(String... header) {
    this.header = List.of(header);
  }

  /** Adds a row of as many cells as the header has. */
  MarkdownTable row(String... cells) {
    if (cells.length != header.size()) {
      throw new IllegalArgumentException("Cannot add a row of " + cells.length + " cells to a table of " + header.size());
    }
    rows.add(List.of(cells));
    return this;
  }

  /** Returns the table, ending with a newline. */
  String render() {
    StringBuilder out = new StringBuilder();
    line(out, header);
    line(out, header.stream().map(h -> "---").toList());
    rows.forEach(row -> line(out, row));
    return out.toString();
  }

  private static void line(StringBuilder out, List<String> cells) {
    out.append("| ").append(String.join(" | ", cells.stream().map(c -> c.replace("|", "\\|")).toList())).append(" |\n");
  }

  /** Formats {@code value} with one decimal, or none from 100 up. */
  static String number(double value) {
    if (Double.isNaN(value)) {
      return "n/a";
    }
    return value >= 100 ? String.format("%,.0f", value) : String.format("%.1f", value);
  }

  /** Formats a ratio as {@code 1.23x}. */
  static String ratio(double value) {
    return Double.isFinite(value) ? String.format("%.2fx", value) : "n/a";
  }
}
