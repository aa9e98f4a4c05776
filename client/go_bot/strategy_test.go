package main

import (
	"testing"

	pb "unoplay/unoplaypb"
)

func card(id uint32, colour pb.Colour, rank pb.Rank) *pb.Card {
	return &pb.Card{Id: id, Colour: colour, Rank: rank}
}

func act(id uint32, kind pb.ActionKind, fill func(*pb.Action)) *pb.LegalAction {
	a := &pb.Action{Kind: kind}
	if fill != nil {
		fill(a)
	}
	return &pb.LegalAction{Id: id, Action: a}
}

func play(id, cardID uint32, fill func(*pb.Action)) *pb.LegalAction {
	return act(id, pb.ActionKind_ACTION_KIND_PLAY, func(a *pb.Action) {
		a.CardId = &cardID
		if fill != nil {
			fill(a)
		}
	})
}

func wilds(cardID, base uint32) []*pb.LegalAction {
	var out []*pb.LegalAction
	for i, c := range colours {
		c := c
		out = append(out, play(base+uint32(i), cardID, func(a *pb.Action) { a.Colour = c }))
	}
	return out
}

func view(fill func(*pb.PlayerView)) *pb.PlayerView {
	v := &pb.PlayerView{Seat: 0, Current: 0, Phase: pb.Phase_PHASE_PLAY, Catchable: -1,
		Direction: pb.Direction_DIRECTION_CLOCKWISE, HandSizes: []uint32{5, 5, 5, 5}}
	if fill != nil {
		fill(v)
	}
	return v
}

const (
	red, yellow, green, blue = pb.Colour_COLOUR_RED, pb.Colour_COLOUR_YELLOW, pb.Colour_COLOUR_GREEN, pb.Colour_COLOUR_BLUE
	none                     = pb.Colour_COLOUR_UNSPECIFIED
)

var (
	draw     = act(1, pb.ActionKind_ACTION_KIND_DRAW, nil)
	keep     = act(2, pb.ActionKind_ACTION_KIND_KEEP, nil)
	callUno  = act(23, pb.ActionKind_ACTION_KIND_CALL_UNO, nil)
	hand     = []*pb.Card{card(3, red, pb.Rank_RANK_THREE), card(11, red, pb.Rank_RANK_SKIP), card(30, yellow, pb.Rank_RANK_FOUR), card(31, yellow, pb.Rank_RANK_FIVE), card(100, none, pb.Rank_RANK_WILD), card(104, none, pb.Rank_RANK_WILD_DRAW_FOUR)}
	withHand = func(v *pb.PlayerView) { v.Hand = hand }
)

func id(a *pb.LegalAction) int64 {
	if a == nil {
		return -1
	}
	return int64(a.GetId())
}

