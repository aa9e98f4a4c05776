package unobot;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Consumer;
import unoplay.v1.Game.Action;
import unoplay.v1.Game.ActionKind;
import unoplay.v1.Game.Card;
import unoplay.v1.Game.Colour;
import unoplay.v1.Game.LegalAction;
import unoplay.v1.Game.Phase;
import unoplay.v1.Game.PlayerView;
import unoplay.v1.Game.Rank;
import unoplay.v1.Game.RuleSet;
import unoplay.v1.GameServiceOuterClass.PlayResponse;
import unoplay.v1.GameServiceOuterClass.TableMessage;

/**
 * uno-java-tools, for tests and for checking after the fact:
 *
 * <ul>
 *   <li>{@code selftest}: SHAKE-256 and the guide's section 11 test vectors,
 *       and Strategy.choose's rules; exit 0 when all pass;
 *   <li>{@code shake}: for each line "HEX LENGTH" on stdin ("-" for no
 *       bytes), the first LENGTH bytes of SHAKE-256 of those bytes, in hex;
 *   <li>{@code deals}: the deal check on a recorded game: one serialized
 *       PlayResponse on stdin (a seat's TableMessages of one game, in seq
 *       order); prints the check as one line of JSON, exit 0 when fair, 1
 *       when not (or nothing to check), 2 on bad input.
 * </ul>
 */
public final class Tools {
  private Tools() {}

  public static void main(String[] args) throws IOException {
    String command = args.length == 1 ? args[0] : "";
    switch (command) {
      case "selftest" -> System.exit(selfTest());
      case "shake" -> shake();
      case "deals" -> System.exit(deals());
      default -> {
        System.err.println("usage: uno-java-tools selftest|shake|deals");
        System.exit(2);
      }
    }
  }

  private static void shake() throws IOException {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
    for (String line; (line = in.readLine()) != null; ) {
      String[] parts = line.trim().split(" ");
      byte[] data = parts[0].equals("-") ? new byte[0] : HexFormat.of().parseHex(parts[0]);
      System.out.println(HexFormat.of().formatHex(Shake256.digest(data, Integer.parseInt(parts[1]))));
    }
  }

  private static int deals() throws IOException {
    PlayResponse recorded;
    try {
      recorded = PlayResponse.parseFrom(System.in.readAllBytes());
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      System.err.println("uno-java-tools deals: stdin is not a serialized unoplay.v1.PlayResponse");
      return 2;
    }
    Deals.Recorder recorder = new Deals.Recorder();
    long lastSeq = 0;
    for (TableMessage m : recorded.getMessagesList()) {
      if (m.getSeq() != lastSeq + 1) {
        recorder.onGap();
      }
      lastSeq = m.getSeq();
      recorder.onMessage(m);
    }
    Deals.Check check = recorder.result();
    if (check == null) {
      System.err.println("uno-java-tools deals: no deal_revealed: nothing to check");
      return 1;
    }
    System.out.println(check.toJson());
    return Boolean.TRUE.equals(check.fair()) ? 0 : 1;
  }

  // ------------------------------------------------------------------ the self-test

  private static final List<String> FAILURES = new ArrayList<>();

  private static void expect(String what, Object got, Object want) {
    if (!got.equals(want)) {
      FAILURES.add(what + ": got " + got + ", want " + want);
    }
  }

  private static int selfTest() {
    vectors();
    strategy();
    FAILURES.forEach(System.out::println);
    System.out.println(FAILURES.isEmpty() ? "selftest: all passed" : "selftest: " + FAILURES.size() + " failed");
    return FAILURES.isEmpty() ? 0 : 1;
  }

  private static String shakeHex(String text, int length) {
    return HexFormat.of().formatHex(Shake256.digest(text.getBytes(StandardCharsets.US_ASCII), length));
  }

