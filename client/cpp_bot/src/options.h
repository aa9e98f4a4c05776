// The command line and the environment, parsed (the Go starter's options).
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace unobot {

struct Options {
  std::string server = "127.0.0.1:50051";  // UNO_SERVER
  std::string table;                        // UNO_TABLE
  std::string token;                        // UNO_TOKEN: a seat already taken
  std::string name = "cpp-bot";             // display name when joining by name
  std::string tls_ca;                       // UNOPLAY_TLS_CA: a PEM file to trust (TLS)
  bool verbose = false;                     // UNO_VERBOSE: log every decision
  int seat = -1;                            // UNO_SEAT, for the log until we know
  // The arena (arena.cpp): enter it under `name` and play every game it seats us at.
  bool arena = false;
  int games = 0;            // with arena: stop after this many games (0: never)
  std::string secret_file;  // with arena: keeps the name's secret (default NAME.arena-secret)
  // Only when it creates a table of its own (no --table):
  int bots = 3;
  std::string bot_kind = "greedy";
  std::string rules;  // preset name; "" the server's default
  int target = -1;    // -1: the preset's
  // Testing only: cut the stream after the Nth message received / intent sent.
  std::set<int> drop_after, drop_after_intent;
};

// The outcome of parsing: options to run with, or an exit code (0 for
// --help, 2 for a bad command line, already reported on `err`).
struct Parsed {
  std::optional<Options> options;
  int exit_code = 0;
};

using Getenv = std::function<std::string(const std::string&)>;

Parsed parse_options(const std::vector<std::string>& args, const Getenv& getenv, std::ostream& err);

}  // namespace unobot
