// The one line of JSON the bot prints to stdout at its end (the Go and
// Node.js starters print the same fields), and a small JSON writer for it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "deals.h"

namespace unobot {

struct Summary {
  int seat = -1;
  std::string table;
  bool game_over = false;
  bool interrupted = false;  // the server's stop ended the game unfinished
  std::vector<int32_t> scores;
  std::vector<uint32_t> winners;
  int errors = 0;
  std::map<std::string, int> error_reasons;
  std::vector<std::tuple<std::string, uint32_t, std::string>> refused;  // reason, action id, kind
  int intents = 0;
  int messages = 0;
  uint64_t last_seq = 0;
  int gaps = 0;
  int reconnects = 0;
  std::optional<DealCheck> deals;  // once the seed was revealed
};

std::string to_json(const Summary& s);
std::string to_json(const DealCheck& d);

}  // namespace unobot