  private static void vectors() {
    // FIPS 202 (NIST's examples): SHAKE256 of the empty message, 64 bytes.
    expect("SHAKE256(\"\")", shakeHex("", 64),
        "46b9dd2b0ba88d13233b3feb743eeb243fcd52ea62b81b82b50c27646ed5762f"
            + "d75dc4ddd8c0f200cb05019d67b592f6fc821c49479ab48640292eacb3b7c4be");
    expect("SHAKE256(\"abc\")", shakeHex("abc", 32),
        "483366601360a8771c6863080cc4114d8db44530f8f1e1ee4f94ea37e78b5739");
    // 200 bytes of 0xa3 (NIST's 1600-bit message): more than one 136-byte block.
    byte[] a3 = new byte[200];
    java.util.Arrays.fill(a3, (byte) 0xa3);
    expect("SHAKE256(0xa3 x 200)", HexFormat.of().formatHex(Shake256.digest(a3, 32)),
        "cd8a920ed141aa0407a22d59288652e9d9f1a7ee0c1e7c1ca699424da84a904d");
    // The guide's section 11.
    Deals.Stream stream = new Deals.Stream("example");
    expect("K", HexFormat.of().formatHex(stream.key()),
        "7f00c79a6d14954c0cd6219e899de955fdd592d90869a8a9e98c9559e695dcd9");
    List<Long> words = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      words.add(stream.word());
    }
    expect("the first four words", words, List.of(3952049818L, 1743753990L, 2310317196L, 2908085203L));
    Deals.Stream fresh = new Deals.Stream("example");
    List<Integer> below = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      below.add(fresh.below(108));
    }
    expect("the first eight below(108)", below, List.of(99, 43, 58, 73, 55, 47, 24, 45));
    RuleSet official = RuleSet.newBuilder()
        .setChallengeSuccessSkipsChallenger(true).setFalseUnoPenalty(0)
        .setFirstPlayer(unoplay.v1.Game.FirstPlayer.FIRST_PLAYER_LEFT_OF_DEALER)
        .setFormat(unoplay.v1.Game.GameFormat.GAME_FORMAT_STANDARD)
        .setInitialDirection(unoplay.v1.Game.Direction.DIRECTION_CLOCKWISE)
        .setJumpIn(false).setMultiPlay(unoplay.v1.Game.MultiPlay.MULTI_PLAY_OFF)
        .setNumberFirstAndLast(false).setPointValues(unoplay.v1.Game.PointValues.POINT_VALUES_STANDARD)
        .setReverseDeflectsDraw(false)
        .setReverseStarter(unoplay.v1.Game.ReverseStarter.REVERSE_STARTER_DEALER_FIRST)
        .setScoring(unoplay.v1.Game.Scoring.SCORING_WINNER_TAKES).setSevenZero(false)
        .setStacking(unoplay.v1.Game.Stacking.STACKING_OFF).setStarterWildRedraw(false).setSwapOnFive(false)
        .setTargetScore(500).setUnnamedWildKeepsColour(false).setUnoCallStrict(false).setUnoPenalty(2)
        .setWd4Restriction(unoplay.v1.Game.Wd4Restriction.WD4_RESTRICTION_COLOUR)
        .setWildStarter(unoplay.v1.Game.WildStarter.WILD_STARTER_FIRST_PLAYER_NAMES_AND_PLAYS)
        .setWrongPlayPenalty(0).setPreset("official").build();
    expect("the official rules line", Deals.rulesLine(official),
        "challenge_success_skips_challenger=true,false_uno_penalty=0,first_player=left_of_dealer,"
            + "format=standard,initial_direction=clockwise,jump_in=false,multi_play=off,"
            + "number_first_and_last=false,point_values=standard,reverse_deflects_draw=false,"
            + "reverse_starter=dealer_first,scoring=winner_takes,seven_zero=false,stacking=off,"
            + "starter_wild_redraw=false,swap_on_five=false,target_score=500,"
            + "unnamed_wild_keeps_colour=false,uno_call_strict=false,uno_penalty=2,wd4_restriction=colour,"
            + "wild_starter=first_player_names_and_plays,wrong_play_penalty=0");
    expect("the commitment", Deals.commitment("example", "00112233445566778899aabbccddeeff", "t1-abc123", 4, official),
        "468bc9c4c6c39c96f17da6690e08851991ca8103e8fc588c8bead20c3f1c4e51");
  }

  // ------------------------------------------------------------------ Strategy.choose

  private static Card card(int id, Colour colour, Rank rank) {
    return Card.newBuilder().setId(id).setColour(colour).setRank(rank).build();
  }

  private static LegalAction act(int id, ActionKind kind, Consumer<Action.Builder> fill) {
    Action.Builder a = Action.newBuilder().setKind(kind);
    fill.accept(a);
    return LegalAction.newBuilder().setId(id).setAction(a).build();
  }

  private static LegalAction play(int id, int cardId, Consumer<Action.Builder> fill) {
    return act(id, ActionKind.ACTION_KIND_PLAY, a -> fill.accept(a.setCardId(cardId)));
  }

  private static List<LegalAction> wilds(int cardId, int base) {
    List<LegalAction> out = new ArrayList<>();
    Colour[] colours = {Colour.COLOUR_RED, Colour.COLOUR_YELLOW, Colour.COLOUR_GREEN, Colour.COLOUR_BLUE};
    for (int i = 0; i < colours.length; i++) {
      Colour c = colours[i];
      out.add(play(base + i, cardId, a -> a.setColour(c)));
    }
    return out;
  }

  private static PlayerView view(Consumer<PlayerView.Builder> fill) {
    PlayerView.Builder v = PlayerView.newBuilder().setSeat(0).setCurrent(0).setPhase(Phase.PHASE_PLAY)
        .setCatchable(-1).addAllHandSizes(List.of(5, 5, 5, 5));
    fill.accept(v);
    return v.build();
  }

  private static void chooses(String what, PlayerView view, List<LegalAction> legal, int wd4By, int want) {
    LegalAction got = Strategy.choose(view, legal, wd4By);
    expect("choose: " + what, got == null ? -1 : got.getId(), want);
  }

  @SafeVarargs
  private static <T> List<T> concat(List<T>... lists) {
    List<T> out = new ArrayList<>();
    for (List<T> l : lists) {
      out.addAll(l);
    }
    return out;
  }

  private static void strategy() {
    Colour red = Colour.COLOUR_RED;
    Colour yellow = Colour.COLOUR_YELLOW;
    Colour none = Colour.COLOUR_UNSPECIFIED;
    LegalAction draw = act(1, ActionKind.ACTION_KIND_DRAW, a -> { });
    LegalAction keep = act(2, ActionKind.ACTION_KIND_KEEP, a -> { });
    LegalAction callUno = act(23, ActionKind.ACTION_KIND_CALL_UNO, a -> { });
    LegalAction challenge = act(3, ActionKind.ACTION_KIND_CHALLENGE, a -> { });
    LegalAction accept = act(4, ActionKind.ACTION_KIND_ACCEPT, a -> { });
    LegalAction caught = act(22, ActionKind.ACTION_KIND_CATCH, a -> a.setTarget(2));
    List<Card> hand = List.of(card(3, red, Rank.RANK_THREE), card(11, red, Rank.RANK_SKIP),
        card(30, yellow, Rank.RANK_FOUR), card(31, yellow, Rank.RANK_FIVE), card(100, none, Rank.RANK_WILD),
        card(104, none, Rank.RANK_WILD_DRAW_FOUR));
    List<Card> two = List.of(card(3, red, Rank.RANK_THREE), card(11, red, Rank.RANK_SKIP));
    List<Card> sevens = List.of(card(8, red, Rank.RANK_SEVEN), card(33, yellow, Rank.RANK_SEVEN));
    Consumer<PlayerView.Builder> withHand = v -> v.addAllHand(hand);

    chooses("catch first", view(v -> { }), List.of(draw, play(130, 3, a -> { }), caught), -1, 22);
    chooses("most points, not a wild", view(withHand),
        concat(List.of(draw, play(130, 3, a -> { }), play(210, 11, a -> { })), wilds(100, 1100)), -1, 210);
    chooses("the play that calls UNO", view(v -> v.addAllHand(two)),
        List.of(play(130, 3, a -> { }), play(131, 3, a -> a.setUno(true)), play(210, 11, a -> { }), draw), -1, 131);
    chooses("a Wild before a Wild Draw Four, naming red", view(withHand),
        concat(List.of(draw), wilds(104, 1140), wilds(100, 1100)), -1, 1100);
    chooses("draw, never a false UNO call", view(withHand), List.of(callUno, draw), -1, 1);
    chooses("only a false UNO call on our turn: wait", view(withHand), List.of(callUno), -1, -1);
    chooses("play the drawn card", view(v -> v.addAllHand(hand).setPhase(Phase.PHASE_DRAWN)),
        List.of(keep, play(330, 30, a -> { })), -1, 330);
    chooses("keep when nothing fits", view(v -> v.setPhase(Phase.PHASE_DRAWN)), List.of(callUno, keep), -1, 2);
    Consumer<PlayerView.Builder> bigOffender =
        v -> v.setPhase(Phase.PHASE_PENALTY).clearHandSizes().addAllHandSizes(List.of(5, 5, 5, 6));
    chooses("challenge a big hand", view(bigOffender), List.of(challenge, accept), 3, 3);
    chooses("accept from a small hand",
        view(v -> v.setPhase(Phase.PHASE_PENALTY).clearHandSizes().addAllHandSizes(List.of(5, 5, 5, 2))),
        List.of(challenge, accept), 3, 4);
    chooses("offender unknown: the seat before ours", view(bigOffender), List.of(challenge, accept), -1, 3);
    chooses("pass a penalty on (stacking)", view(v -> v.addAllHand(hand).setPhase(Phase.PHASE_PENALTY)),
        List.of(accept, play(240, 11, a -> { })), -1, 240);
    chooses("wait out of turn", view(v -> v.setCurrent(2)), List.of(callUno), -1, -1);
    chooses("call our own UNO", view(v -> v.setCurrent(2).setCatchable(0)), List.of(callUno), -1, 23);
    chooses("no jump-in out of turn", view(v -> v.setCurrent(2).addAllHand(hand)),
        List.of(play(130, 3, a -> { })), -1, -1);
    chooses("name the colour held most for a Wild starter",
        view(v -> v.addAllHand(hand.subList(2, hand.size())).setPhase(Phase.PHASE_CHOOSE_COLOUR)),
        List.of(act(41, ActionKind.ACTION_KIND_CHOOSE_COLOUR, a -> a.setColour(red)),
            act(42, ActionKind.ACTION_KIND_CHOOSE_COLOUR, a -> a.setColour(yellow))), -1, 42);
    chooses("going out with two cards beats calling UNO", view(v -> v.addAllHand(sevens)),
        List.of(play(180, 8, a -> a.setUno(true)), play(20008, 8, a -> a.addExtraCardIds(33).setColour(yellow))),
        -1, 20008);
    chooses("swap with the smallest hand",
        view(v -> v.addAllHand(sevens).clearHandSizes().addAllHandSizes(List.of(2, 6, 3, 7))),
        List.of(play(181, 8, a -> a.setTarget(1)), play(182, 8, a -> a.setTarget(2)),
            play(183, 8, a -> a.setTarget(3))), -1, 182);
  }
}
