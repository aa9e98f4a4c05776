// The unit test of choose() (strategy.cpp): it follows its rules, not the
// order of the legal list (the Go starter's strategy_test.go, in C++), and
// the deal stream's test vector of proto/README.md section 11. Exit 0 when
// every case passes; each failure is printed.
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "deals.h"
#include "strategy.h"

namespace pb = unoplay::v1;
using unobot::choose;

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    ++failures;
    std::cerr << "FAIL: " << what << "\n";
  }
}

pb::Card card(uint32_t id, pb::Colour colour, pb::Rank rank) {
  pb::Card c;
  c.set_id(id);
  c.set_colour(colour);
  c.set_rank(rank);
  return c;
}

pb::LegalAction act(uint32_t id, pb::ActionKind kind,
                    const std::function<void(pb::Action&)>& fill = nullptr) {
  pb::LegalAction a;
  a.set_id(id);
  a.mutable_action()->set_kind(kind);
  if (fill) fill(*a.mutable_action());
  return a;
}

pb::LegalAction play(uint32_t id, uint32_t card_id,
                     const std::function<void(pb::Action&)>& fill = nullptr) {
  return act(id, pb::ACTION_KIND_PLAY, [&](pb::Action& a) {
    a.set_card_id(card_id);
    if (fill) fill(a);
  });
}

std::vector<pb::LegalAction> wilds(uint32_t card_id, uint32_t base) {
  std::vector<pb::LegalAction> out;
  uint32_t i = 0;
  for (pb::Colour c : {pb::COLOUR_RED, pb::COLOUR_YELLOW, pb::COLOUR_GREEN, pb::COLOUR_BLUE}) {
    out.push_back(play(base + i++, card_id, [c](pb::Action& a) { a.set_colour(c); }));
  }
  return out;
}

pb::PlayerView view(const std::function<void(pb::PlayerView&)>& fill = nullptr) {
  pb::PlayerView v;
  v.set_seat(0);
  v.set_current(0);
  v.set_phase(pb::PHASE_PLAY);
  v.set_catchable(-1);
  v.set_direction(pb::DIRECTION_CLOCKWISE);
  for (uint32_t n : {5, 5, 5, 5}) v.add_hand_sizes(n);
  if (fill) fill(v);
  return v;
}

void set_hand(pb::PlayerView& v, const std::vector<pb::Card>& hand) {
  v.clear_hand();
  for (const auto& c : hand) *v.add_hand() = c;
}

void set_sizes(pb::PlayerView& v, const std::vector<uint32_t>& sizes) {
  v.clear_hand_sizes();
  for (uint32_t n : sizes) v.add_hand_sizes(n);
}

// The id choose() picks, -1 for none.
long pick(const pb::PlayerView& v, const std::vector<pb::LegalAction>& legal, int wd4_by = -1) {
  std::vector<const pb::LegalAction*> pointers;
  for (const auto& a : legal) pointers.push_back(&a);
  const pb::LegalAction* chosen = choose(v, pointers, wd4_by);
  return chosen ? static_cast<long>(chosen->id()) : -1;
}

void check(const std::string& name, long got, long want) {
  expect(got == want, name + ": chose " + std::to_string(got) + ", want " + std::to_string(want));
}

