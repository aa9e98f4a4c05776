package unobot;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import unoplay.v1.Game.ActionKind;
import unoplay.v1.Game.Card;
import unoplay.v1.Game.Event;
import unoplay.v1.Game.EventKind;
import unoplay.v1.Game.LegalAction;
import unoplay.v1.Game.Phase;
import unoplay.v1.Game.PlayerView;
import unoplay.v1.Game.Rank;
import unoplay.v1.Game.RuleSet;
import unoplay.v1.GameServiceGrpc;
import unoplay.v1.GameServiceOuterClass.ActionError;
import unoplay.v1.GameServiceOuterClass.Intent;
import unoplay.v1.GameServiceOuterClass.JoinGame;
import unoplay.v1.GameServiceOuterClass.PlayRequest;
import unoplay.v1.GameServiceOuterClass.PlayResponse;
import unoplay.v1.GameServiceOuterClass.PlayerUpdate;
import unoplay.v1.GameServiceOuterClass.TableMessage;
import unoplay.v1.LobbyServiceGrpc;
import unoplay.v1.LobbyServiceOuterClass.AddBotRequest;
import unoplay.v1.LobbyServiceOuterClass.CreateTableRequest;
import unoplay.v1.LobbyServiceOuterClass.JoinTableRequest;
import unoplay.v1.LobbyServiceOuterClass.JoinTableResponse;
import unoplay.v1.LobbyServiceOuterClass.StartGameRequest;

/**
 * One game at one seat: join (or create) a table, play it over
 * GameService.Play to its end, resume after every drop, print the summary.
 */
final class Bot {
  static final int MAX_RETRIES = 8; // consecutive failed (re)connections before giving up
  /** The status message of UNAVAILABLE when the server stops (proto/README.md, section 2). */
  static final String SHUTTING_DOWN = "the server is shutting down";
  /**
   * An intent unanswered this long (far longer than any out-of-turn window)
   * means a stream that is silently broken: cut it and resume (proto/README.md,
   * section 3, "An intent with no answer").
   */
  static final long INTENT_TIMEOUT_MS = 30_000;

  /** The stream the bot cut itself (testing only), as a network failure would. */
  private static final Status DROPPED = Status.CANCELLED.withDescription("cut for testing");

  /** The events that show an intent of each kind was applied (their player is us). */
  private static final Map<ActionKind, Set<EventKind>> RESULT_EVENTS = Map.of(
      ActionKind.ACTION_KIND_PLAY, Set.of(EventKind.EVENT_KIND_PLAYED),
      ActionKind.ACTION_KIND_DRAW, Set.of(EventKind.EVENT_KIND_DREW),
      ActionKind.ACTION_KIND_KEEP, Set.of(EventKind.EVENT_KIND_KEPT),
      ActionKind.ACTION_KIND_CHALLENGE, Set.of(EventKind.EVENT_KIND_CHALLENGED),
      ActionKind.ACTION_KIND_ACCEPT, Set.of(EventKind.EVENT_KIND_PENALTY_ACCEPTED),
      ActionKind.ACTION_KIND_CALL_UNO, Set.of(EventKind.EVENT_KIND_UNO_CALLED, EventKind.EVENT_KIND_UNO_FALSE_CALL),
      ActionKind.ACTION_KIND_CATCH, Set.of(EventKind.EVENT_KIND_UNO_CAUGHT),
      ActionKind.ACTION_KIND_CHOOSE_COLOUR, Set.of(EventKind.EVENT_KIND_COLOUR_CHOSEN));

  /** An intent the server has not answered yet. */
  private static final class Pending {
    final long seq; // the update it was decided on
    final int id;
    final ActionKind kind;
    final long sentAt = System.nanoTime();
    boolean maybeLost; // the stream dropped after it was sent

    Pending(long seq, int id, ActionKind kind) {
      this.seq = seq;
      this.id = id;
      this.kind = kind;
    }
  }

