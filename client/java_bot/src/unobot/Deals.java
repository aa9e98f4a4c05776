package unobot;

import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import unoplay.v1.Game.Card;
import unoplay.v1.Game.Event;
import unoplay.v1.Game.PointValues;
import unoplay.v1.Game.Direction;
import unoplay.v1.Game.RuleSet;
import unoplay.v1.GameServiceOuterClass.DealRevealed;
import unoplay.v1.GameServiceOuterClass.TableMessage;
import unoplay.v1.GameServiceOuterClass.Welcome;

/**
 * Fair deals, checked in Java from the bot author's guide alone
 * (proto/README.md, section 11): an implementation independent of the
 * server's Python code.
 *
 * <p>A seat records what it received; when the game ends and the server
 * reveals the seed and salt, it recomputes the commitment, replays the draw
 * and discard piles from the seed and the public events, and checks every
 * card it could see: dealer draws, starters, its own hands and draws, hands
 * shown to it, every card played (it must be in its player's hand as the seed
 * dealt it) and every hand's points at a round's end.
 */
public final class Deals {
  private static final int DECK_SIZE = 108;

  private Deals() {}

  /** The outcome of a deal check: fair true, false, or null when the stream lost events. */
  public record Check(Boolean fair, int checked, List<String> problems) {
    /** The check as a JSON object: fair, checked, problems. */
    public String toJson() {
      return new Json.Object()
          .field("fair", fair)
          .field("checked", checked)
          .field("problems", problems)
          .toString();
    }
  }

  // ------------------------------------------------------------------ hashing

  static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** "name=value,..." for every RuleSet field but preset, sorted by name. */
  public static String rulesLine(RuleSet rules) {
    // Every field by reflection, so that a field added to RuleSet is in the line.
    Map<String, String> values = new TreeMap<>();
    for (FieldDescriptor field : rules.getDescriptorForType().getFields()) {
      if (field.getName().equals("preset")) {
        continue;
      }
      Object value = rules.getField(field);
      String text;
      if (value instanceof EnumValueDescriptor e) {
        // The value's name without the enum's prefix (the name of its value 0
        // without "UNSPECIFIED"), lower-cased: STACKING_PLUS_FOUR_OVER_TWO is
        // plus_four_over_two.
        String zero = field.getEnumType().getValues().get(0).getName();
        String prefix = zero.substring(0, zero.length() - "UNSPECIFIED".length());
        text = e.getName().substring(prefix.length()).toLowerCase(Locale.ROOT);
      } else if (value instanceof Integer n && field.getType() == FieldDescriptor.Type.UINT32) {
        text = Integer.toUnsignedString(n);
      } else if (value instanceof Boolean || value instanceof Integer) {
        text = value.toString();
      } else {
        throw new IllegalArgumentException("RuleSet." + field.getName() + ": a type the commitment lacks");
      }
      values.put(field.getName(), text);
    }
    List<String> pairs = new ArrayList<>();
    values.forEach((name, text) -> pairs.add(name + "=" + text));
    return String.join(",", pairs);
  }

  /** The hex SHA-256 commitment to a game's seed and salt. */
  public static String commitment(String seed, String salt, String tableId, int seats, RuleSet rules) {
    String text = "unoplay deal commitment v1\n"
        + "table: " + tableId + "\n"
        + "seats: " + seats + "\n"
        + "rules: " + rulesLine(rules) + "\n"
        + "salt: " + salt + "\n"
        + "seed: " + seed + "\n";
    return HexFormat.of().formatHex(sha256(text));
  }

  // ------------------------------------------------------------------ the chance stream

  /** The game's one chance stream: the words of SHAKE-256(K || block counter). */
  public static final class Stream {
    private static final int BLOCK_BYTES = 1024;
    private final byte[] key;
    private ByteBuffer block = ByteBuffer.allocate(0);
    private long counter;

    /** The stream of {@code seed}: K = SHA-256("unoplay deal v1\n" + seed). */
    public Stream(String seed) {
      key = sha256("unoplay deal v1\n" + seed);
    }

