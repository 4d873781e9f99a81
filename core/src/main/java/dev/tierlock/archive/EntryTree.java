package dev.tierlock.archive;

import java.text.Normalizer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The tree an archive describes, built entry by entry: which paths are directories (listed or
 * implied), files, hard links and symbolic links. It refuses duplicates, entries under a file or
 * under a symbolic link, hard links to anything but an earlier file, and, once every entry is
 * known, symbolic links that resolve outside the root (following the archive's own links, as the
 * filesystem would). A trie of segments, so memory grows with the distinct segments, bounded by
 * {@link ArchiveLimits#maxEntries()} nodes. Not thread-safe.
 */
final class EntryTree {

  static final int MAX_LINKS_FOLLOWED = 40;
  static final int MAX_RESOLUTION_STEPS = 4096;

  private enum Kind { IMPLIED_DIRECTORY, DIRECTORY, FILE, HARD_LINK, SYMBOLIC_LINK }

  /**
   * One path of the archive. Children are keyed by their folded name (Unicode NFC, lowercase), so
   * that two names one case-insensitive or normalising filesystem (macOS, Windows) would store as
   * one file are caught as duplicates, and link resolution follows what such a filesystem would.
   */
  private static final class Node {
    final String exact;
    Kind kind;
    @Nullable Map<String, Node> children;

    Node(String exact, Kind kind) {
      this.exact = exact;
      this.kind = kind;
    }

    @Nullable Node child(String segment) {
      return children == null ? null : children.get(fold(segment));
    }
  }

  /** Returns the name a case-insensitive, normalising filesystem would see. */
  static String fold(String name) {
    return Normalizer.normalize(name, Normalizer.Form.NFC).toLowerCase(Locale.ROOT);
  }

  private record Link(String path, String name, String target) {}

  private final String source;
  private final int maxNodes;
  private final Node root = new Node("", Kind.DIRECTORY);
  private final List<Link> symbolicLinks = new ArrayList<>();
  private final Map<String, String> linkTargets = new HashMap<>();
  private int nodes;

  EntryTree(String source, int maxNodes) {
    this.source = source;
    this.maxNodes = maxNodes;
  }

  /** Records a directory; one that earlier entries implied becomes listed. */
  void addDirectory(String path, String name) {
    add(path, name, Kind.DIRECTORY);
  }

  /** Records a regular file. */
  void addFile(String path, String name) {
    add(path, name, Kind.FILE);
  }

  /** Records a hard link; {@code target} must be a file recorded earlier. */
  void addHardLink(String path, String name, String target) {
    Node node = find(target);
    if (node == null || node.kind != Kind.FILE) {
      throw ArchiveException.rejected(source, name, ArchiveException.Rule.HARD_LINK_TARGET,
          "target \"" + Printable.of(target) + "\" is " + (node == null ? "not in the archive before it" : "not a regular file"));
    }
    add(path, name, Kind.HARD_LINK);
  }

  /** Records a symbolic link; its target is checked by {@link #checkSymbolicLinks()}. */
  void addSymbolicLink(String path, String name, String target) {
    add(path, name, Kind.SYMBOLIC_LINK);
    symbolicLinks.add(new Link(path, name, target));
    linkTargets.put(fold(path), target);
  }

  /** Returns the number of paths recorded, implied directories included. */
  int size() {
    return nodes;
  }

  /**
   * Checks that every symbolic link resolves inside the root, following the archive's links.
   *
   * @throws ArchiveException ({@code archive_rejected}) ({@link ArchiveException.Rule#LINK_ESCAPES} or {@link
   *     ArchiveException.Rule#LINK_LOOP}) for the first link that does not
   */
  void checkSymbolicLinks() {
    for (Link link : symbolicLinks) {
      resolve(link);
    }
  }

  private void add(String path, String name, Kind kind) {
    Node parent = root;
    String[] segments = path.split("/");
    for (int i = 0; i < segments.length - 1; i++) {
      Node child = parent.child(segments[i]);
      if (child != null && !child.exact.equals(segments[i])) {
        throw caseCollision(name, segments[i], child.exact);
      }
      if (child == null) {
        child = put(parent, segments[i], Kind.IMPLIED_DIRECTORY);
      } else if (child.kind == Kind.SYMBOLIC_LINK) {
        throw ArchiveException.rejected(source, name, ArchiveException.Rule.THROUGH_SYMLINK,
            "\"" + Printable.of(String.join("/", Arrays.copyOf(segments, i + 1))) + "\" is a symbolic link");
      } else if (child.kind == Kind.FILE || child.kind == Kind.HARD_LINK) {
        throw ArchiveException.rejected(source, name, ArchiveException.Rule.PARENT_NOT_DIRECTORY,
            "\"" + Printable.of(String.join("/", Arrays.copyOf(segments, i + 1))) + "\" is a file");
      }
      parent = child;
    }
    String last = segments[segments.length - 1];
    Node existing = parent.child(last);
    if (existing != null && !existing.exact.equals(last)) {
      throw caseCollision(name, last, existing.exact);
    }
    if (existing == null) {
      put(parent, last, kind);
    } else if (existing.kind == Kind.IMPLIED_DIRECTORY && kind == Kind.DIRECTORY) {
      existing.kind = Kind.DIRECTORY;
    } else {
      throw ArchiveException.rejected(source, name, ArchiveException.Rule.DUPLICATE,
          "\"" + Printable.of(path) + "\" already appeared");
    }
  }

  private Node put(Node parent, String segment, Kind kind) {
    if (nodes >= maxNodes) {
      throw ArchiveException.limit(source, ArchiveException.Limit.ENTRIES, maxNodes, nodes + 1L);
    }
    if (parent.children == null) {
      parent.children = new HashMap<>();
    }
    Node node = new Node(segment, kind);
    parent.children.put(fold(segment), node);
    nodes++;
    return node;
  }

  /** Returns the node at exactly {@code path} (same case and form), or null. */
  private @Nullable Node find(String path) {
    Node node = root;
    for (String segment : path.split("/")) {
      node = node.child(segment);
      if (node == null || !node.exact.equals(segment)) {
        return null;
      }
    }
    return node;
  }

  /**
   * Resolves one link as the filesystem would: segment by segment from the link's directory, a
   * {@code ..} leaving the directory reached so far (after any link was followed), each link of
   * the archive replaced by its own target. Paths the archive does not hold resolve lexically.
   */
  private void resolve(Link link) {
    // the directories from the root to where resolution stands; a path absent from the tree is
    // kept by name only (null node), and can only be left with '..'
    List<String> stack = new ArrayList<>();
    List<@Nullable Node> nodesOnStack = new ArrayList<>();
    String[] own = link.path().split("/");
    @Nullable Node node = root;
    for (int i = 0; i < own.length - 1; i++) {
      node = node == null ? null : node.child(own[i]);
      stack.add(own[i]);
      nodesOnStack.add(node);
    }
    Deque<String> pending = new ArrayDeque<>();
    pushFront(pending, link.target());
    int followed = 0;
    int steps = 0;
    while (!pending.isEmpty()) {
      if (++steps > MAX_RESOLUTION_STEPS) {
        throw loop(link, "more than " + MAX_RESOLUTION_STEPS + " steps");
      }
      String segment = pending.pollFirst();
      if (segment.isEmpty() || segment.equals(".")) {
        continue;
      }
      if (segment.equals("..")) {
        if (stack.isEmpty()) {
          throw ArchiveException.rejected(source, link.name(), ArchiveException.Rule.LINK_ESCAPES,
              "target \"" + Printable.of(link.target()) + "\" resolves outside the archive root");
        }
        stack.remove(stack.size() - 1);
        nodesOnStack.remove(nodesOnStack.size() - 1);
        continue;
      }
      @Nullable Node here = nodesOnStack.isEmpty() ? root : nodesOnStack.get(nodesOnStack.size() - 1);
      @Nullable Node child = here == null ? null : here.child(segment);
      if (child != null && child.kind == Kind.SYMBOLIC_LINK) {
        if (++followed > MAX_LINKS_FOLLOWED) {
          throw loop(link, "more than " + MAX_LINKS_FOLLOWED + " links followed");
        }
        stack.add(segment);
        String childPath = String.join("/", stack);
        stack.remove(stack.size() - 1);
        pushFront(pending, linkTargets.get(fold(childPath)));
        continue;
      }
      stack.add(segment);
      nodesOnStack.add(child);
    }
  }

  private ArchiveException caseCollision(String name, String segment, String earlier) {
    return ArchiveException.rejected(source, name, ArchiveException.Rule.DUPLICATE, "\"" + Printable.of(segment)
        + "\" and the earlier \"" + Printable.of(earlier)
        + "\" name one file on case-insensitive or normalising filesystems");
  }

  private ArchiveException loop(Link link, String why) {
    return ArchiveException.rejected(source, link.name(), ArchiveException.Rule.LINK_LOOP,
        "target \"" + Printable.of(link.target()) + "\": " + why);
  }

  private static void pushFront(Deque<String> pending, String target) {
    String[] segments = target.split("/", -1);
    for (int i = segments.length - 1; i >= 0; i--) {
      pending.addFirst(segments[i]);
    }
  }
}
