// uno-cpp-bot: a UNO bot for a unoplay server, in C++17.
//
// It is built from the project's .proto files alone (compiled at build time
// by protoc and grpc_cpp_plugin into client/cpp_bot/build, never committed)
// and the bot author's guide, proto/README.md. It:
//   - takes a seat: the token in UNO_TOKEN / --token, or joins the table
//     UNO_TABLE / --table by name through LobbyService.JoinTable, or, with
//     neither, creates a table with --bots N server-side bots and starts it;
//   - opens GameService.Play, sends join, and answers every PlayerUpdate that
//     offers it legal actions with one of them (choose() in strategy.cpp),
//     deciding on the latest update only, by action id;
//   - counts the ActionErrors it receives (and logs them to stderr);
//   - reconnects with backoff when the stream drops, resuming from the last
//     seq it saw and dropping any message it has already seen;
//   - checks the deals when the server reveals the seed (deals.cpp, from the
//     guide's section 11);
//   - with --arena (arena.cpp), enters the server's arena under --name
//     (ArenaService.Enter, proto/README.md section 13), keeping the name's
//     secret in --secret-file (default NAME.arena-secret, written 0600), and
//     plays every game it is seated at as above, until --games N are played
//     (it closes Enter when the Nth seat comes, so no further game is seated);
//   - exits 0 when the stream ends after game over, or when the server's stop
//     interrupted the game (deal_revealed without GAME_OVER, or UNAVAILABLE
//     "the server is shutting down": it does not reconnect), printing one line
//     of JSON to stdout: seat, final scores, winners, errors, the deal check.
//
// Files: main.cpp (this), options.cpp (command line and environment),
// bot.cpp (seat, stream, resume), arena.cpp (--arena), strategy.cpp (choose(): edit it),
// deals.cpp (the deal check), summary.cpp (the JSON line).
//
// Environment (as `uno match --seat client/cpp_bot/build/uno-cpp-bot` sets
// it): UNO_SERVER (host:port), UNO_TABLE (table id), UNO_TOKEN (seat token),
// UNO_SEAT; UNOPLAY_TLS_CA (a PEM file: use TLS and trust it, as the Python
// clients do). --help lists the options.
//
// Exit codes: 0 game over or interrupted by the server's stop, 1 the server
// refused us (bad token, unknown table, ...) or the stream could not be
// restored, 2 bad command line. With --arena: 0 the games are played or the
// name entered elsewhere took over (Enter ended OK), 1 Enter refused (or
// UNAVAILABLE too many times in a row) or a game ended badly.
#include <cstdlib>
#include <iostream>

#include "arena.h"
#include "bot.h"
#include "options.h"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  const auto getenv = [](const std::string& name) -> std::string {
    const char* value = std::getenv(name.c_str());
    return value ? value : "";
  };
  const unobot::Parsed parsed = unobot::parse_options(args, getenv, std::cerr);
  if (!parsed.options) return parsed.exit_code;
  if (parsed.options->arena) return unobot::run_arena(*parsed.options, std::cout, std::cerr);
  return unobot::Bot(*parsed.options, std::cout, std::cerr).run();
}