    /** The key K. */
    public byte[] key() {
      return key.clone();
    }

    /** The next 32-bit word, unsigned, as a long. */
    public long word() {
      if (!block.hasRemaining()) {
        // Block i: the first 1024 bytes of SHAKE-256(K || i), i as 8 little-endian bytes.
        ByteBuffer input = ByteBuffer.allocate(key.length + 8).order(ByteOrder.LITTLE_ENDIAN);
        input.put(key).putLong(counter++);
        block = ByteBuffer.wrap(Shake256.digest(input.array(), BLOCK_BYTES)).order(ByteOrder.LITTLE_ENDIAN);
      }
      return Integer.toUnsignedLong(block.getInt());
    }

    /** A number in 0..n-1: floor(w * n / 2^32). */
    public int below(int n) {
      return (int) ((word() * n) >>> 32);
    }
  }

  // ------------------------------------------------------------------ cards

  private static int points(int id, boolean classic) {
    if (id >= 104) {
      return classic ? 40 : 50; // Wild Draw Four
    }
    if (id >= 100) {
      return classic ? 20 : 50; // Wild
    }
    if (id % 25 <= 18) {
      return (id % 25 + 1) / 2; // a number: 0, 1, 1, 2, 2, ...
    }
    return classic ? 10 : 20; // Skip, Reverse, Draw Two
  }

  private static List<Integer> ids(Event e) {
    List<Integer> out = new ArrayList<>();
    for (Card card : e.getCardsList()) {
      out.add(card.getId());
    }
    return out;
  }

  private static List<Integer> allCards() {
    List<Integer> deck = new ArrayList<>(DECK_SIZE);
    for (int id = 0; id < DECK_SIZE; id++) {
      deck.add(id);
    }
    return deck;
  }

  // ------------------------------------------------------------------ the replay

  /** Everything a seat received of one game that the check needs. */
  public static final class Transcript {
    int seat = -1; // -1: a spectator
    String tableId = "";
    int seats;
    RuleSet rules = RuleSet.getDefaultInstance();
    String commitment = ""; // welcome.deal_commitment
    DealRevealed reveal = DealRevealed.getDefaultInstance();
    final List<Event> events = new ArrayList<>();
  }

  /** Check one game: the commitment, then every card against the replay. */
  public static Check check(Transcript t) {
    List<String> problems = new ArrayList<>();
    DealRevealed reveal = t.reveal;
    if (!commitment(reveal.getSeed(), reveal.getSalt(), t.tableId, t.seats, t.rules)
        .equals(reveal.getCommitment())) {
      problems.add("the revealed seed and salt do not give the revealed commitment");
    }
    if (!t.commitment.isEmpty() && !t.commitment.equals(reveal.getCommitment())) {
      problems.add("the revealed commitment is not the one sent at the start");
    }
    Replay replay = new Replay(t, problems);
    for (Event e : t.events) {
      replay.on(e);
    }
    return new Check(problems.isEmpty(), replay.checked, problems);
  }

  /** The piles and hands as the seed deals them, driven by the game's events. */
  private static final class Replay {
    private final Transcript t;
    private final List<String> problems;
    private final Stream stream;
    private final boolean classic;
    private final int direction;
    private final List<Integer> inPlay = new ArrayList<>(); // seats in play, clockwise (ascending)
    private List<List<Integer>> hands = new ArrayList<>();
    private List<Integer> draw = new ArrayList<>();
    private List<Integer> discard = new ArrayList<>();
    private List<Integer> dealerDeck = allCards(); // persists across re-draws of a tie
    private int unshuffled; // the bottom cards of draw not shuffled yet
    private int round;
    private int checked;
    private final List<List<Integer>> myDraws = new ArrayList<>(); // what we drew, until its DREW_CARDS
    private final Map<Integer, List<Integer>> shown = new HashMap<>(); // seat -> hand after its last Wild Draw Four
    private int wd4By = -1; // a Wild Draw Four was just played by this seat

