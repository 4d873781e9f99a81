package dev.tierlock.datastore.s3;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives a test method (or a test instance's constructor) an {@link S3TestBucket}: a fresh bucket on
 * the one {@link S3TestServer} of the JVM, deleted when the test (or the test instance) is done.
 * S3Proxy's own extension restarts the server per test and takes no custom blob store.
 */
final class S3ServerExtension implements ParameterResolver {

  private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(S3ServerExtension.class);

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == S3TestBucket.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    S3TestBucket bucket = new S3TestBucket(S3TestServer.instance());
    context.getStore(NAMESPACE).put(bucket.name(), bucket); // closed with the context, which deletes it
    return bucket;
  }
}
