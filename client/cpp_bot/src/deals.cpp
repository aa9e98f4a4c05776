#include "deals.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <memory>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include <google/protobuf/descriptor.h>

namespace unobot {
namespace {

constexpr uint32_t kDeckSize = 108;

// ------------------------------------------------------------------ hashing (OpenSSL)

using MdContext = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

// One digest of `data` by `md`: SHA-256 (32 bytes), or `size` bytes of an
// extendable-output function (SHAKE-256).
std::vector<unsigned char> digest(const EVP_MD* md, const std::string& data, size_t size = 32) {
  MdContext ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  std::vector<unsigned char> out(size);
  unsigned int written = 0;
  const bool xof = (EVP_MD_flags(md) & EVP_MD_FLAG_XOF) != 0;
  if (!ctx || EVP_DigestInit_ex(ctx.get(), md, nullptr) != 1 ||
      EVP_DigestUpdate(ctx.get(), data.data(), data.size()) != 1 ||
      // SHAKE-256: EVP_DigestFinalXOF for the length wanted (EVP_DigestFinal_ex
      // would give only 32 bytes).
      (xof ? EVP_DigestFinalXOF(ctx.get(), out.data(), size)
           : EVP_DigestFinal_ex(ctx.get(), out.data(), &written)) != 1) {
    throw std::runtime_error("OpenSSL digest failed");
  }
  return out;
}

std::string hex(const std::vector<unsigned char>& bytes) {
  std::string out;
  char two[3];
  for (unsigned char b : bytes) {
    std::snprintf(two, sizeof two, "%02x", b);
    out += two;
  }
  return out;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// ------------------------------------------------------------------ cards

enum class Kind { kNumber, kAction, kWild, kWildDrawFour };

// Card ids are colour-major (game.proto, Card): 25 per colour (id mod 25: 0
// the 0, 1-18 the 1 to 9 twice each, 19-24 Skip, Reverse, Draw Two twice
// each), then 4 Wilds, 4 Wild Draw Fours.
Kind kind_of(uint32_t id) {
  if (id >= 104) return Kind::kWildDrawFour;
  if (id >= 100) return Kind::kWild;
  return id % 25 <= 18 ? Kind::kNumber : Kind::kAction;
}

int card_points(uint32_t id, bool classic) {
  switch (kind_of(id)) {
    case Kind::kNumber: return static_cast<int>((id % 25 + 1) / 2);
    case Kind::kAction: return classic ? 10 : 20;
    case Kind::kWild: return classic ? 20 : 50;
    case Kind::kWildDrawFour: return classic ? 40 : 50;
  }
  return 0;
}

std::vector<uint32_t> ids(const pb::Event& e) {
  std::vector<uint32_t> out;
  for (const auto& c : e.cards()) out.push_back(c.id());
  return out;
}

std::string join(const std::vector<uint32_t>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + std::to_string(v[i]);
  return out;
}

// ------------------------------------------------------------------ the replay

// The piles and hands as the seed deals them, driven by the game's events.
class Replay {
 public:
  Replay(const Transcript& t, DealCheck& check)
      : t_(t), check_(check), stream_(t.reveal.seed()),
        classic_(t.rules.point_values() == pb::POINT_VALUES_CLASSIC),
        direction_(t.rules.initial_direction() == pb::DIRECTION_COUNTER_CLOCKWISE ? -1 : 1),
        in_play_(t.seats), hands_(t.seats) {
    std::iota(in_play_.begin(), in_play_.end(), 0);  // seats in play, clockwise (ascending)
  }

  void on(const pb::Event& e) {
    const int p = e.player();
    switch (e.kind()) {
      case pb::EVENT_KIND_DEALER_DRAW: {
        if (dealer_deck_.empty()) dealer_deck_ = all_cards();
        const uint32_t i = stream_.below(static_cast<uint32_t>(dealer_deck_.size()));
        std::swap(dealer_deck_[i], dealer_deck_.back());
        const uint32_t card = dealer_deck_.back();
        dealer_deck_.pop_back();
        same("the dealer draw of seat " + std::to_string(p), ids(e), {card});
        break;
      }
      case pb::EVENT_KIND_ROUND_STARTED: {
        round_ = e.value();
        draw_ = all_cards();
        unshuffled_ = kDeckSize;
        discard_.clear();
        const int m = static_cast<int>(in_play_.size());
        const auto dealt = take(e.count() * static_cast<uint32_t>(m));
        const auto at_it = std::find(in_play_.begin(), in_play_.end(), p);
        const int at = at_it == in_play_.end() ? -1 : static_cast<int>(at_it - in_play_.begin());
        for (auto& hand : hands_) hand.clear();
        for (int j = 0; j < m; ++j) {
          auto& hand = hand_of(in_play_[(((at + direction_ * (1 + j)) % m) + m) % m]);
          for (size_t k = j; k < dealt.size(); k += m) hand.push_back(dealt[k]);
        }
        break;
      }
      case pb::EVENT_KIND_HAND_DEALT:
        same("the hand dealt to seat " + std::to_string(p), ids(e), hand_of(p));
        break;
      case pb::EVENT_KIND_STARTER_FLIPPED:
        same("the starter card", ids(e), take(1));
        discard_ = ids(e);
        break;
      case pb::EVENT_KIND_STARTER_RETURNED:  // back on top; the whole pile is shuffled again
        for (uint32_t c : ids(e)) draw_.push_back(c);
        unshuffled_ = draw_.size();
        discard_.clear();
        break;
      case pb::EVENT_KIND_DREW: {
        auto got = take(e.count());
        if (got.size() < e.count() && discard_.size() > 1) {
          // The discard pile but its top becomes the draw pile, bottom first.
          draw_.assign(discard_.begin(), discard_.end() - 1);
          unshuffled_ = draw_.size();
          discard_.erase(discard_.begin(), discard_.end() - 1);
          const auto more = take(e.count() - static_cast<uint32_t>(got.size()));
          got.insert(got.end(), more.begin(), more.end());
        }
        if (got.size() != e.count()) {
          problem("seat " + std::to_string(p) + " drew " + std::to_string(e.count()) +
                  " cards, the piles held " + std::to_string(got.size()));
        }
        auto& hand = hand_of(p);
        hand.insert(hand.end(), got.begin(), got.end());
        if (p == t_.seat && !got.empty()) my_draws_.push_back(got);
        break;
      }
      case pb::EVENT_KIND_DREW_CARDS: {
        std::vector<uint32_t> predicted;
        if (!my_draws_.empty()) {
          predicted = my_draws_.front();
          my_draws_.erase(my_draws_.begin());
        }
        same("the cards drawn by seat " + std::to_string(p), ids(e), predicted);
        break;
      }
      case pb::EVENT_KIND_PLAYED: {
        auto& hand = hand_of(p);
        for (uint32_t card : ids(e)) {
          auto it = std::find(hand.begin(), hand.end(), card);
          if (it != hand.end()) {
            hand.erase(it);
          } else {
            problem("seat " + std::to_string(p) + " played card " + std::to_string(card) +
                    ", which the seed did not give them");
          }
          check_.checked += 1;
          discard_.push_back(card);
          // A challenge shows their hand as it is at the next TURN.
          if (kind_of(card) == Kind::kWildDrawFour) wd4_by_ = p;
        }
        break;
      }
      case pb::EVENT_KIND_TURN:
        if (wd4_by_ >= 0) {
          shown_[wd4_by_] = hand_of(wd4_by_);
          wd4_by_ = -1;
        }
        break;
      case pb::EVENT_KIND_HANDS_SWAPPED:
        std::swap(hand_of(p), hand_of(e.target()));
        break;
      case pb::EVENT_KIND_HANDS_ROTATED: {
        const int m = static_cast<int>(in_play_.size());
        auto rotated = hands_;
        for (int j = 0; j < m; ++j) {
          rotated[in_play_[j]] = hands_[in_play_[(((j - e.value()) % m) + m) % m]];
        }
        hands_ = rotated;
        break;
      }
      case pb::EVENT_KIND_HAND_RECEIVED:
        same("the hand seat " + std::to_string(p) + " received", ids(e), hand_of(p), true);
        break;
      case pb::EVENT_KIND_HAND_SHOWN:
        same("the hand seat " + std::to_string(p) + " showed", ids(e), shown_[p], true);
        break;
      case pb::EVENT_KIND_HAND_SCORED: {
        int total = 0;
        for (uint32_t c : hand_of(p)) total += card_points(c, classic_);
        check_.checked += static_cast<int>(hand_of(p).size());
        if (total != e.value()) {
          problem("seat " + std::to_string(p) + "'s hand scored " + std::to_string(e.value()) +
                  " points, the seed's hand holds " + std::to_string(total));
        }
        break;
      }
      case pb::EVENT_KIND_PLAYER_OUT:
        in_play_.erase(std::remove(in_play_.begin(), in_play_.end(), p), in_play_.end());
        break;
      default:  // DECK_RESHUFFLED and the rest change nothing in the replay
        break;
    }
  }

 private:
  static std::vector<uint32_t> all_cards() {
    std::vector<uint32_t> deck(kDeckSize);
    std::iota(deck.begin(), deck.end(), 0u);
    return deck;
  }

  std::vector<uint32_t>& hand_of(int seat) {
    if (seat < 0 || seat >= static_cast<int>(hands_.size())) {
      nobody_.clear();  // a seat the table does not have: never matches
      return nobody_;
    }
    return hands_[seat];
  }

  // Take k cards from the draw pile: a Fisher-Yates shuffle done lazily, only
  // for the cards taken; the top card (the last) comes first.
  std::vector<uint32_t> take(uint32_t k) {
    const size_t m = draw_.size();
    const size_t low = m - std::min<size_t>(k, m);
    if (low < unshuffled_) {
      for (size_t i = unshuffled_; i-- > low;) {
        std::swap(draw_[i], draw_[stream_.below(static_cast<uint32_t>(i + 1))]);
      }
      unshuffled_ = low;
    }
    std::vector<uint32_t> taken(draw_.rbegin(), draw_.rend() - static_cast<long>(low));
    draw_.resize(low);
    return taken;
  }

  void same(const std::string& what, std::vector<uint32_t> seen, std::vector<uint32_t> predicted,
            bool as_set = false) {
    if (as_set) {
      std::sort(seen.begin(), seen.end());
      std::sort(predicted.begin(), predicted.end());
    }
    check_.checked += static_cast<int>(seen.size());
    if (seen != predicted) {
      problem(what + ": seen [" + join(seen) + "], the seed deals [" + join(predicted) + "]");
    }
  }

  void problem(const std::string& text) {
    check_.problems.push_back("round " + std::to_string(round_) + ": " + text);
  }

  const Transcript& t_;
  DealCheck& check_;
  DealStream stream_;
  const bool classic_;
  const int direction_;
  std::vector<int> in_play_;
  std::vector<std::vector<uint32_t>> hands_;
  std::vector<uint32_t> nobody_;
  std::vector<uint32_t> draw_, discard_, dealer_deck_ = all_cards();
  size_t unshuffled_ = 0;  // the bottom cards of draw_ not shuffled yet
  int round_ = 0;
  std::vector<std::vector<uint32_t>> my_draws_;     // what we drew, until its DREW_CARDS
  std::map<int, std::vector<uint32_t>> shown_;      // seat -> its hand after its last Wild Draw Four
  int wd4_by_ = -1;                                 // a Wild Draw Four was just played by this seat
};

}  // namespace

// ------------------------------------------------------------------ commitment

std::string rules_line(const pb::RuleSet& rules) {
  // Every field by reflection, so that a field added to RuleSet is in the line.
  const auto* descriptor = rules.GetDescriptor();
  const auto* reflection = rules.GetReflection();
  std::map<std::string, std::string> values;  // sorted by name
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const auto* field = descriptor->field(i);
    if (field->name() == "preset") continue;
    std::string value;
    switch (field->cpp_type()) {
      case google::protobuf::FieldDescriptor::CPPTYPE_BOOL:
        value = reflection->GetBool(rules, field) ? "true" : "false";
        break;
      case google::protobuf::FieldDescriptor::CPPTYPE_UINT32:
        value = std::to_string(reflection->GetUInt32(rules, field));
        break;
      case google::protobuf::FieldDescriptor::CPPTYPE_INT32:
        value = std::to_string(reflection->GetInt32(rules, field));
        break;
      case google::protobuf::FieldDescriptor::CPPTYPE_ENUM: {
        // The value's name without the enum's prefix (the name of its value 0
        // without "UNSPECIFIED"), lower-cased: STACKING_PLUS_FOUR_OVER_TWO is
        // plus_four_over_two.
        const std::string zero = field->enum_type()->value(0)->name();
        const std::string prefix = zero.substr(0, zero.size() - std::string("UNSPECIFIED").size());
        value = lower(reflection->GetEnum(rules, field)->name().substr(prefix.size()));
        break;
      }
      default:
        throw std::runtime_error("RuleSet." + field->name() + ": a type the commitment lacks");
    }
    values[field->name()] = value;
  }
  std::string line;
  for (const auto& [name, value] : values) line += (line.empty() ? "" : ",") + name + "=" + value;
  return line;
}

std::string commitment(const std::string& seed, const std::string& salt,
                       const std::string& table_id, int seats, const pb::RuleSet& rules) {
  std::ostringstream text;
  text << "unoplay deal commitment v1\n"
       << "table: " << table_id << "\n"
       << "seats: " << seats << "\n"
       << "rules: " << rules_line(rules) << "\n"
       << "salt: " << salt << "\n"
       << "seed: " << seed << "\n";
  return hex(digest(EVP_sha256(), text.str()));
}

// ------------------------------------------------------------------ the chance stream

DealStream::DealStream(const std::string& seed) {
  const auto key = digest(EVP_sha256(), "unoplay deal v1\n" + seed);
  std::copy(key.begin(), key.end(), key_.begin());
}

uint32_t DealStream::word() {
  if (next_ == kBlockBytes) {
    // Block i: the first 1024 bytes of SHAKE-256(K || i), i as 8 little-endian bytes.
    std::string input(key_.begin(), key_.end());
    for (int b = 0; b < 8; ++b) input += static_cast<char>((counter_ >> (8 * b)) & 0xff);
    ++counter_;
    const auto bytes = digest(EVP_shake256(), input, kBlockBytes);
    std::copy(bytes.begin(), bytes.end(), block_.begin());
    next_ = 0;
  }
  uint32_t w = 0;  // little-endian
  for (int b = 3; b >= 0; --b) w = (w << 8) | block_[next_ + b];
  next_ += 4;
  return w;
}

// ------------------------------------------------------------------ the check

DealCheck check_deals(const Transcript& t) {
  DealCheck check;
  const auto& reveal = t.reveal;
  if (commitment(reveal.seed(), reveal.salt(), t.table_id, t.seats, t.rules) !=
      reveal.commitment()) {
    check.problems.push_back("the revealed seed and salt do not give the revealed commitment");
  }
  if (!t.commitment.empty() && t.commitment != reveal.commitment()) {
    check.problems.push_back("the revealed commitment is not the one sent at the start");
  }
  Replay replay(t, check);
  for (const auto& e : t.events) replay.on(e);
  check.fair = check.problems.empty();
  return check;
}

void DealRecorder::on_message(const pb::TableMessage& m) {
  switch (m.body_case()) {
    case pb::TableMessage::kWelcome: {
      const auto& w = m.welcome();
      game_.seat = w.seat();
      game_.table_id = w.table().table_id();
      game_.seats = w.table().seats_size();
      game_.rules = w.table().rules();
      if (!w.deal_commitment().empty()) {  // the game starts: its events follow
        game_.commitment = w.deal_commitment();
        game_.events.clear();
        gap_ = false;  // what was lost before does not matter to this game
      }
      break;
    }
    case pb::TableMessage::kEvent:
      game_.events.push_back(m.event());
      break;
    case pb::TableMessage::kDealRevealed:
      if (gap_) {  // not every card of the game was seen: cannot be checked, not unfair
        result_ = DealCheck{std::nullopt, 0, {"a gap in the stream: not every event was seen"}};
      } else {
        game_.reveal = m.deal_revealed();
        result_ = check_deals(game_);
      }
      break;
    default:
      break;
  }
}

}  // namespace unobot