  private final Options opts;
  private final PrintStream out;
  private final PrintStream err;
  private final ManagedChannel channel;
  private final Random rng = new Random();
  private final Deals.Recorder deals = new Deals.Recorder();

  private String table;
  private String token;
  private int seat;
  private long lastSeq; // last seq seen: the resume point
  private TableMessage latest; // the latest message holding a PlayerUpdate
  private long decidedSeq; // seq of the update we last decided on
  private long freshFrom; // no update older than this seq is current (from a snapshot)
  private boolean midChange; // events seen whose update has not come yet
  private final Set<Integer> refused = new HashSet<>(); // action ids refused for the latest update
  private Pending pending;
  private int wd4By = -1; // who played the Wild Draw Four we may face
  private boolean gameOver;
  private boolean revealed; // deal_revealed came: the game's last message
  private int retries;

  // The summary's counters.
  private boolean interrupted;
  private int errors;
  private final Map<String, Integer> errorReasons = new TreeMap<>();
  private final List<List<Object>> refusedList = new ArrayList<>(); // [reason, action id, action kind]
  private int intents;
  private int messages;
  private int gaps;
  private int reconnects;

  Bot(Options opts, ManagedChannel channel, PrintStream out, PrintStream err) {
    this.opts = opts;
    this.channel = channel;
    this.out = out;
    this.err = err;
    this.table = opts.table;
    this.token = opts.token;
    this.seat = opts.seat;
  }

  private void log(String text) {
    err.println("[java-bot seat " + seat + "] " + text);
  }

  /** Play one game; the exit code (0 over or interrupted, 1 refused or lost). */
  int run() throws InterruptedException {
    if (token.isEmpty()) {
      try {
        if (table.isEmpty()) {
          createTable();
        } else {
          joinTable();
        }
      } catch (Refused e) {
        return fail(e.getMessage());
      }
    }
    return play();
  }

  // ------------------------------------------------------------------ the lobby

  /** A lobby call the server refused; the message says which and why. */
  static final class Refused extends Exception {
    Refused(String message) {
      super(message);
    }
  }