std::vector<pb::LegalAction> operator+(std::vector<pb::LegalAction> a,
                                       const std::vector<pb::LegalAction>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

void test_choose() {
  using R = pb::Rank;
  const auto none = pb::COLOUR_UNSPECIFIED;
  const std::vector<pb::Card> hand = {
      card(3, pb::COLOUR_RED, R::RANK_THREE),   card(11, pb::COLOUR_RED, R::RANK_SKIP),
      card(30, pb::COLOUR_YELLOW, R::RANK_FOUR), card(31, pb::COLOUR_YELLOW, R::RANK_FIVE),
      card(100, none, R::RANK_WILD),             card(104, none, R::RANK_WILD_DRAW_FOUR)};
  const std::vector<pb::Card> sevens = {card(8, pb::COLOUR_RED, R::RANK_SEVEN),
                                        card(33, pb::COLOUR_YELLOW, R::RANK_SEVEN)};
  const auto with_hand = [&](pb::PlayerView& v) { set_hand(v, hand); };
  const auto draw = act(1, pb::ACTION_KIND_DRAW);
  const auto keep = act(2, pb::ACTION_KIND_KEEP);
  const auto call_uno = act(23, pb::ACTION_KIND_CALL_UNO);
  const auto challenge = act(3, pb::ACTION_KIND_CHALLENGE);
  const auto accept = act(4, pb::ACTION_KIND_ACCEPT);
  const auto catch_two = act(22, pb::ACTION_KIND_CATCH, [](pb::Action& a) { a.set_target(2); });
  const auto penalty = [&](std::vector<uint32_t> sizes) {
    return view([sizes](pb::PlayerView& v) {
      v.set_phase(pb::PHASE_PENALTY);
      set_sizes(v, sizes);
    });
  };
  const auto target = [](uint32_t seat) { return [seat](pb::Action& a) { a.set_target(seat); }; };

  check("catch first", pick(view(), {draw, play(130, 3), catch_two}), 22);
  check("most points, not a wild",
        pick(view(with_hand), std::vector{draw, play(130, 3), play(210, 11)} + wilds(100, 1100)),
        210);
  check("the play that calls UNO",
        pick(view([&](pb::PlayerView& v) { set_hand(v, {hand[0], hand[1]}); }),
             {play(130, 3), play(131, 3, [](pb::Action& a) { a.set_uno(true); }), play(210, 11),
              draw}),
        131);
  check("a Wild before a Wild Draw Four, naming red (held most with yellow, first)",
        pick(view(with_hand), std::vector{draw} + wilds(104, 1140) + wilds(100, 1100)), 1100);
  check("draw, never a false UNO call", pick(view(with_hand), {call_uno, draw}), 1);
  check("only a false UNO call on our turn: wait", pick(view(with_hand), {call_uno}), -1);
  check("play the drawn card",
        pick(view([&](pb::PlayerView& v) {
               set_hand(v, hand);
               v.set_phase(pb::PHASE_DRAWN);
             }),
             {keep, play(330, 30)}),
        330);
  check("keep when nothing fits",
        pick(view([](pb::PlayerView& v) { v.set_phase(pb::PHASE_DRAWN); }), {call_uno, keep}), 2);
  check("pass a penalty on (stacking)",
        pick(view([&](pb::PlayerView& v) {
               set_hand(v, hand);
               v.set_phase(pb::PHASE_PENALTY);
             }),
             {accept, play(240, 11)}),
        240);
  check("no jump-in out of turn",
        pick(view([&](pb::PlayerView& v) {
               set_hand(v, hand);
               v.set_current(2);
             }),
             {play(130, 3)}),
        -1);
  check("challenge a big hand", pick(penalty({5, 5, 5, 6}), {challenge, accept}, 3), 3);
  check("accept from a small hand", pick(penalty({5, 5, 5, 2}), {challenge, accept}, 3), 4);
  check("offender unknown: the seat before ours", pick(penalty({5, 5, 5, 6}), {challenge, accept}),
        3);
  check("wait out of turn", pick(view([](pb::PlayerView& v) { v.set_current(2); }), {call_uno}),
        -1);
  check("call our own UNO",
        pick(view([](pb::PlayerView& v) {
               v.set_current(2);
               v.set_catchable(0);
             }),
             {call_uno}),
        23);
  check("name the colour held most for a Wild starter",
        pick(view([&](pb::PlayerView& v) {
               set_hand(v, {hand.begin() + 2, hand.end()});
               v.set_phase(pb::PHASE_CHOOSE_COLOUR);
             }),
             {act(41, pb::ACTION_KIND_CHOOSE_COLOUR,
                  [](pb::Action& a) { a.set_colour(pb::COLOUR_RED); }),
              act(42, pb::ACTION_KIND_CHOOSE_COLOUR,
                  [](pb::Action& a) { a.set_colour(pb::COLOUR_YELLOW); })}),
        42);
  check("going out with two cards beats calling UNO",
        pick(view([&](pb::PlayerView& v) { set_hand(v, sevens); }),
             {play(180, 8, [](pb::Action& a) { a.set_uno(true); }),
              play(20008, 8,
                   [](pb::Action& a) {
                     a.add_extra_card_ids(33);
                     a.set_colour(pb::COLOUR_YELLOW);
                   })}),
        20008);
  check("swap with the smallest hand",
        pick(view([&](pb::PlayerView& v) {
               set_hand(v, sevens);
               set_sizes(v, {2, 6, 3, 7});
             }),
             {play(181, 8, target(1)), play(182, 8, target(2)), play(183, 8, target(3))}),
        182);
}

// proto/README.md, section 11: the test vectors of the chance stream and the commitment.
void test_deal_vectors() {
  unobot::DealStream words("example");
  const std::vector<uint32_t> first = {words.word(), words.word(), words.word(), words.word()};
  expect(first == std::vector<uint32_t>{3952049818u, 1743753990u, 2310317196u, 2908085203u},
         "the first four words of the seed 'example'");
  unobot::DealStream draws("example");
  std::vector<uint32_t> below;
  for (int i = 0; i < 8; ++i) below.push_back(draws.below(108));
  expect(below == std::vector<uint32_t>{99, 43, 58, 73, 55, 47, 24, 45},
         "the first eight below(108) of the seed 'example'");
  pb::RuleSet official;  // the official rules, every field set as the server sends them
  official.set_first_player(pb::FIRST_PLAYER_LEFT_OF_DEALER);
  official.set_reverse_starter(pb::REVERSE_STARTER_DEALER_FIRST);
  official.set_wild_starter(pb::WILD_STARTER_FIRST_PLAYER_NAMES_AND_PLAYS);
  official.set_starter_wild_redraw(false);
  official.set_initial_direction(pb::DIRECTION_CLOCKWISE);
  official.set_wd4_restriction(pb::WD4_RESTRICTION_COLOUR);
  official.set_unnamed_wild_keeps_colour(false);
  official.set_challenge_success_skips_challenger(true);
  official.set_uno_penalty(2);
  official.set_point_values(pb::POINT_VALUES_STANDARD);
  official.set_scoring(pb::SCORING_WINNER_TAKES);
  official.set_target_score(500);
  official.set_stacking(pb::STACKING_OFF);
  official.set_multi_play(pb::MULTI_PLAY_OFF);
  official.set_format(pb::GAME_FORMAT_STANDARD);
  const std::string value =
      unobot::commitment("example", "00112233445566778899aabbccddeeff", "t1-abc123", 4, official);
  expect(value == "468bc9c4c6c39c96f17da6690e08851991ca8103e8fc588c8bead20c3f1c4e51",
         "the commitment test vector: got " + value + " from rules " + unobot::rules_line(official));
}

}  // namespace

int main() {
  test_choose();
  test_deal_vectors();
  if (failures == 0) std::cout << "strategy-test: all passed\n";
  return failures == 0 ? 0 : 1;
}
