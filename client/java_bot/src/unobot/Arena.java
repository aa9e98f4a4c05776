package unobot;

import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Iterator;
import java.util.Random;
import unoplay.v1.ArenaServiceGrpc;
import unoplay.v1.ArenaServiceOuterClass.ArenaSeat;
import unoplay.v1.ArenaServiceOuterClass.ArenaWelcome;
import unoplay.v1.ArenaServiceOuterClass.EnterRequest;
import unoplay.v1.ArenaServiceOuterClass.EnterResponse;

/**
 * The arena (proto/README.md, section 13): enter the server's arena under
 * --name and play every game it seats the bot at, one Bot a game, until
 * --games are played (0: never). The name's secret, given by its first
 * entry, is kept in --secret-file.
 */
final class Arena {
  private final Options opts;
  private final PrintStream out;
  private final PrintStream err;
  private final Random rng = new Random();

  Arena(Options opts, PrintStream out, PrintStream err) {
    this.opts = opts;
    this.out = out;
    this.err = err;
  }

  private void log(String text) {
    err.println("[java-bot arena " + opts.name + "] " + text);
  }

  /**
   * The exit code: 0 when the games are played or the name entered from
   * elsewhere took over, 1 when the arena refused us or could not be reached
   * again, or a game ended badly.
   */
  int run() throws InterruptedException {
    ManagedChannel channel;
    try {
      channel = Channels.open(opts);
    } catch (IOException e) {
      log(e.getMessage());
      return 1;
    }
    try {
      return enter(channel);
    } finally {
      Channels.close(channel);
    }
  }

  private int enter(ManagedChannel channel) throws InterruptedException {
    int played = 0;
    for (int attempt = 0; ; attempt++) {
      EnterRequest request = EnterRequest.newBuilder().setName(opts.name).setSecret(loadSecret()).build();
      // The Enter stream lives in a context of its own, so that cancelling it
      // (to leave the queue) cancels no game stream.
      Context.CancellableContext context = Context.current().withCancellation();
      try {
        Iterator<EnterResponse> stream = enterIn(context, channel, request);
        while (stream.hasNext()) {
          EnterResponse message = stream.next();
          if (message.hasWelcome()) {
            ArenaWelcome welcome = message.getWelcome();
            if (!welcome.getSecret().isEmpty()) {
              saveSecret(welcome.getSecret()); // a new name: keep this, it is the name
            }
            log("in the arena (" + welcome.getSeats() + " seats, " + welcome.getRules() + ")");
            attempt = 0;
            continue;
          }
          ArenaSeat seat = message.getSeat();
          boolean last = opts.games > 0 && played + 1 >= opts.games;
          if (last) {
            // Leave the queue now, before this game ends: the game goes on
            // (and is rated as any other), and the server seats us at no
            // other one (proto/README.md, section 13, "Stopping").
            context.cancel(null);
          }
          Options game = opts.forSeat(seat.getTableId(), seat.getSeatToken(), seat.getSeat());
          int code = new Bot(game, channel, out, err).run();
          if (code != 0 || last) {
            return code;
          }
          played++;
        }
        log("entered elsewhere: this one stops"); // the stream ended OK
        return 0;
      } catch (StatusRuntimeException e) {
        Status status = e.getStatus();
        if (status.getCode() != Status.Code.UNAVAILABLE || attempt >= Bot.MAX_RETRIES) {
          log("Enter refused: " + Channels.describe(status));
          return 1;
        }
      } finally {
        context.cancel(null);
      }
      Thread.sleep(Channels.backoff(rng, attempt));
    }
  }

  /** ArenaService.Enter, its call bound to {@code context} (cancelling it ends the stream). */
  private static Iterator<EnterResponse> enterIn(Context.CancellableContext context, ManagedChannel channel,
      EnterRequest request) {
    Context previous = context.attach();
    try {
      return ArenaServiceGrpc.newBlockingStub(channel).enter(request);
    } finally {
      context.detach(previous);
    }
  }

  private String loadSecret() {
    try {
      return Files.readString(Path.of(opts.secretFile), StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      return ""; // the first time: the welcome brings one
    }
  }

  private void saveSecret(String secret) {
    Path path = Path.of(opts.secretFile);
    try {
      Files.writeString(path, secret + "\n", StandardCharsets.UTF_8);
      Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-------"));
    } catch (IOException | UnsupportedOperationException e) {
      log("cannot keep the name's secret in " + opts.secretFile + ": " + e.getMessage());
    }
  }
}
