package unobot;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import unoplay.v1.Game.Action;
import unoplay.v1.Game.ActionKind;
import unoplay.v1.Game.Card;
import unoplay.v1.Game.Colour;
import unoplay.v1.Game.Direction;
import unoplay.v1.Game.LegalAction;
import unoplay.v1.Game.PlayerView;
import unoplay.v1.Game.Rank;

/**
 * The bot's decisions: edit {@link #choose} to make the bot yours. It gets
 * the view and the legal actions of the latest update (less any refused) and
 * returns one of them, or null to wait.
 */
public final class Strategy {
  /**
   * Challenge a Wild Draw Four when its player still holds at least this
   * many cards (the more they hold, the likelier they held the colour in force).
   */
  static final int CHALLENGE_MIN_HAND = 4;

  /** The colours, in the order used to break ties. */
  private static final List<Colour> COLOURS =
      List.of(Colour.COLOUR_RED, Colour.COLOUR_YELLOW, Colour.COLOUR_GREEN, Colour.COLOUR_BLUE);

  private Strategy() {}

  /**
   * One of {@code legal} for {@code view}, or null to wait. {@code wd4By} is
   * the seat that played the Wild Draw Four we may face, or -1 when not known.
   *
   * <p>Out of turn as well as in it: catch a player who forgot UNO, and call
   * UNO for ourselves when we are the one who may be caught. A CALL_UNO that
   * is not such a call is never chosen: under a false_uno_penalty it is listed
   * for every seat at all times, and costs cards. On our turn: answer a Wild
   * Draw Four (challenge when its player holds many cards) or pass a penalty
   * on when the rules allow; name the colour held most for a Wild starter;
   * otherwise play the card worth the most points (a play that calls UNO
   * first, non-wild cards before a Wild, a Wild before a Wild Draw Four),
   * naming or keeping the colour held most; with nothing to play draw, or
   * keep the card drawn.
   */
  public static LegalAction choose(PlayerView view, List<LegalAction> legal, int wd4By) {
    int seat = view.getSeat();
    List<LegalAction> catches = of(legal, ActionKind.ACTION_KIND_CATCH);
    if (!catches.isEmpty()) {
      return catches.get(0);
    }
    List<LegalAction> calls = of(legal, ActionKind.ACTION_KIND_CALL_UNO);
    if (!calls.isEmpty() && view.getCatchable() == seat) {
      return calls.get(0);
    }
    if (view.getCurrent() != seat) {
      return null; // not our turn: nothing else to do (this bot never jumps in)
    }
    List<LegalAction> plays = of(legal, ActionKind.ACTION_KIND_PLAY);
    switch (view.getPhase()) {
      case PHASE_CHOOSE_COLOUR -> {
        List<LegalAction> choices = of(legal, ActionKind.ACTION_KIND_CHOOSE_COLOUR);
        Colour want = colourHeldMost(view.getHandList(), Set.of());
        for (LegalAction a : choices) {
          if (a.getAction().getColour() == want) {
            return a;
          }
        }
        if (!choices.isEmpty()) {
          return choices.get(0);
        }
      }
      case PHASE_PENALTY -> {
        if (!plays.isEmpty()) { // stacking or a deflecting Reverse: pass it on
          return bestPlay(view, plays);
        }
        ActionKind want = ActionKind.ACTION_KIND_ACCEPT;
        int offender = wd4Player(view, wd4By);
        if (offender >= 0 && offender < view.getHandSizesCount()
            && view.getHandSizes(offender) >= CHALLENGE_MIN_HAND) {
          want = ActionKind.ACTION_KIND_CHALLENGE;
        }
        for (ActionKind kind : List.of(want, ActionKind.ACTION_KIND_ACCEPT)) {
          List<LegalAction> found = of(legal, kind);
          if (!found.isEmpty()) {
            return found.get(0);
          }
        }
      }
      default -> { // PHASE_PLAY, PHASE_DRAWN
        if (!plays.isEmpty()) {
          return bestPlay(view, plays);
        }
        for (ActionKind kind : List.of(ActionKind.ACTION_KIND_DRAW, ActionKind.ACTION_KIND_KEEP)) {
          List<LegalAction> found = of(legal, kind);
          if (!found.isEmpty()) {
            return found.get(0);
          }
        }
      }
    }
    // An action this bot has no rule for: any turn action, never a false UNO call.
    for (LegalAction a : legal) {
      if (a.getAction().getKind() != ActionKind.ACTION_KIND_CALL_UNO) {
        return a;
      }
    }
    return null;
  }

  private static List<LegalAction> of(List<LegalAction> legal, ActionKind kind) {
    List<LegalAction> out = new ArrayList<>();
    for (LegalAction a : legal) {
      if (a.getAction().getKind() == kind) {
        out.add(a);
      }
    }
    return out;
  }