  /** One lobby call with a deadline, retried while the server is not reachable (yet). */
  private <T> T unary(String name, java.util.function.Function<LobbyServiceGrpc.LobbyServiceBlockingStub, T> call)
      throws Refused, InterruptedException {
    for (int attempt = 0; ; attempt++) {
      try {
        return call.apply(LobbyServiceGrpc.newBlockingStub(channel)
            .withDeadlineAfter(Channels.UNARY_TIMEOUT_SECONDS, TimeUnit.SECONDS));
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() != Status.Code.UNAVAILABLE || attempt >= MAX_RETRIES) {
          throw new Refused(name + " refused: " + Channels.describe(e.getStatus()));
        }
      }
      Thread.sleep(Channels.backoff(rng, attempt));
    }
  }

  /** Take a seat at the given table by name. */
  private void joinTable() throws Refused, InterruptedException {
    JoinTableResponse reply = unary("JoinTable", lobby -> lobby.joinTable(
        JoinTableRequest.newBuilder().setTableId(table).setName(opts.name).build()));
    token = reply.getSeatToken();
    seat = reply.getSeat();
    log("joined table " + table + " as " + opts.name);
  }

  /** Make a table for us and --bots server-side bots, take a seat and start the game. */
  private void createTable() throws Refused, InterruptedException {
    RuleSet.Builder rules = RuleSet.newBuilder().setPreset(opts.rules);
    if (opts.target >= 0) {
      rules.setTargetScore(opts.target);
    }
    CreateTableRequest request = CreateTableRequest.newBuilder().setSeats(opts.bots + 1).setRules(rules).build();
    table = unary("CreateTable", lobby -> lobby.createTable(request)).getTable().getTableId();
    joinTable();
    for (int i = 0; i < opts.bots; i++) {
      unary("AddBot", lobby -> lobby.addBot(
          AddBotRequest.newBuilder().setTableId(table).setKind(opts.botKind).build()));
    }
    unary("StartGame", lobby -> lobby.startGame(
        StartGameRequest.newBuilder().setTableId(table).setSeatToken(token).build()));
  }

  // ------------------------------------------------------------------ the game stream

  /** Open the game stream, and again after every drop, until the game is over (0) or lost (1). */
  private int play() throws InterruptedException {
    for (;;) {
      Status status = stream();
      if (status.isOk() && gameOver) {
        return done();
      }
      // OK before game over: the stream ended early, the server went away.
      Status.Code code = status.isOk() ? Status.Code.UNAVAILABLE : status.getCode();
      String what = status.isOk() ? "ended" : code.name();
      // deal_revealed without GAME_OVER, or "the server is shutting down": the
      // server's stop interrupted the game, which will never go on
      // (proto/README.md, section 2). Do not reconnect to a server that is gone.
      if (!gameOver && (revealed
          || (code == Status.Code.UNAVAILABLE && SHUTTING_DOWN.equals(status.getDescription())))) {
        interrupted = true;
        log("the game was interrupted by the server's stop");
        return done();
      }
      if (!Channels.retryable(code)) {
        return fail("stream refused: " + Channels.describe(status));
      }
      if (retries >= MAX_RETRIES) {
        return fail("stream lost " + retries + " times in a row; giving up");
      }
      long delay = Channels.backoff(rng, retries);
      retries++;
      reconnects++;
      // An intent in flight may or may not have reached the server. If it
      // did, its event comes in the resumed backlog; if it did not, the
      // backlog's updates (it ends with a fresh one) are decided on again.
      if (pending != null) {
        pending.maybeLost = true;
      }
      log("stream dropped (" + what + "); resuming after seq " + lastSeq + " in " + delay + " ms");
      Thread.sleep(delay);
    }
  }

  /**
   * One Play stream, to its end: its status (OK when the server ended it so).
   * gRPC's threads put what the server sends in a queue; this thread reads
   * it, decides and writes, so the bot's state has one owner.
   */
  private Status stream() throws InterruptedException {
    BlockingQueue<Object> inbox = new LinkedBlockingQueue<>(); // PlayResponse, then a Status
    AtomicReference<ClientCallStreamObserver<PlayRequest>> call = new AtomicReference<>();
    GameServiceGrpc.newStub(channel).play(new ClientResponseObserver<PlayRequest, PlayResponse>() {
      @Override
      public void beforeStart(ClientCallStreamObserver<PlayRequest> requests) {
        call.set(requests);
      }

      @Override
      public void onNext(PlayResponse response) {
        inbox.add(response);
      }

      @Override
      public void onError(Throwable t) {
        inbox.add(Status.fromThrowable(t));
      }

      @Override
      public void onCompleted() {
        inbox.add(Status.OK);
      }
    }); // no deadline: keepalive instead
    ClientCallStreamObserver<PlayRequest> requests = call.get();
    // Join first (within 10 s of opening), resuming after the last seq seen.
    requests.onNext(PlayRequest.newBuilder()
        .setJoin(JoinGame.newBuilder().setTableId(table).setSeatToken(token).setLastSeq(lastSeq))
        .build());
    for (;;) {
      Object item;
      if (pending == null) {
        item = inbox.take();
      } else {
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - pending.sentAt);
        item = inbox.poll(Math.max(0, INTENT_TIMEOUT_MS - waited), TimeUnit.MILLISECONDS);
        if (item == null) {
          log("intent " + pending.id + " unanswered after " + INTENT_TIMEOUT_MS + " ms");
          return cut(requests, inbox, Status.DEADLINE_EXCEEDED.withDescription("intent unanswered"));
        }
      }
      if (item instanceof Status status) {
        return status;
      }
      PlayResponse response = (PlayResponse) item;
      retries = 0;
      // The first response of a stream carries a snapshot: updates of the
      // backlog older than its update_seq are stale, never to be decided on.
      if (response.hasSnapshot() && response.getSnapshot().getUpdateSeq() > freshFrom) {
        freshFrom = response.getSnapshot().getUpdateSeq();
      }
      if (onBatch(response.getMessagesList())) {
        log("testing: cutting the stream after message " + messages);
        return cut(requests, inbox, DROPPED);
      }
      LegalAction choice = decide(); // on the latest update of the batch only: earlier ones are stale
      if (choice == null) {
        continue;
      }
      intents++;
      // seen_seq: the newest message read when choosing, so that a refusal
      // on a view a later update had replaced is a race lost, not a mistake.
      requests.onNext(PlayRequest.newBuilder()
          .setIntent(Intent.newBuilder().setActionId(choice.getId()).setSeenSeq(lastSeq))
          .build());
      if (opts.dropAfterIntent.contains(intents)) {
        log("testing: cutting the stream after intent " + intents);
        return cut(requests, inbox, DROPPED);
      }
    }
  }

  /** Cancel the stream ourselves and wait for its end; what is left unread is dropped. */
  private static Status cut(ClientCallStreamObserver<PlayRequest> requests, BlockingQueue<Object> inbox,
      Status as) throws InterruptedException {
    requests.cancel(as.getDescription(), null);
    while (!(inbox.take() instanceof Status)) {
      // drain
    }
    return as;
  }

  /** Take in one batch; true when the bot cuts the stream in it (testing only). */
  private boolean onBatch(List<TableMessage> batch) {
    for (TableMessage m : batch) {
      if (m.getSeq() <= lastSeq) {
        continue; // already seen before a reconnect
      }
      if (m.getSeq() != lastSeq + 1) {
        gaps++;
        deals.onGap(); // some of this game's events are lost to us (guide, section 11)
        log("gap in the stream: seq " + lastSeq + " then " + m.getSeq());
      }
      lastSeq = m.getSeq();
      messages++;
      onMessage(m);
      if (opts.dropAfter.contains(messages)) {
        return true;
      }
    }
    return false;
  }

  private void onMessage(TableMessage m) {
    deals.onMessage(m);
    switch (m.getBodyCase()) {
      case WELCOME -> {
        seat = m.getWelcome().getSeat();
        if (!m.getWelcome().getDealCommitment().isEmpty()) {
          revealed = false; // a game starts
        }
      }
      case DEAL_REVEALED -> {
        revealed = true;
        Deals.Check check = deals.result();
        if (check != null && Boolean.FALSE.equals(check.fair())) {
          log("the deals do not match the seed: " + String.join("; ", check.problems()));
        } else if (check != null && check.fair() == null) {
          log("the deals cannot be checked: the stream lost some of the game's events");
        }
      }
      case EVENT -> onEvent(m.getEvent());
      case UPDATE -> {
        midChange = false;
        if (latest == null || m.getSeq() > latest.getSeq()) {
          refused.clear();
        }
        latest = m;
        // Resumed after a drop with an intent in flight: stop waiting for its
        // answer and decide on the latest update of the backlog (which shows
        // the intent's effect if it was applied).
        if (pending != null && pending.maybeLost) {
          pending = null;
        }
        // An action kind whose answering event this bot does not know: the
        // next update is its answer.
        if (pending != null && !RESULT_EVENTS.containsKey(pending.kind) && m.getSeq() > pending.seq) {
          pending = null;
        }
        if (m.getUpdate().getView().getPhase() == Phase.PHASE_GAME_OVER) {
          gameOver = true;
        }
      }
      case ERROR -> onError(m.getError());
      default -> {} // seats_changed, or a body this bot does not know: never a decision point
    }
  }

  private void onEvent(Event e) {
    midChange = true; // every change ends with an update: wait for it
    List<Card> cards = e.getCardsList();
    if (e.getKind() == EventKind.EVENT_KIND_PLAYED && !cards.isEmpty()
        && cards.get(cards.size() - 1).getRank() == Rank.RANK_WILD_DRAW_FOUR) {
      wd4By = e.getPlayer(); // the new top card is the last one laid
    }
    if (e.getKind() == EventKind.EVENT_KIND_GAME_OVER) {
      gameOver = true;
    }
    // Our intent took effect: its event names us.
    if (pending != null && e.getPlayer() == seat
        && RESULT_EVENTS.getOrDefault(pending.kind, Set.of()).contains(e.getKind())) {
      pending = null;
    }
  }

  /**
   * A refusal is not an error: decide again on the latest update, without the
   * refused action (races for catches and jump-ins are normal).
   */
  private void onError(ActionError e) {
    errors++;
    errorReasons.merge(e.getReason(), 1, Integer::sum);
    boolean mine = pending != null && e.getActionId() == pending.id;
    refusedList.add(List.of(e.getReason(), e.getActionId(), mine ? pending.kind.name() : "?"));
    log("ActionError " + e.getReason() + " for action " + e.getActionId() + (e.getRace() ? " (race lost)" : "")
        + ": " + e.getMessage());
    if (!mine) {
      return;
    }
    if (latest != null && latest.getSeq() == pending.seq) {
      refused.add(e.getActionId());
      decidedSeq = 0;
    }
    pending = null;
  }

  /** Answer the latest update once, with at most one intent in flight: the action, or null to wait. */
  private LegalAction decide() {
    if (pending != null || latest == null || latest.getSeq() == decidedSeq) {
      return null;
    }
    if (latest.getSeq() < freshFrom || midChange) {
      return null; // a stale backlog, or a batch cut inside a change: its update comes next
    }
    PlayerUpdate update = latest.getUpdate();
    decidedSeq = latest.getSeq();
    List<LegalAction> legal = new ArrayList<>();
    for (LegalAction a : update.getLegalActionsList()) {
      if (!refused.contains(a.getId())) {
        legal.add(a);
      }
    }
    if (legal.isEmpty()) {
      return null;
    }
    LegalAction choice = Strategy.choose(update.getView(), legal, wd4By);
    if (choice == null) {
      return null;
    }
    if (opts.verbose) {
      log("seq " + latest.getSeq() + ": " + choice.getLabel() + " (id " + choice.getId() + ")");
    }
    pending = new Pending(latest.getSeq(), choice.getId(), choice.getAction().getKind());
    return choice;
  }

  // ------------------------------------------------------------------ the end

  /** Print the summary line; exit code 0. */
  private int done() {
    List<Integer> scores = new ArrayList<>();
    List<Integer> winners = new ArrayList<>();
    if (latest != null) {
      PlayerView view = latest.getUpdate().getView();
      scores.addAll(view.getScoresList());
      winners.addAll(view.getGameWinnersList());
    }
    Deals.Check check = deals.result();
    out.println(new Json.Object()
        .field("seat", seat)
        .field("table", table)
        .field("game_over", gameOver)
        .field("interrupted", interrupted)
        .field("scores", scores)
        .field("winners", winners)
        .field("errors", errors)
        .field("error_reasons", errorReasons)
        .field("refused", refusedList)
        .field("intents", intents)
        .field("messages", messages)
        .field("last_seq", lastSeq)
        .field("gaps", gaps)
        .field("reconnects", reconnects)
        .raw("deals", check == null ? "null" : check.toJson()));
    out.flush();
    return 0;
  }

  /** Say why the bot gives up, print the summary line; exit code 1. */
  private int fail(String why) {
    log(why);
    done();
    return 1;
  }

  /** Whether this game ended with the game over (the arena's loop goes on then). */
  boolean gameOver() {
    return gameOver;
  }
}
