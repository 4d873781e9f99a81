package dev.tierlock.cli;

import java.io.File;
import java.io.IOException;
import java.lang.module.Configuration;
import java.lang.module.FindException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Jars and class directories split the way a user starts Tierlock on the module path: the root
 * modules and every module they require, followed through explicit descriptors, on the module path;
 * every other entry on the class path, which automatic modules read. Google's and gRPC's jars that
 * split packages between them thus stay on the class path, beside the four Google modules the GCS
 * datastore requires.
 *
 * @param modulePath the module path, in the order the entries were given
 * @param classPath the rest, in the order the entries were given
 * @param modules the modules on the module path, by name, with their locations
 */
record ModulePathLayout(List<Path> modulePath, List<Path> classPath, Map<String, URI> modules) {

  ModulePathLayout {
    modulePath = List.copyOf(modulePath);
    classPath = List.copyOf(classPath);
    modules = Map.copyOf(modules);
  }

  /** {@return this layout with nothing on the class path} */
  ModulePathLayout withoutClassPath() {
    return new ModulePathLayout(modulePath, List.of(), modules);
  }

  /** {@return where the module {@code name} on the module path is, as the JVM reports it} */
  URI location(String name) {
    URI location = modules.get(name);
    if (location == null) {
      throw new IllegalArgumentException("Cannot locate " + name + ": it is not on the module path");
    }
    return location;
  }

  /** {@return this module's classes and its runtime class path, as Maven wrote it for the test} */
  static List<Path> runtimeEntries() throws IOException {
    String file = System.getProperty("tierlock.runtimeClasspath");
    if (file == null) {
      throw new IllegalStateException("Cannot find the runtime class path: run this test through Maven, whose "
          + "dependency plugin writes target/runtime-classpath.txt");
    }
    List<Path> entries = new ArrayList<>();
    entries.add(location(TierlockCli.class));
    entries.addAll(split(Files.readString(Path.of(file)).strip()));
    return entries;
  }

  /** {@return the test class path as surefire reports it (else {@code java.class.path})} */
  static List<Path> testEntries() {
    return split(System.getProperty("surefire.test.class.path", System.getProperty("java.class.path", "")));
  }

  /**
   * Puts {@code roots}, and every module they require through explicit descriptors, on the module
   * path (a name no entry holds, such as a JDK module, is left for the JVM to find or refuse), and
   * the rest of {@code entries} on the class path.
   *
   * @throws IllegalArgumentException if a root is in no entry
   */
  static ModulePathLayout resolving(List<Path> entries, String... roots) {
    // as on a module path, the first entry that holds a module is the one used
    Map<String, Path> entryOf = new LinkedHashMap<>();
    Map<String, ModuleReference> referenceOf = new LinkedHashMap<>();
    for (Path entry : entries) {
      reference(entry).filter(r -> !entryOf.containsKey(r.descriptor().name())).ifPresent(r -> {
        entryOf.put(r.descriptor().name(), entry);
        referenceOf.put(r.descriptor().name(), r);
      });
    }
    for (String root : roots) {
      if (!entryOf.containsKey(root)) {
        throw new IllegalArgumentException("Cannot put " + root + " on the module path: no entry holds it");
      }
    }
    Set<String> chosen = new LinkedHashSet<>();
    Deque<String> todo = new ArrayDeque<>(Arrays.asList(roots));
    while (!todo.isEmpty()) {
      String name = todo.pop();
      if (referenceOf.containsKey(name) && chosen.add(name)) {
        for (ModuleDescriptor.Requires requires : referenceOf.get(name).descriptor().requires()) {
          if (!requires.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC)) {
            todo.add(requires.name());
          }
        }
      }
    }
    List<Path> modulePath = new ArrayList<>();
    List<Path> classPath = new ArrayList<>();
    for (Path entry : entries) {
      boolean module = chosen.stream().anyMatch(name -> entryOf.get(name).equals(entry));
      (module ? modulePath : classPath).add(entry);
    }
    Map<String, URI> modules = new LinkedHashMap<>();
    chosen.forEach(name -> modules.put(name, referenceOf.get(name).location().orElseThrow()));
    return new ModulePathLayout(modulePath, classPath, modules);
  }

  /**
   * Resolves the module path in a new layer over the boot layer, one class loader for all of it,
   * as the JVM's boot layer would: a missing module, two modules a module reads a package from, or
   * a package in two modules fails here.
   */
  ModuleLayer layer(String... roots) {
    Configuration configuration = ModuleLayer.boot().configuration()
        .resolveAndBind(ModuleFinder.of(modulePath.toArray(Path[]::new)), ModuleFinder.of(), Set.of(roots));
    return ModuleLayer.boot().defineModulesWithOneLoader(configuration, ClassLoader.getPlatformClassLoader());
  }

  private static Optional<ModuleReference> reference(Path entry) {
    boolean module = Files.isRegularFile(entry) ? entry.toString().endsWith(".jar")
        : Files.isRegularFile(entry.resolve("module-info.class"));
    if (!module) {
      return Optional.empty();
    }
    try {
      return ModuleFinder.of(entry).findAll().stream().findFirst();
    } catch (FindException e) {
      return Optional.empty(); // not usable as a module (a bad automatic name, say): class path only
    }
  }

  private static Path location(Class<?> type) {
    try {
      return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException("Cannot locate the classes of " + type, e);
    }
  }

  private static List<Path> split(String path) {
    List<Path> out = new ArrayList<>();
    for (String entry : path.split(File.pathSeparator)) {
      if (!entry.isBlank()) {
        out.add(Path.of(entry).toAbsolutePath());
      }
    }
    return out;
  }
}