    Replay(Transcript t, List<String> problems) {
      this.t = t;
      this.problems = problems;
      this.stream = new Stream(t.reveal.getSeed());
      this.classic = t.rules.getPointValues() == PointValues.POINT_VALUES_CLASSIC;
      this.direction = t.rules.getInitialDirection() == Direction.DIRECTION_COUNTER_CLOCKWISE ? -1 : 1;
      for (int s = 0; s < t.seats; s++) {
        inPlay.add(s);
        hands.add(new ArrayList<>());
      }
    }

    void on(Event e) {
      int p = e.getPlayer();
      switch (e.getKind()) {
        case EVENT_KIND_DEALER_DRAW -> {
          if (dealerDeck.isEmpty()) {
            dealerDeck = allCards();
          }
          int i = stream.below(dealerDeck.size());
          Collections.swap(dealerDeck, i, dealerDeck.size() - 1);
          int card = dealerDeck.remove(dealerDeck.size() - 1);
          same("the dealer draw of seat " + p, ids(e), List.of(card), false);
        }
        case EVENT_KIND_ROUND_STARTED -> {
          round = e.getValue();
          draw = allCards();
          unshuffled = DECK_SIZE;
          discard = new ArrayList<>();
          int m = inPlay.size();
          List<Integer> dealt = take(e.getCount() * m);
          int at = inPlay.indexOf(p);
          for (List<Integer> hand : hands) {
            hand.clear();
          }
          for (int j = 0; j < m; j++) {
            List<Integer> hand = handOf(inPlay.get(Math.floorMod(at + direction * (1 + j), m)));
            for (int k = j; k < dealt.size(); k += m) {
              hand.add(dealt.get(k));
            }
          }
        }
        case EVENT_KIND_HAND_DEALT -> same("the hand dealt to seat " + p, ids(e), handOf(p), false);
        case EVENT_KIND_STARTER_FLIPPED -> {
          same("the starter card", ids(e), take(1), false);
          discard = new ArrayList<>(ids(e));
        }
        case EVENT_KIND_STARTER_RETURNED -> { // back on top; the whole pile is shuffled again
          draw.addAll(ids(e));
          unshuffled = draw.size();
          discard.clear();
        }
        case EVENT_KIND_DREW -> {
          List<Integer> got = take(e.getCount());
          if (got.size() < e.getCount() && discard.size() > 1) {
            // The discard pile but its top becomes the draw pile, bottom first.
            draw = new ArrayList<>(discard.subList(0, discard.size() - 1));
            unshuffled = draw.size();
            discard = new ArrayList<>(discard.subList(discard.size() - 1, discard.size()));
            got.addAll(take(e.getCount() - got.size()));
          }
          if (got.size() != e.getCount()) {
            problem("seat " + p + " drew " + e.getCount() + " cards, the piles held " + got.size());
          }
          handOf(p).addAll(got);
          if (p == t.seat && !got.isEmpty()) {
            myDraws.add(got);
          }
        }
        case EVENT_KIND_DREW_CARDS -> {
          List<Integer> predicted = myDraws.isEmpty() ? List.of() : myDraws.remove(0);
          same("the cards drawn by seat " + p, ids(e), predicted, false);
        }
        case EVENT_KIND_PLAYED -> {
          List<Integer> hand = handOf(p);
          for (int card : ids(e)) {
            if (!hand.remove(Integer.valueOf(card))) {
              problem("seat " + p + " played card " + card + ", which the seed did not give them");
            }
            checked++;
            discard.add(card);
            if (card >= 104) {
              wd4By = p; // a challenge shows their hand as it is at the next TURN
            }
          }
        }
        case EVENT_KIND_TURN -> {
          if (wd4By >= 0) {
            shown.put(wd4By, new ArrayList<>(handOf(wd4By)));
            wd4By = -1;
          }
        }
        case EVENT_KIND_HANDS_SWAPPED -> {
          int target = e.getTarget();
          if (validSeat(p) && validSeat(target)) {
            Collections.swap(hands, p, target);
          }
        }
        case EVENT_KIND_HANDS_ROTATED -> {
          int m = inPlay.size();
          List<List<Integer>> rotated = new ArrayList<>(hands);
          for (int j = 0; j < m; j++) {
            rotated.set(inPlay.get(j), hands.get(inPlay.get(Math.floorMod(j - e.getValue(), m))));
          }
          hands = rotated;
        }
        case EVENT_KIND_HAND_RECEIVED -> same("the hand seat " + p + " received", ids(e), handOf(p), true);
        case EVENT_KIND_HAND_SHOWN ->
            same("the hand seat " + p + " showed", ids(e), shown.getOrDefault(p, List.of()), true);
        case EVENT_KIND_HAND_SCORED -> {
          int total = 0;
          for (int card : handOf(p)) {
            total += points(card, classic);
          }
          checked += handOf(p).size();
          if (total != e.getValue()) {
            problem("seat " + p + "'s hand scored " + e.getValue() + " points, the seed's hand holds " + total);
          }
        }
        case EVENT_KIND_PLAYER_OUT -> inPlay.remove(Integer.valueOf(p));
        default -> {} // DECK_RESHUFFLED and the rest change nothing in the replay
      }
    }

