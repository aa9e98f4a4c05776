package unobot;

import io.grpc.ManagedChannel;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;

/**
 * uno-java-bot: a UNO bot for a unoplay server, in Java, built from the
 * project's .proto files alone and the bot author's guide (proto/README.md).
 *
 * <p>It takes a seat (the token in UNO_TOKEN / --token, or joins the table
 * UNO_TABLE / --table by name, or, with neither, creates a table with --bots
 * N server-side bots and starts it), plays the game over GameService.Play
 * from the legal actions of the latest update (Strategy.java), one intent at
 * a time, resumes by seq after a dropped stream, checks the deals when the
 * seed is revealed (Deals.java), and prints one line of JSON at its end. With
 * --arena it enters the server's arena instead (Arena.java).
 *
 * <p>Exit codes: 0 the game is over, or was interrupted by the server's
 * stop; 1 the server refused us (bad token, unknown table, ...) or the stream
 * could not be restored; 2 a bad command line.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws InterruptedException {
    PrintStream out = System.out;
    PrintStream err = System.err;
    Options opts;
    try {
      opts = Options.parse(List.of(args), System.getenv(), err);
    } catch (Options.Help help) {
      System.exit(0);
      return;
    } catch (Options.BadCommandLine bad) {
      err.print("uno-java-bot: " + bad.getMessage() + "\n" + Options.USAGE);
      System.exit(2);
      return;
    }
    System.exit(run(opts, out, err));
  }

  /** Play as the options say; the exit code. */
  static int run(Options opts, PrintStream out, PrintStream err) throws InterruptedException {
    if (opts.arena) {
      return new Arena(opts, out, err).run();
    }
    ManagedChannel channel;
    try {
      channel = Channels.open(opts);
    } catch (IOException e) {
      err.println("[java-bot] " + e.getMessage());
      return 1;
    }
    try {
      return new Bot(opts, channel, out, err).run();
    } finally {
      Channels.close(channel);
    }
  }
}
