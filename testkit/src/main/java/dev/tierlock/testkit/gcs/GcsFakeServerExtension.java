package dev.tierlock.testkit.gcs;

import java.io.IOException;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension that starts one {@link GcsFakeServer} per test class (on first use) and stops
 * it after the class, and gives each test a fresh bucket on it.
 *
 * <p>Register it with {@code @ExtendWith(GcsFakeServerExtension.class)} and declare parameters of
 * type {@link GcsFakeServer} (the class's server) or {@link GcsFakeBucket} (a new bucket for each
 * parameter resolved) on test methods, lifecycle methods or constructors. Faults injected in one
 * test stay on the server: clear them ({@code server.faults().clear()}) where tests share it.
 */
public final class GcsFakeServerExtension implements ParameterResolver, AfterAllCallback {

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(GcsFakeServerExtension.class);
  private static final String SERVER = "server";

  /** Creates the extension; JUnit calls this. */
  public GcsFakeServerExtension() {}

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == GcsFakeServer.class || type == GcsFakeBucket.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    GcsFakeServer server = server(context);
    if (parameter.getParameter().getType() == GcsFakeServer.class) {
      return server;
    }
    return new GcsFakeBucket(server, server.newBucket());
  }

  @Override
  public void afterAll(ExtensionContext context) {
    GcsFakeServer server = store(context).remove(SERVER, GcsFakeServer.class);
    if (server != null) {
      server.close();
    }
  }

  private static GcsFakeServer server(ExtensionContext context) {
    ExtensionContext.Store store = store(context);
    synchronized (GcsFakeServerExtension.class) {
      GcsFakeServer server = store.get(SERVER, GcsFakeServer.class);
      if (server == null) {
        try {
          server = GcsFakeServer.start();
        } catch (IOException e) {
          throw new ParameterResolutionException("Cannot start the GCS fake server: " + e.getMessage(), e);
        }
        store.put(SERVER, server);
      }
      return server;
    }
  }

  /** Returns the store of the test class, so one server serves every test of the class. */
  private static ExtensionContext.Store store(ExtensionContext context) {
    ExtensionContext classContext = context;
    while (classContext.getTestMethod().isPresent() && classContext.getParent().isPresent()) {
      classContext = classContext.getParent().get();
    }
    return classContext.getStore(NAMESPACE);
  }
}
