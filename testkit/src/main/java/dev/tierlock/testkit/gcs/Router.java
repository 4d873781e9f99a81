package dev.tierlock.testkit.gcs;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Routes each request of the fake server: works out which operation it is and which object it
 * names, logs it, applies the injected latency and faults, and runs the operation. Errors become
 * the JSON error body GCS sends; anything unexpected becomes a 500 {@code internalError}.
 */
final class Router implements HttpHandler {

  /** A body of work that may fail with I/O or a {@link GcsFakeException}. */
  @FunctionalInterface
  private interface Action {
    void run() throws IOException;
  }

  private record Route(GcsRequest request, Action action) {}

  private final GcsFaults faults;
  private final Consumer<GcsRequest> log;
  private final BucketRoutes buckets;
  private final ObjectRoutes objects;
  private final UploadRoutes uploads;

  Router(ObjectStore store, GcsFaults faults, Consumer<GcsRequest> log, String endpoint) {
    this.faults = faults;
    this.log = log;
    this.buckets = new BucketRoutes(store, endpoint);
    this.objects = new ObjectRoutes(store, endpoint);
    this.uploads = new UploadRoutes(store, new UploadSessions(), endpoint);
  }

  @Override
  public void handle(HttpExchange exchange) {
    HttpCall call = new HttpCall(exchange);
    try {
      Route route = route(call);
      log.accept(route.request());
      call.beforeAnswer(status -> faults.served(route.request(), status));
      faults.delay();
      GcsFaults.Decision decision = faults.decide(route.request());
      if (decision.action() == GcsFaults.Action.FAIL) {
        call.body(); // read the request out, so the client is not cut off mid-send
        throw new GcsFakeException(decision.status(), GcsFakeException.reasonFor(decision.status()),
            "Cannot serve " + describe(route.request()) + ": injected failure with status " + decision.status());
      }
      if (decision.action() == GcsFaults.Action.LOSE_RESPONSE) {
        call.loseResponse();
      }
      if (decision.action() == GcsFaults.Action.HOOK) {
        decision.hook().run();
      }
      route.action().run();
    } catch (GcsFakeException e) {
      answer(call, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException | RuntimeException e) {
      answer(call, new GcsFakeException(500, "internalError",
          "Cannot serve " + call.method() + " " + exchange.getRequestURI().getRawPath() + ": " + e));
    } finally {
      exchange.close();
    }
  }

  private static void answer(HttpCall call, GcsFakeException error) {
    if (call.answered()) {
      return;
    }
    try {
      call.sendError(error, Map.of());
    } catch (IOException e) {
      // the client went away; the exchange is closed by the caller
    }
  }

  private Route route(HttpCall call) throws IOException {
    List<String> s = call.segments();
    String method = call.method();
    if (starts(s, "storage", "v1", "b")) {
      if (s.size() == 3) {
        return method.equals("POST")
            ? route(call, GcsOperation.CREATE_BUCKET, "", "", () -> buckets.create(call))
            : route(call, GcsOperation.LIST_BUCKETS, "", "", () -> buckets.list(call));
      }
      String bucket = s.get(3);
      if (s.size() == 4) {
        return switch (method) {
          case "GET" -> route(call, GcsOperation.GET_BUCKET, bucket, "", () -> buckets.get(call, bucket));
          case "DELETE" -> route(call, GcsOperation.DELETE_BUCKET, bucket, "", () -> buckets.delete(call, bucket));
          default -> other(call, bucket, "");
        };
      }
      if (s.size() == 5 && s.get(4).equals("o") && method.equals("GET")) {
        return route(call, GcsOperation.LIST_OBJECTS, bucket, "", () -> buckets.listObjects(call, bucket));
      }
      if (s.size() == 6 && s.get(4).equals("o")) {
        String name = s.get(5);
        return switch (method) {
          case "GET" -> route(call, "media".equals(call.query().get("alt")) ? GcsOperation.DOWNLOAD
              : GcsOperation.GET_OBJECT, bucket, name, () -> objects.get(call, bucket, name));
          case "PATCH", "PUT" -> route(call, GcsOperation.PATCH, bucket, name, () -> objects.change(call, bucket, name));
          case "DELETE" -> route(call, GcsOperation.DELETE_OBJECT, bucket, name, () -> objects.delete(call, bucket, name));
          default -> other(call, bucket, name);
        };
      }
    }
    if (starts(s, "download", "storage", "v1", "b") && s.size() == 7 && s.get(5).equals("o")
        && method.equals("GET")) {
      String bucket = s.get(4);
      String name = s.get(6);
      return route(call, GcsOperation.DOWNLOAD, bucket, name, () -> objects.get(call, bucket, name));
    }
    if (starts(s, "upload", "storage", "v1", "b") && s.size() == 6 && s.get(5).equals("o")) {
      String bucket = s.get(4);
      if (method.equals("POST")) {
        return route(call, GcsOperation.UPLOAD, bucket, uploads.objectName(call), () -> uploads.start(call, bucket));
      }
      if (method.equals("PUT")) {
        return route(call, GcsOperation.UPLOAD, bucket, uploads.objectName(call), () -> uploads.resume(call, bucket));
      }
    }
    return other(call, s.size() > 3 ? s.get(3) : "", "");
  }

  private static Route route(HttpCall call, GcsOperation operation, String bucket, String object, Action action) {
    return new Route(new GcsRequest(operation, call.method(), bucket, object), action);
  }

  private static Route other(HttpCall call, String bucket, String object) {
    String path = "/" + String.join("/", call.segments());
    return route(call, GcsOperation.OTHER, bucket, object, () -> {
      throw new GcsFakeException(501, "unsupported",
          "Cannot serve " + call.method() + " " + path + ": the fake server does not emulate this request");
    });
  }

  private static String describe(GcsRequest request) {
    return request.operation() + (request.bucket().isEmpty() ? "" : " in bucket " + request.bucket())
        + (request.object().isEmpty() ? "" : " of object " + request.object());
  }

  private static boolean starts(List<String> segments, String... first) {
    if (segments.size() < first.length) {
      return false;
    }
    for (int i = 0; i < first.length; i++) {
      if (!segments.get(i).equals(first[i])) {
        return false;
      }
    }
    return true;
  }
}
