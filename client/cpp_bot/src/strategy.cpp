// THE STRATEGY: choose() below is the function to edit to make this bot
// yours. It gets the view and the legal actions of the latest update, and
// returns one of them (or nullptr to wait); the rest of the bot takes care of
// the protocol. The heuristic is the Go starter's (client/go_bot/strategy.go).
#include "strategy.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <tuple>

namespace unobot {
namespace {

// Challenge a Wild Draw Four when its player still holds at least this many
// cards (the more they hold, the likelier they held the colour in force).
constexpr unsigned kChallengeMinHand = 4;

// The colours, in the order used to break ties.
constexpr std::array<pb::Colour, 4> kColours = {pb::COLOUR_RED, pb::COLOUR_YELLOW,
                                                pb::COLOUR_GREEN, pb::COLOUR_BLUE};

bool is_wild(pb::Rank rank) { return rank == pb::RANK_WILD || rank == pb::RANK_WILD_DRAW_FOUR; }

// A card's value at the end of a round (the official table).
int points(const pb::Card& card) {
  const pb::Rank r = card.rank();
  if (r >= pb::RANK_ZERO && r <= pb::RANK_NINE) return r - pb::RANK_ZERO;
  if (is_wild(r)) return 50;
  return r == pb::RANK_UNSPECIFIED ? 0 : 20;
}

// The colour of most coloured cards in hand, leaving out the cards in skip;
// red on a tie or with no coloured card.
pb::Colour colour_held_most(const pb::PlayerView& view, const std::set<uint32_t>& skip = {}) {
  std::map<pb::Colour, int> counts;
  for (const auto& card : view.hand()) {
    if (!skip.count(card.id())) counts[card.colour()]++;
  }
  pb::Colour best = kColours[0];
  for (pb::Colour c : kColours) {
    if (counts[c] > counts[best]) best = c;
  }
  return best;
}

// The seat whose Wild Draw Four we face: as seen in the events, else the seat
// before ours in the direction of play.
int wd4_player(const pb::PlayerView& view, int wd4_by) {
  if (wd4_by >= 0) return wd4_by;
  const int n = view.hand_sizes_size();
  if (n == 0) return -1;
  const int step = view.direction() == pb::DIRECTION_COUNTER_CLOCKWISE ? -1 : 1;
  return ((view.seat() - step) % n + n) % n;
}

// How good a play is: higher is better, compared field by field (a tuple).
struct PlayKey {
  bool out = false;          // it lays our last cards (multi_play): the round is ours
  bool uno = false;          // it calls UNO
  int tier = 2;              // 2 no wild card, 1 a Wild, 0 a Wild Draw Four
  int points = 0;            // points of the cards laid: shed what would count against us
  bool our_colour = false;   // the colour in force afterwards is the one we hold most
  int fewest = 0;            // minus the cards of a swap target (seven_zero, swap_on_five)

  auto tie() const { return std::tie(out, uno, tier, points, our_colour, fewest); }
  bool operator>(const PlayKey& o) const { return tie() > o.tie(); }
};

// The cards of the view by id: the hand and the card just drawn.
class CardsInView {
 public:
  explicit CardsInView(const pb::PlayerView& view) {
    for (const auto& c : view.hand()) cards_[c.id()] = c;
    if (view.has_drawn_card()) cards_[view.drawn_card().id()] = view.drawn_card();
  }
  pb::Card operator()(uint32_t id) const {
    if (auto it = cards_.find(id); it != cards_.end()) return it->second;
    pb::Card unknown;  // not in the view: no points, no colour
    unknown.set_id(id);
    return unknown;
  }

