package unobot;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.handler.ssl.JdkAlpnClient;
import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/** The channel to the server, and what every call shares: deadlines, retries, backoff. */
final class Channels {
  static final long UNARY_TIMEOUT_SECONDS = 10; // deadline of each unary call
  static final int MAX_RECEIVE = 16 << 20; // batches of a long resume can be large

  /**
   * Status codes worth reopening the game stream after; anything else is
   * final. RESOURCE_EXHAUSTED: a server limit ended the stream; the seat is unharmed.
   */
  private static final Set<Status.Code> RETRYABLE = Set.of(Status.Code.UNAVAILABLE, Status.Code.INTERNAL,
      Status.Code.UNKNOWN, Status.Code.CANCELLED, Status.Code.DEADLINE_EXCEEDED, Status.Code.RESOURCE_EXHAUSTED);

  private Channels() {}

  /**
   * A channel to {@code opts.server}: plain HTTP/2 unless given a CA (or
   * self-signed certificate) to trust for TLS. Keepalive within what the
   * server allows (client pings no more often than every 4 s): ping every
   * 10 s, give up on the connection after 5 s without an answer, also
   * between calls.
   */
  static ManagedChannel open(Options opts) throws IOException {
    NettyChannelBuilder builder = NettyChannelBuilder.forTarget(opts.server)
        .keepAliveTime(10, TimeUnit.SECONDS)
        .keepAliveTimeout(5, TimeUnit.SECONDS)
        .keepAliveWithoutCalls(true)
        .maxInboundMessageSize(MAX_RECEIVE);
    if (opts.tlsCa.isEmpty()) {
      builder.usePlaintext();
    } else {
      try {
        builder.sslContext(JdkAlpnClient.trusting(Path.of(opts.tlsCa)));
      } catch (IOException | GeneralSecurityException e) {
        throw new IOException("cannot use " + opts.tlsCa + " for TLS: " + e.getMessage(), e);
      }
    }
    return builder.build();
  }

  static void close(ManagedChannel channel) throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  static boolean retryable(Status.Code code) {
    return RETRYABLE.contains(code);
  }

  /** A status as the guide writes it: "UNAUTHENTICATED: its message". */
  static String describe(Status status) {
    return status.getCode().name() + ": " + (status.getDescription() == null ? "" : status.getDescription());
  }

  /** The wait before attempt number {@code attempt} (0, 1, ...): 50 ms doubling up to 2 s, jittered (half to all). */
  static long backoff(Random rng, int attempt) {
    long base = attempt >= 6 ? 2000 : Math.min(2000, 50L << attempt);
    return base / 2 + (long) (rng.nextDouble() * (base / 2 + 1));
  }
}
