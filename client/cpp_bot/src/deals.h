// Fair deals, checked in C++ from the bot author's guide alone
// (proto/README.md, section 11): an implementation independent of the
// server's Python code.
//
// A seat (or spectator) records what it received, and when the game ends and
// the server reveals the seed and salt (TableMessage.deal_revealed), it
//   - recomputes the commitment from the seed, the salt, the table, the seat
//     count and the rules, and compares it with welcome.deal_commitment;
//   - replays the draw and discard piles from the seed and the public events,
//     and checks every card it could see: dealer draws, starters, its own
//     hands and draws, hands shown to it, every card played (it must be in its
//     player's hand as the seed dealt it) and every hand's points at a round's end.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "unoplay/v1/game.pb.h"
#include "unoplay/v1/game_service.pb.h"

namespace unobot {

namespace pb = unoplay::v1;

// The outcome of a deal check. fair: true, false, or unknown (nullopt) when
// the stream lost some of the game's events (a gap in the seqs).
struct DealCheck {
  std::optional<bool> fair;
  int checked = 0;  // cards compared with what the seed deals
  std::vector<std::string> problems;
};

// "name=value,..." for every RuleSet field but preset, sorted by name.
std::string rules_line(const pb::RuleSet& rules);

// The hex SHA-256 commitment to a game's seed and salt.
std::string commitment(const std::string& seed, const std::string& salt,
                       const std::string& table_id, int seats, const pb::RuleSet& rules);

// The game's one chance stream: words of SHAKE-256(K || block counter).
class DealStream {
 public:
  explicit DealStream(const std::string& seed);
  uint32_t word();
  // A number in 0..n-1: floor(w * n / 2^32).
  uint32_t below(uint32_t n) {
    return static_cast<uint32_t>((static_cast<uint64_t>(word()) * n) >> 32);
  }

 private:
  static constexpr int kBlockBytes = 1024;
  std::array<unsigned char, 32> key_{};
  std::array<unsigned char, kBlockBytes> block_{};
  uint64_t counter_ = 0;
  int next_ = kBlockBytes;  // byte offset of the next word in block_
};

// Everything a seat received of one game that the check needs.
struct Transcript {
  int seat = -1;  // -1: a spectator
  std::string table_id;
  int seats = 0;
  pb::RuleSet rules;
  std::string commitment;  // welcome.deal_commitment
  pb::DealRevealed reveal;
  std::vector<pb::Event> events;
};

DealCheck check_deals(const Transcript& t);

// DealRecorder follows a seat's stream (in seq order, each message once) and
// checks the game's deals when the seed is revealed.
class DealRecorder {
 public:
  void on_message(const pb::TableMessage& m);
  // Seqs jumped: some of this game's events are lost to us.
  void on_gap() { gap_ = true; }
  // The check of the last game revealed, if any.
  const std::optional<DealCheck>& result() const { return result_; }

 private:
  Transcript game_;
  bool gap_ = false;
  std::optional<DealCheck> result_;
};

}  // namespace unobot