    private boolean validSeat(int seat) {
      return seat >= 0 && seat < hands.size();
    }

    /** A seat's hand; a fresh empty list (never matching) for a seat the table does not have. */
    private List<Integer> handOf(int seat) {
      return validSeat(seat) ? hands.get(seat) : new ArrayList<>();
    }

    /**
     * Take k cards from the draw pile: a Fisher-Yates shuffle done lazily,
     * only for the cards taken; the top card (the last) comes first.
     */
    private List<Integer> take(int k) {
      int size = draw.size();
      int low = size - Math.min(k, size);
      if (low < unshuffled) {
        for (int i = unshuffled - 1; i >= low; i--) {
          Collections.swap(draw, i, stream.below(i + 1));
        }
        unshuffled = low;
      }
      List<Integer> taken = new ArrayList<>(draw.subList(low, size));
      Collections.reverse(taken);
      draw.subList(low, size).clear();
      return taken;
    }

    private void same(String what, List<Integer> seen, List<Integer> predicted, boolean asSet) {
      List<Integer> a = new ArrayList<>(seen);
      List<Integer> b = new ArrayList<>(predicted);
      if (asSet) {
        Collections.sort(a);
        Collections.sort(b);
      }
      checked += a.size();
      if (!a.equals(b)) {
        problem(what + ": seen " + a + ", the seed deals " + b);
      }
    }

    private void problem(String text) {
      problems.add("round " + round + ": " + text);
    }
  }

  // ------------------------------------------------------------------ the recorder

  /**
   * Follows a seat's stream (in seq order, each message once) and checks the
   * game's deals when the seed is revealed.
   */
  public static final class Recorder {
    private Transcript game = new Transcript();
    private boolean gap;
    private Check result;

    /** Take in the next message of the stream. */
    public void onMessage(TableMessage m) {
      switch (m.getBodyCase()) {
        case WELCOME -> {
          Welcome w = m.getWelcome();
          if (!w.getDealCommitment().isEmpty()) { // the game starts: its events follow
            game = new Transcript();
            game.commitment = w.getDealCommitment();
            gap = false; // what was lost before does not matter to this game
          }
          game.seat = w.getSeat();
          game.tableId = w.getTable().getTableId();
          game.seats = w.getTable().getSeatsCount();
          game.rules = w.getTable().getRules();
        }
        case EVENT -> game.events.add(m.getEvent());
        case DEAL_REVEALED -> {
          if (gap) { // not every card of the game was seen: cannot be checked, not unfair
            result = new Check(null, 0, List.of("a gap in the stream: not every event was seen"));
          } else {
            game.reveal = m.getDealRevealed();
            result = check(game);
          }
        }
        default -> {}
      }
    }

    /** Seqs jumped: some of this game's events are lost to us. */
    public void onGap() {
      gap = true;
    }

    /** The check of the last game revealed, or null. */
    public Check result() {
      return result;
    }
  }
}
