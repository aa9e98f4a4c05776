#include "options.h"

#include <map>
#include <sstream>
#include <stdexcept>

namespace unobot {
namespace {

constexpr const char* kUsage =
    "usage: uno-cpp-bot [--server HOST:PORT] [--table ID] [--token TOKEN] [--name NAME]\n"
    "                   [--tls-ca PEM] [--verbose]\n"
    "                   [--bots N] [--bot-kind greedy|random] [--rules PRESET] [--target N]\n"
    "       uno-cpp-bot --arena --name NAME [--games N] [--secret-file FILE] [--server HOST:PORT]\n"
    "                   [--tls-ca PEM] [--verbose]\n"
    "  (--arena: enter the server's arena under NAME and play every game it seats the\n"
    "  bot at, stopping after --games N (0: never); the name's secret is kept in FILE,\n"
    "  by default NAME.arena-secret)\n"
    "  (--bots, --bot-kind, --rules and --target only when it creates the table;\n"
    "  testing only: --drop-after N[,N...] cuts the stream after the Nth message\n"
    "  received, --drop-after-intent N[,N...] right after the Nth intent sent)\n"
    "environment: UNO_SERVER, UNO_TABLE, UNO_TOKEN, UNO_SEAT, UNOPLAY_TLS_CA, UNO_VERBOSE\n";

struct BadCommandLine : std::runtime_error {
  using std::runtime_error::runtime_error;
};

int number(const std::string& text, const std::string& what) {
  size_t used = 0;
  int n = 0;
  try {
    n = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (text.empty() || used != text.size()) throw BadCommandLine(what + ": \"" + text + "\" is not a number");
  return n;
}

// "N[,N...]" (positive numbers) into a set.
std::set<int> counts(const std::string& text, const std::string& what) {
  std::set<int> out;
  std::istringstream parts(text);
  for (std::string part; std::getline(parts, part, ',');) {
    const int n = number(part, what);
    if (n < 1) throw BadCommandLine(what + ": \"" + part + "\" is not a positive number");
    out.insert(n);
  }
  return out;
}

}  // namespace

Parsed parse_options(const std::vector<std::string>& args, const Getenv& getenv, std::ostream& err) {
  Options o;
  auto env = [&](const char* name, std::string& into) {
    if (const std::string v = getenv(name); !v.empty()) into = v;
  };
  env("UNO_SERVER", o.server);
  env("UNO_TABLE", o.table);
  env("UNO_TOKEN", o.token);
  env("UNOPLAY_TLS_CA", o.tls_ca);
  o.verbose = !getenv("UNO_VERBOSE").empty();
  if (const std::string seat = getenv("UNO_SEAT"); !seat.empty()) {
    try {
      o.seat = std::stoi(seat);
    } catch (const std::exception&) {
    }
  }
  try {
    std::set<std::string> creating;    // options only for a table of our own
    std::set<std::string> arena_only;  // options only with --arena
    for (size_t i = 0; i < args.size(); ++i) {
      std::string arg = args[i], value;
      bool has_value = false;
      if (const auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        has_value = true;
      }
      auto next = [&]() -> std::string {
        if (has_value) return value;
        if (i + 1 >= args.size()) throw BadCommandLine(arg + " needs a value");
        return args[++i];
      };
      if (arg == "--help" || arg == "-h") {
        err << kUsage;
        return {std::nullopt, 0};
      } else if (arg == "--server") {
        o.server = next();
      } else if (arg == "--table") {
        o.table = next();
      } else if (arg == "--token") {
        o.token = next();
      } else if (arg == "--name") {
        o.name = next();
      } else if (arg == "--tls-ca") {
        o.tls_ca = next();
      } else if (arg == "--verbose" || arg == "-v") {
        o.verbose = true;
      } else if (arg == "--bots") {
        o.bots = number(next(), arg);
        creating.insert(arg);
      } else if (arg == "--bot-kind") {
        o.bot_kind = next();
        creating.insert(arg);
      } else if (arg == "--rules") {
        o.rules = next();
        creating.insert(arg);
      } else if (arg == "--target") {
        o.target = number(next(), arg);
        creating.insert(arg);
      } else if (arg == "--arena") {
        o.arena = true;
      } else if (arg == "--games") {
        o.games = number(next(), arg);
        arena_only.insert(arg);
      } else if (arg == "--secret-file") {
        o.secret_file = next();
        arena_only.insert(arg);
      } else if (arg == "--drop-after") {
        o.drop_after = counts(next(), arg);
      } else if (arg == "--drop-after-intent") {
        o.drop_after_intent = counts(next(), arg);
      } else if (arg.rfind("-", 0) == 0) {
        throw BadCommandLine("unknown option " + arg);
      } else {
        throw BadCommandLine("unexpected argument \"" + arg + "\"");
      }
    }
    if (!o.token.empty() && o.table.empty()) {
      throw BadCommandLine("a seat token needs its table: --table ID or UNO_TABLE");
    }
    if (!o.table.empty() && !creating.empty()) {
      throw BadCommandLine("--bots, --bot-kind, --rules and --target are only for a new table (no --table)");
    }
    if (o.arena && (!o.table.empty() || !o.token.empty())) {
      throw BadCommandLine("--arena seats the bot itself: no --table or --token");
    }
    if (o.arena && !creating.empty()) {
      throw BadCommandLine("--bots, --bot-kind, --rules and --target are not for --arena");
    }
    if (!o.arena && !arena_only.empty()) {
      throw BadCommandLine("--games and --secret-file are only for --arena");
    }
    if (o.games < 0) throw BadCommandLine("--games must be 0 or more");
    if (o.arena && o.name.empty()) throw BadCommandLine("--arena needs a --name");
    if (o.arena && o.secret_file.empty()) o.secret_file = o.name + ".arena-secret";
    if (o.bots < 1 || o.bots > 9) throw BadCommandLine("--bots must be 1..9");
    if (o.target > 100000) throw BadCommandLine("--target must be 0..100000");
  } catch (const BadCommandLine& problem) {
    err << "uno-cpp-bot: " << problem.what() << "\n" << kUsage;
    return {std::nullopt, 2};
  }
  return {o, 0};
}

}  // namespace unobot
