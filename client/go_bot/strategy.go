package main

import (
	pb "unoplay/unoplaypb"
)

// challengeMinHand: challenge a Wild Draw Four when its player still holds at
// least this many cards (the more they hold, the likelier they held the
// colour in force).
const challengeMinHand = 4

// colours in the order used to break ties.
var colours = []pb.Colour{pb.Colour_COLOUR_RED, pb.Colour_COLOUR_YELLOW,
	pb.Colour_COLOUR_GREEN, pb.Colour_COLOUR_BLUE}

func isWild(rank pb.Rank) bool {
	return rank == pb.Rank_RANK_WILD || rank == pb.Rank_RANK_WILD_DRAW_FOUR
}

// points is a card's value at the end of a round (the official table).
func points(card *pb.Card) int {
	switch r := card.GetRank(); {
	case r >= pb.Rank_RANK_ZERO && r <= pb.Rank_RANK_NINE:
		return int(r - pb.Rank_RANK_ZERO)
	case isWild(r):
		return 50
	case r == pb.Rank_RANK_UNSPECIFIED:
		return 0
	default:
		return 20
	}
}

// colourHeldMost is the colour of most coloured cards in hand, leaving out
// the cards in skip; red on a tie or with no coloured card.
func colourHeldMost(hand []*pb.Card, skip map[uint32]bool) pb.Colour {
	counts := map[pb.Colour]int{}
	for _, card := range hand {
		if !skip[card.GetId()] {
			counts[card.GetColour()]++
		}
	}
	best := colours[0]
	for _, c := range colours[1:] {
		if counts[c] > counts[best] {
			best = c
		}
	}
	return best
}

// choose picks one of legal (the latest update's actions, less any refused)
// for view, or returns nil to wait. wd4By is the seat that played the Wild
// Draw Four we may face, or -1 when not known.
//
// Out of turn as well as in it: catch a player who forgot UNO, and call UNO
// for ourselves when we are the one who may be caught. A CALL_UNO that is not
// such a call is never chosen: under a false_uno_penalty it is listed for
// every seat at all times, and costs cards. On our turn: answer a Wild Draw
// Four (challenge when its player holds many cards) or pass a penalty on when
// the rules allow; name the colour held most for a Wild starter; otherwise
// play the card worth the most points (a play that calls UNO first, non-wild
// cards before a Wild, a Wild before a Wild Draw Four), naming or keeping the
// colour held most; with nothing to play draw, or keep the card drawn.
func choose(view *pb.PlayerView, legal []*pb.LegalAction, wd4By int32) *pb.LegalAction {
	of := func(kind pb.ActionKind) []*pb.LegalAction {
		var out []*pb.LegalAction
		for _, a := range legal {
			if a.GetAction().GetKind() == kind {
				out = append(out, a)
			}
		}
		return out
	}
	seat := view.GetSeat()
	if catches := of(pb.ActionKind_ACTION_KIND_CATCH); len(catches) > 0 {
		return catches[0]
	}
	if calls := of(pb.ActionKind_ACTION_KIND_CALL_UNO); len(calls) > 0 && view.GetCatchable() == seat {
		return calls[0]
	}
	if view.GetCurrent() != seat {
		return nil // not our turn: nothing else to do (this bot never jumps in)
	}
	plays := of(pb.ActionKind_ACTION_KIND_PLAY)
	switch view.GetPhase() {
	case pb.Phase_PHASE_CHOOSE_COLOUR:
		choices := of(pb.ActionKind_ACTION_KIND_CHOOSE_COLOUR)
		want := colourHeldMost(view.GetHand(), nil)
		for _, a := range choices {
			if a.GetAction().GetColour() == want {
				return a
			}
		}
		if len(choices) > 0 {
			return choices[0]
		}
	case pb.Phase_PHASE_PENALTY:
		if len(plays) > 0 { // stacking or a deflecting Reverse: pass it on
			return bestPlay(view, plays)
		}
		want := pb.ActionKind_ACTION_KIND_ACCEPT
		if offender := wd4Player(view, wd4By); offender >= 0 &&
			int(offender) < len(view.GetHandSizes()) &&
			view.GetHandSizes()[offender] >= challengeMinHand {
			want = pb.ActionKind_ACTION_KIND_CHALLENGE
		}
		if a := of(want); len(a) > 0 {
			return a[0]
		}
		if a := of(pb.ActionKind_ACTION_KIND_ACCEPT); len(a) > 0 {
			return a[0]
		}
	default: // PHASE_PLAY, PHASE_DRAWN
		if len(plays) > 0 {
			return bestPlay(view, plays)
		}
		for _, kind := range []pb.ActionKind{pb.ActionKind_ACTION_KIND_DRAW, pb.ActionKind_ACTION_KIND_KEEP} {
			if a := of(kind); len(a) > 0 {
				return a[0]
			}
		}
	}
	// An action this bot has no rule for: any turn action, never a false UNO call.
	for _, a := range legal {
		if a.GetAction().GetKind() != pb.ActionKind_ACTION_KIND_CALL_UNO {
			return a
		}
	}
	return nil
}

