package dev.tierlock.benchmarks;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Line2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;

/**
 * A PNG line chart drawn with Java2D alone: both axes logarithmic (writers 1 to 16 across, the
 * measure up), one line per series, and labelled dashed horizontal levels (the ceilings). A value of
 * zero (or none: no commit measured), which a log axis cannot show, is a hollow marker on the bottom
 * edge.
 */
final class LineChart {

  /** A line: its points as (writers, value); values of zero or less are left out. */
  record Series(String label, List<double[]> points) {}

  /** A dashed horizontal line at {@code value}. */
  record Level(String label, double value) {}

  private static final int WIDTH = 960;
  private static final int HEIGHT = 560;
  private static final int LEFT = 80;
  private static final int RIGHT = 300;
  private static final int TOP = 50;
  private static final int BOTTOM = 60;
  private static final Color[] COLORS = {
      new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0x9467bd),
      new Color(0xff7f0e), new Color(0x8c564b), new Color(0xe377c2), new Color(0x17becf)};

  private final String title;
  private final String yLabel;
  private final List<Integer> xs;

  LineChart(String title, String yLabel, List<Integer> xs) {
    this.title = title;
    this.yLabel = yLabel;
    this.xs = xs;
  }

  /** Draws {@code series} and {@code levels} into {@code png}. */
  void write(Path png, List<Series> series, List<Level> levels) {
    BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    try {
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, WIDTH, HEIGHT);
      double[] range = range(series, levels);
      Axes axes = new Axes(xs.get(0), xs.get(xs.size() - 1), range[0], range[1]);
      drawFrame(g, axes);
      drawLevels(g, axes, levels);
      drawSeries(g, axes, series);
    } finally {
      g.dispose();
    }
    try {
      ImageIO.write(image, "png", png.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write chart " + png, e);
    }
  }

  /** Maps values to pixels, both axes logarithmic. */
  private record Axes(double xMin, double xMax, double yMin, double yMax) {
    double x(double value) {
      return LEFT + (Math.log(value / xMin) / Math.log(xMax / xMin)) * (WIDTH - LEFT - RIGHT);
    }

    double y(double value) {
      return HEIGHT - BOTTOM - (Math.log(value / yMin) / Math.log(yMax / yMin)) * (HEIGHT - TOP - BOTTOM);
    }
  }

  private static double[] range(List<Series> series, List<Level> levels) {
    List<Double> values = new ArrayList<>();
    series.forEach(s -> s.points().forEach(p -> values.add(p[1])));
    levels.forEach(l -> values.add(l.value()));
    double min = values.stream().filter(v -> v > 0).mapToDouble(Double::doubleValue).min().orElse(1);
    double max = values.stream().filter(v -> v > 0).mapToDouble(Double::doubleValue).max().orElse(10);
    double low = Math.pow(10, Math.floor(Math.log10(min)));
    double high = Math.pow(10, Math.ceil(Math.log10(max)));
    return new double[] {low, high > low ? high : low * 10};
  }

  private void drawFrame(Graphics2D g, Axes axes) {
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
    g.setColor(Color.BLACK);
    g.drawString(title, LEFT, 30);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    FontMetrics metrics = g.getFontMetrics();
    for (double decade = axes.yMin(); decade <= axes.yMax() * 1.0001; decade *= 10) {
      for (int step : new int[] {1, 2, 5}) {
        double value = decade * step;
        if (value > axes.yMax() * 1.0001) {
          break;
        }
        int y = (int) Math.round(axes.y(value));
        g.setColor(step == 1 ? new Color(0xcccccc) : new Color(0xeeeeee));
        g.drawLine(LEFT, y, WIDTH - RIGHT, y);
        g.setColor(Color.DARK_GRAY);
        String label = format(value);
        g.drawString(label, LEFT - 8 - metrics.stringWidth(label), y + 4);
      }
    }
    for (int x : xs) {
      int px = (int) Math.round(axes.x(x));
      g.setColor(new Color(0xeeeeee));
      g.drawLine(px, TOP, px, HEIGHT - BOTTOM);
      g.setColor(Color.DARK_GRAY);
      String label = String.valueOf(x);
      g.drawString(label, px - metrics.stringWidth(label) / 2, HEIGHT - BOTTOM + 18);
    }
    g.setColor(Color.BLACK);
    g.drawRect(LEFT, TOP, WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
    g.drawString("writers", (LEFT + WIDTH - RIGHT) / 2 - 20, HEIGHT - 18);
    Graphics2D rotated = (Graphics2D) g.create();
    rotated.rotate(-Math.PI / 2);
    rotated.drawString(yLabel, -(TOP + (HEIGHT - TOP - BOTTOM) / 2) - metrics.stringWidth(yLabel) / 2, 20);
    rotated.dispose();
  }

  private static void drawLevels(Graphics2D g, Axes axes, List<Level> levels) {
    g.setStroke(new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {8, 6}, 0));
    g.setFont(new Font(Font.SANS_SERIF, Font.ITALIC, 12));
    for (Level level : levels) {
      double y = axes.y(level.value());
      g.setColor(Color.GRAY);
      g.draw(new Line2D.Double(LEFT, y, WIDTH - RIGHT, y));
      g.drawString(level.label(), LEFT + 6, (float) y - 4);
    }
    g.setStroke(new BasicStroke(1));
  }

  private static void drawSeries(Graphics2D g, Axes axes, List<Series> series) {
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    int legendY = TOP + 10;
    for (int i = 0; i < series.size(); i++) {
      Series s = series.get(i);
      Color color = COLORS[i % COLORS.length];
      g.setColor(color);
      g.setStroke(new BasicStroke(2.2f));
      double[] previous = null;
      for (double[] point : s.points()) {
        if (!(point[1] > 0)) {
          int px = (int) Math.round(axes.x(point[0]));
          g.drawOval(px - 5, HEIGHT - BOTTOM - 5, 10, 10);
          previous = null;
          continue;
        }
        double px = axes.x(point[0]);
        double py = axes.y(point[1]);
        if (previous != null) {
          g.draw(new Line2D.Double(previous[0], previous[1], px, py));
        }
        g.fillOval((int) Math.round(px) - 4, (int) Math.round(py) - 4, 8, 8);
        previous = new double[] {px, py};
      }
      g.fillRect(WIDTH - RIGHT + 16, legendY - 9, 18, 10);
      g.setColor(Color.BLACK);
      g.drawString(s.label(), WIDTH - RIGHT + 40, legendY);
      legendY += 20;
    }
    g.setColor(Color.DARK_GRAY);
    g.drawString("hollow marker on the bottom edge: 0 or none", WIDTH - RIGHT + 16, legendY + 10);
    g.setStroke(new BasicStroke(1));
  }

  private static String format(double value) {
    if (value >= 1) {
      return String.format("%,.0f", value);
    }
    return String.format("%s", Double.toString(value).replaceAll("0+$", ""));
  }
}