 private:
  std::map<uint32_t, pb::Card> cards_;
};

PlayKey key_of(const pb::PlayerView& view, const CardsInView& card_of, const pb::Action& act) {
  std::vector<uint32_t> laid = {act.card_id()};
  laid.insert(laid.end(), act.extra_card_ids().begin(), act.extra_card_ids().end());
  PlayKey key;
  key.out = static_cast<int>(laid.size()) >= view.hand_size();
  key.uno = act.uno();
  std::set<uint32_t> skip;
  for (uint32_t id : laid) {
    const pb::Card card = card_of(id);
    skip.insert(id);
    key.points += points(card);
    if (card.rank() == pb::RANK_WILD) key.tier = std::min(key.tier, 1);
    if (card.rank() == pb::RANK_WILD_DRAW_FOUR) key.tier = 0;
  }
  pb::Colour after = act.colour();  // named by a wild or a multi-colour play
  if (after == pb::COLOUR_UNSPECIFIED) after = card_of(act.card_id()).colour();
  key.our_colour = after == colour_held_most(view, skip);
  if (act.has_target() && static_cast<int>(act.target()) < view.hand_sizes_size()) {
    key.fewest = -static_cast<int>(view.hand_sizes(static_cast<int>(act.target())));
  }
  return key;
}

// The best of plays (PLAY actions) by PlayKey; the first on a tie.
const pb::LegalAction* best_play(const pb::PlayerView& view,
                                 const std::vector<const pb::LegalAction*>& plays) {
  const CardsInView card_of(view);
  const pb::LegalAction* best = nullptr;
  PlayKey best_key;
  for (const pb::LegalAction* a : plays) {
    const PlayKey key = key_of(view, card_of, a->action());
    if (best == nullptr || key > best_key) {
      best = a;
      best_key = key;
    }
  }
  return best;
}

}  // namespace

// Out of turn as well as in it: catch a player who forgot UNO, and call UNO
// for ourselves when we are the one who may be caught. A CALL_UNO that is not
// such a call is never chosen: under a false_uno_penalty it is listed for
// every seat at all times, and costs cards. On our turn: answer a Wild Draw
// Four (challenge when its player holds many cards) or pass a penalty on when
// the rules allow; name the colour held most for a Wild starter; otherwise
// play the card worth the most points (a play that calls UNO first, non-wild
// cards before a Wild, a Wild before a Wild Draw Four), naming or keeping the
// colour held most; with nothing to play draw, or keep the card drawn.
const pb::LegalAction* choose(const pb::PlayerView& view,
                              const std::vector<const pb::LegalAction*>& legal, int wd4_by) {
  auto of = [&](pb::ActionKind kind) {
    std::vector<const pb::LegalAction*> out;
    for (const pb::LegalAction* a : legal) {
      if (a->action().kind() == kind) out.push_back(a);
    }
    return out;
  };
  const int seat = view.seat();
  if (auto catches = of(pb::ACTION_KIND_CATCH); !catches.empty()) return catches[0];
  if (auto calls = of(pb::ACTION_KIND_CALL_UNO); !calls.empty() && view.catchable() == seat) {
    return calls[0];
  }
  if (view.current() != seat) return nullptr;  // not our turn (this bot never jumps in)

  const auto plays = of(pb::ACTION_KIND_PLAY);
  switch (view.phase()) {
    case pb::PHASE_CHOOSE_COLOUR: {
      const auto choices = of(pb::ACTION_KIND_CHOOSE_COLOUR);
      const pb::Colour want = colour_held_most(view);
      for (const pb::LegalAction* a : choices) {
        if (a->action().colour() == want) return a;
      }
      if (!choices.empty()) return choices[0];
      break;
    }
    case pb::PHASE_PENALTY: {
      if (!plays.empty()) return best_play(view, plays);  // stacking or a deflecting Reverse
      pb::ActionKind want = pb::ACTION_KIND_ACCEPT;
      const int offender = wd4_player(view, wd4_by);
      if (offender >= 0 && offender < view.hand_sizes_size() &&
          view.hand_sizes(offender) >= kChallengeMinHand) {
        want = pb::ACTION_KIND_CHALLENGE;
      }
      if (auto a = of(want); !a.empty()) return a[0];
      if (auto a = of(pb::ACTION_KIND_ACCEPT); !a.empty()) return a[0];
      break;
    }
    default:  // PHASE_PLAY, PHASE_DRAWN
      if (!plays.empty()) return best_play(view, plays);
      for (pb::ActionKind kind : {pb::ACTION_KIND_DRAW, pb::ACTION_KIND_KEEP}) {
        if (auto a = of(kind); !a.empty()) return a[0];
      }
  }
  // An action this bot has no rule for: any turn action, never a false UNO call.
  for (const pb::LegalAction* a : legal) {
    if (a->action().kind() != pb::ACTION_KIND_CALL_UNO) return a;
  }
  return nullptr;
}

}  // namespace unobot