// wd4Player is the seat whose Wild Draw Four we face: as seen in the events,
// else the seat before ours in the direction of play.
func wd4Player(view *pb.PlayerView, wd4By int32) int32 {
	if wd4By >= 0 {
		return wd4By
	}
	n := int32(len(view.GetHandSizes()))
	if n == 0 {
		return -1
	}
	step := int32(1)
	if view.GetDirection() == pb.Direction_DIRECTION_COUNTER_CLOCKWISE {
		step = -1
	}
	return ((view.GetSeat()-step)%n + n) % n
}

// playKey orders plays: higher is better, compared field by field.
type playKey struct {
	out       bool // the play lays our last cards (multi_play): the round is ours
	uno       bool // the play calls UNO
	tier      int  // 2 no wild card, 1 a Wild, 0 a Wild Draw Four
	points    int  // points of the cards laid: shed what would count against us
	ourColour bool // the colour in force afterwards is the one we hold most
	fewest    int  // minus the cards of a swap target (seven_zero, swap_on_five)
}

func (k playKey) beats(o playKey) bool {
	switch {
	case k.out != o.out:
		return k.out
	case k.uno != o.uno:
		return k.uno
	case k.tier != o.tier:
		return k.tier > o.tier
	case k.points != o.points:
		return k.points > o.points
	case k.ourColour != o.ourColour:
		return k.ourColour
	default:
		return k.fewest > o.fewest
	}
}

// bestPlay is the best of plays (PLAY actions) by playKey; the first on a tie.
func bestPlay(view *pb.PlayerView, plays []*pb.LegalAction) *pb.LegalAction {
	cards := map[uint32]*pb.Card{}
	for _, c := range view.GetHand() {
		cards[c.GetId()] = c
	}
	if d := view.GetDrawnCard(); d != nil {
		cards[d.GetId()] = d
	}
	cardOf := func(id uint32) *pb.Card {
		if c, ok := cards[id]; ok {
			return c
		}
		return &pb.Card{Id: id} // not in the view: no points, no colour
	}
	var best *pb.LegalAction
	var bestKey playKey
	for _, a := range plays {
		act := a.GetAction()
		laid := append([]uint32{act.GetCardId()}, act.GetExtraCardIds()...)
		skip := map[uint32]bool{}
		key := playKey{out: len(laid) >= len(view.GetHand()), uno: act.GetUno(), tier: 2}
		for _, id := range laid {
			card := cardOf(id)
			skip[id] = true
			key.points += points(card)
			switch card.GetRank() {
			case pb.Rank_RANK_WILD:
				key.tier = min(key.tier, 1)
			case pb.Rank_RANK_WILD_DRAW_FOUR:
				key.tier = 0
			}
		}
		after := act.GetColour() // named by a wild or a multi-colour play
		if after == pb.Colour_COLOUR_UNSPECIFIED {
			after = cardOf(act.GetCardId()).GetColour()
		}
		key.ourColour = after == colourHeldMost(view.GetHand(), skip)
		if act.Target != nil && int(act.GetTarget()) < len(view.GetHandSizes()) {
			key.fewest = -int(view.GetHandSizes()[act.GetTarget()])
		}
		if best == nil || key.beats(bestKey) {
			best, bestKey = a, key
		}
	}
	return best
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}