func TestChoose(t *testing.T) {
	catch := act(22, pb.ActionKind_ACTION_KIND_CATCH, func(a *pb.Action) { two := uint32(2); a.Target = &two })
	challenge := act(3, pb.ActionKind_ACTION_KIND_CHALLENGE, nil)
	accept := act(4, pb.ActionKind_ACTION_KIND_ACCEPT, nil)
	penalty := func(sizes ...uint32) func(*pb.PlayerView) {
		return func(v *pb.PlayerView) { v.Phase = pb.Phase_PHASE_PENALTY; v.HandSizes = sizes }
	}
	two := []*pb.Card{card(3, red, pb.Rank_RANK_THREE), card(11, red, pb.Rank_RANK_SKIP)}
	sevens := []*pb.Card{card(8, red, pb.Rank_RANK_SEVEN), card(33, yellow, pb.Rank_RANK_SEVEN)}
	cases := []struct {
		name  string
		view  *pb.PlayerView
		legal []*pb.LegalAction
		wd4By int32
		want  int64
	}{
		{"catch first", view(nil), []*pb.LegalAction{draw, play(130, 3, nil), catch}, -1, 22},
		{"most points, not a wild", view(withHand),
			append([]*pb.LegalAction{draw, play(130, 3, nil), play(210, 11, nil)}, wilds(100, 1100)...), -1, 210},
		{"the play that calls UNO", view(func(v *pb.PlayerView) { v.Hand = two }),
			[]*pb.LegalAction{play(130, 3, nil), play(131, 3, func(a *pb.Action) { a.Uno = true }), play(210, 11, nil), draw}, -1, 131},
		{"a Wild before a Wild Draw Four, naming red (held most with yellow, first)", view(withHand),
			append(append([]*pb.LegalAction{draw}, wilds(104, 1140)...), wilds(100, 1100)...), -1, 1100},
		{"draw, never a false UNO call", view(withHand), []*pb.LegalAction{callUno, draw}, -1, 1},
		{"only a false UNO call on our turn: wait", view(withHand), []*pb.LegalAction{callUno}, -1, -1},
		{"play the drawn card", view(func(v *pb.PlayerView) { v.Hand = hand; v.Phase = pb.Phase_PHASE_DRAWN }),
			[]*pb.LegalAction{keep, play(330, 30, nil)}, -1, 330},
		{"keep when nothing fits", view(func(v *pb.PlayerView) { v.Phase = pb.Phase_PHASE_DRAWN }),
			[]*pb.LegalAction{callUno, keep}, -1, 2},
		{"challenge a big hand", view(penalty(5, 5, 5, 6)), []*pb.LegalAction{challenge, accept}, 3, 3},
		{"accept from a small hand", view(penalty(5, 5, 5, 2)), []*pb.LegalAction{challenge, accept}, 3, 4},
		{"offender unknown: the seat before ours", view(penalty(5, 5, 5, 6)), []*pb.LegalAction{challenge, accept}, -1, 3},
		{"pass a penalty on (stacking)", view(func(v *pb.PlayerView) { v.Hand = hand; v.Phase = pb.Phase_PHASE_PENALTY }),
			[]*pb.LegalAction{accept, play(240, 11, nil)}, -1, 240},
		{"wait out of turn", view(func(v *pb.PlayerView) { v.Current = 2 }), []*pb.LegalAction{callUno}, -1, -1},
		{"call our own UNO", view(func(v *pb.PlayerView) { v.Current = 2; v.Catchable = 0 }), []*pb.LegalAction{callUno}, -1, 23},
		{"no jump-in out of turn", view(func(v *pb.PlayerView) { v.Current = 2; v.Hand = hand }),
			[]*pb.LegalAction{play(130, 3, nil)}, -1, -1},
		{"name the colour held most for a Wild starter",
			view(func(v *pb.PlayerView) { v.Hand = hand[2:]; v.Phase = pb.Phase_PHASE_CHOOSE_COLOUR }),
			[]*pb.LegalAction{act(41, pb.ActionKind_ACTION_KIND_CHOOSE_COLOUR, func(a *pb.Action) { a.Colour = red }),
				act(42, pb.ActionKind_ACTION_KIND_CHOOSE_COLOUR, func(a *pb.Action) { a.Colour = yellow })}, -1, 42},
		{"going out with two cards beats calling UNO", view(func(v *pb.PlayerView) { v.Hand = sevens }),
			[]*pb.LegalAction{play(180, 8, func(a *pb.Action) { a.Uno = true }),
				play(20008, 8, func(a *pb.Action) { a.ExtraCardIds = []uint32{33}; a.Colour = yellow })}, -1, 20008},
		{"swap with the smallest hand", view(func(v *pb.PlayerView) { v.Hand = sevens; v.HandSizes = []uint32{2, 6, 3, 7} }),
			[]*pb.LegalAction{play(181, 8, func(a *pb.Action) { x := uint32(1); a.Target = &x }),
				play(182, 8, func(a *pb.Action) { x := uint32(2); a.Target = &x }),
				play(183, 8, func(a *pb.Action) { x := uint32(3); a.Target = &x })}, -1, 182},
	}
	for _, c := range cases {
		if got := id(choose(c.view, c.legal, c.wd4By)); got != c.want {
			t.Errorf("%s: chose %d, want %d", c.name, got, c.want)
		}
	}
}

func TestParseArgs(t *testing.T) {
	env := map[string]string{"UNO_SERVER": "h:1", "UNO_TABLE": "t1", "UNO_TOKEN": "tok", "UNO_SEAT": "2"}
	o, err := parseArgs([]string{"--drop-after", "5,40"}, func(k string) string { return env[k] }, discard{})
	if err != nil || o.server != "h:1" || o.table != "t1" || o.token != "tok" || o.seat != 2 ||
		!o.dropAfter[5] || !o.dropAfter[40] || o.dropAfter[6] {
		t.Fatalf("parseArgs: %+v, %v", o, err)
	}
	for _, bad := range [][]string{{"--bots", "2"}, {"--drop-after", "0"}, {"stray"}} {
		if _, err := parseArgs(bad, func(k string) string { return env[k] }, discard{}); err == nil {
			t.Errorf("parseArgs(%q): no error", bad)
		}
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
