package unobot;

import java.io.PrintStream;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The command line and the environment, parsed. */
final class Options {
  static final String USAGE = """
      usage: uno-java-bot [--server HOST:PORT] [--table ID] [--token TOKEN] [--name NAME]
                          [--tls-ca PEM] [--verbose]
                          [--bots N] [--bot-kind greedy|random] [--rules PRESET] [--target N]
             uno-java-bot --arena --name NAME [--games N] [--secret-file FILE] [--server HOST:PORT]
        (--bots, --bot-kind, --rules and --target only when it creates the table;
        testing only: --drop-after N[,N...] cuts the stream after the Nth message
        received, --drop-after-intent N[,N...] right after the Nth intent sent)
      environment: UNO_SERVER, UNO_TABLE, UNO_TOKEN, UNO_SEAT, UNOPLAY_TLS_CA, UNO_VERBOSE
      """;

  String server = "127.0.0.1:50051";
  String table = "";
  String token = "";
  String name = "java-bot";
  String tlsCa = "";
  boolean verbose;
  int bots = 3;
  String botKind = "greedy";
  String rules = "";
  int target = -1; // -1: the preset's
  Set<Integer> dropAfter = Set.of(); // testing only
  Set<Integer> dropAfterIntent = Set.of(); // testing only
  boolean arena; // enter the server's arena (Arena.java)
  int games; // with --arena: stop after this many games (0: never)
  String secretFile = ""; // with --arena: where the name's secret is kept
  int seat = -1; // UNO_SEAT, for the log until we know

  /** A bad command line: the message says why (exit code 2). */
  static final class BadCommandLine extends Exception {
    BadCommandLine(String message) {
      super(message);
    }
  }

  /** Thrown for --help (exit code 0). */
  static final class Help extends Exception {
    Help() {
      super("help");
    }
  }

  /** A copy of these options for one arena game. */
  Options forSeat(String tableId, String seatToken, int seatNumber) {
    Options game = new Options();
    game.server = server;
    game.name = name;
    game.tlsCa = tlsCa;
    game.verbose = verbose;
    game.table = tableId;
    game.token = seatToken;
    game.seat = seatNumber;
    return game;
  }

  static Options parse(List<String> args, Map<String, String> env, PrintStream err)
      throws BadCommandLine, Help {
    Options o = new Options();
    o.server = env.getOrDefault("UNO_SERVER", "").isEmpty() ? o.server : env.get("UNO_SERVER");
    o.table = env.getOrDefault("UNO_TABLE", "");
    o.token = env.getOrDefault("UNO_TOKEN", "");
    o.tlsCa = env.getOrDefault("UNOPLAY_TLS_CA", "");
    o.verbose = !env.getOrDefault("UNO_VERBOSE", "").isEmpty();
    try {
      o.seat = Integer.parseInt(env.getOrDefault("UNO_SEAT", ""));
    } catch (NumberFormatException e) {
      o.seat = -1;
    }
    Set<String> creating = new HashSet<>(); // options only for a table of our own
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      String value = null;
      int eq = arg.indexOf('=');
      if (arg.startsWith("--") && eq >= 0) {
        value = arg.substring(eq + 1);
        arg = arg.substring(0, eq);
      }
      if (value == null && takesValue(arg)) {
        if (i + 1 >= args.size()) {
          throw new BadCommandLine(arg + " needs a value");
        }
        value = args.get(++i);
      }
      switch (arg) {
        case "--help", "-h" -> {
          err.print(USAGE);
          throw new Help();
        }
        case "--server" -> o.server = value;
        case "--table" -> o.table = value;
        case "--token" -> o.token = value;
        case "--name" -> o.name = value;
        case "--tls-ca" -> o.tlsCa = value;
        case "--verbose", "-v" -> o.verbose = true;
        case "--arena" -> o.arena = true;
        case "--games" -> o.games = number(value, arg);
        case "--secret-file" -> o.secretFile = value;
        case "--bots" -> o.bots = number(value, arg);
        case "--bot-kind" -> o.botKind = value;
        case "--rules" -> o.rules = value;
        case "--target" -> o.target = number(value, arg);
        case "--drop-after" -> o.dropAfter = counts(value, arg);
        case "--drop-after-intent" -> o.dropAfterIntent = counts(value, arg);
        default -> throw new BadCommandLine(
            arg.startsWith("-") ? "unknown option " + arg : "unexpected argument \"" + arg + "\"");
      }
      if (Set.of("--bots", "--bot-kind", "--rules", "--target").contains(arg)) {
        creating.add(arg);
      }
    }
    if (!o.token.isEmpty() && o.table.isEmpty()) {
      throw new BadCommandLine("a seat token needs its table: --table ID or UNO_TABLE");
    }
    if (!o.table.isEmpty() && !creating.isEmpty()) {
      throw new BadCommandLine("--bots, --bot-kind, --rules and --target are only for a new table (no --table)");
    }
    if (o.bots < 1 || o.bots > 9) {
      throw new BadCommandLine("--bots must be 1..9");
    }
    if (o.target > 100000) {
      throw new BadCommandLine("--target must be 0..100000");
    }
    if (o.games < 0) {
      throw new BadCommandLine("--games must be 0 or more");
    }
    if (o.arena && (!o.table.isEmpty() || !o.token.isEmpty())) {
      throw new BadCommandLine("--arena seats the bot itself: no --table or --token");
    }
    if (o.arena && o.secretFile.isEmpty()) {
      o.secretFile = o.name + ".arena-secret";
    }
    return o;
  }

  private static boolean takesValue(String arg) {
    return Set.of("--server", "--table", "--token", "--name", "--tls-ca", "--games", "--secret-file",
        "--bots", "--bot-kind", "--rules", "--target", "--drop-after", "--drop-after-intent").contains(arg);
  }

  private static int number(String text, String what) throws BadCommandLine {
    try {
      return Integer.parseInt(text.trim());
    } catch (NumberFormatException e) {
      throw new BadCommandLine(what + ": \"" + text + "\" is not a number");
    }
  }

  /** "N[,N...]" (positive numbers) into a set. */
  private static Set<Integer> counts(String text, String what) throws BadCommandLine {
    Set<Integer> out = new HashSet<>();
    for (String part : text.split(",", -1)) {
      int n = number(part, what);
      if (n < 1) {
        throw new BadCommandLine(what + ": \"" + part + "\" is not a positive number");
      }
      out.add(n);
    }
    return out;
  }
}