  private static boolean isWild(Rank rank) {
    return rank == Rank.RANK_WILD || rank == Rank.RANK_WILD_DRAW_FOUR;
  }

  /** A card's value at the end of a round (the official table). */
  static int points(Card card) {
    Rank rank = card.getRank();
    if (rank.getNumber() >= Rank.RANK_ZERO_VALUE && rank.getNumber() <= Rank.RANK_NINE_VALUE) {
      return rank.getNumber() - Rank.RANK_ZERO_VALUE;
    }
    if (isWild(rank)) {
      return 50;
    }
    return rank == Rank.RANK_UNSPECIFIED ? 0 : 20;
  }

  /** The colour of most coloured cards in hand, leaving out {@code skip}; red on a tie or with none. */
  static Colour colourHeldMost(List<Card> hand, Set<Integer> skip) {
    Map<Colour, Integer> counts = new HashMap<>();
    for (Card card : hand) {
      if (!skip.contains(card.getId())) {
        counts.merge(card.getColour(), 1, Integer::sum);
      }
    }
    Colour best = COLOURS.get(0);
    for (Colour c : COLOURS) {
      if (counts.getOrDefault(c, 0) > counts.getOrDefault(best, 0)) {
        best = c;
      }
    }
    return best;
  }

  /** The seat whose Wild Draw Four we face: as seen in the events, else the seat before ours. */
  static int wd4Player(PlayerView view, int wd4By) {
    if (wd4By >= 0) {
      return wd4By;
    }
    int n = view.getHandSizesCount();
    if (n == 0) {
      return -1;
    }
    int step = view.getDirection() == Direction.DIRECTION_COUNTER_CLOCKWISE ? -1 : 1;
    return Math.floorMod(view.getSeat() - step, n);
  }

  /**
   * How good a play is, compared field by field, higher first: it lays our
   * last cards (multi_play), it calls UNO, its tier (2 no wild, 1 a Wild, 0 a
   * Wild Draw Four), the points it sheds, the colour in force afterwards is
   * the one we hold most, and minus the cards of a swap target.
   */
  private record PlayKey(boolean out, boolean uno, int tier, int points, boolean ourColour, int fewest)
      implements Comparable<PlayKey> {
    @Override
    public int compareTo(PlayKey o) {
      int[] order = {
        Boolean.compare(out, o.out), Boolean.compare(uno, o.uno), Integer.compare(tier, o.tier),
        Integer.compare(points, o.points), Boolean.compare(ourColour, o.ourColour),
        Integer.compare(fewest, o.fewest),
      };
      for (int c : order) {
        if (c != 0) {
          return c;
        }
      }
      return 0;
    }
  }

  /** The best of {@code plays} (PLAY actions) by PlayKey; the first on a tie. */
  static LegalAction bestPlay(PlayerView view, List<LegalAction> plays) {
    Map<Integer, Card> cards = new HashMap<>();
    for (Card c : view.getHandList()) {
      cards.put(c.getId(), c);
    }
    if (view.hasDrawnCard()) {
      cards.put(view.getDrawnCard().getId(), view.getDrawnCard());
    }
    LegalAction best = null;
    PlayKey bestKey = null;
    for (LegalAction a : plays) {
      Action act = a.getAction();
      List<Integer> laid = new ArrayList<>();
      laid.add(act.getCardId());
      laid.addAll(act.getExtraCardIdsList());
      Set<Integer> skip = new HashSet<>(laid);
      int tier = 2;
      int points = 0;
      for (int id : laid) {
        // A card not in the view: no points, no colour.
        Card card = cards.getOrDefault(id, Card.newBuilder().setId(id).build());
        points += points(card);
        if (card.getRank() == Rank.RANK_WILD) {
          tier = Math.min(tier, 1);
        } else if (card.getRank() == Rank.RANK_WILD_DRAW_FOUR) {
          tier = 0;
        }
      }
      Colour after = act.getColour(); // named by a wild or a multi-colour play
      if (after == Colour.COLOUR_UNSPECIFIED) {
        after = cards.getOrDefault(act.getCardId(), Card.getDefaultInstance()).getColour();
      }
      int fewest = 0;
      if (act.hasTarget() && act.getTarget() < view.getHandSizesCount()) {
        fewest = -view.getHandSizes(act.getTarget());
      }
      PlayKey key = new PlayKey(laid.size() >= view.getHandCount(), act.getUno(), tier, points,
          after == colourHeldMost(view.getHandList(), skip), fewest);
      if (best == null || key.compareTo(bestKey) > 0) {
        best = a;
        bestKey = key;
      }
    }
    return best;
  }
}
