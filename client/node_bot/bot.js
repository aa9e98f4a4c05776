#!/usr/bin/env node
// A UNO bot for a unoplay server, in plain JavaScript on Node.js.
//
// It is built from the project's .proto files alone (loaded at run time from
// ../../proto, never copied) and the bot author's guide, proto/README.md. It:
//   - takes a seat: the token in UNO_TOKEN / --token, or joins the table
//     UNO_TABLE / --table by name through LobbyService.JoinTable;
//   - opens GameService.Play, sends join, and answers every PlayerUpdate that
//     offers it legal actions with one of them (a small heuristic, below);
//   - counts the ActionErrors it receives (and logs them to stderr);
//   - reconnects with backoff when the stream drops, resuming from the last
//     seq it saw and dropping any message it has already seen;
//   - checks the deals when the game is over and the server reveals the seed
//     (deals.js, from the guide's section 11);
//   - exits 0 when the stream ends after game over, or when the server's stop
//     interrupted the game (deal_revealed without GAME_OVER, or UNAVAILABLE
//     "the server is shutting down": it does not reconnect), printing one line
//     of JSON to stdout: seat, final scores, winners, errors, the deal check.
//
// Usage:
//   node bot.js [--server HOST:PORT] [--table ID] [--token TOKEN] [--name NAME]
//               [--tls-ca PEM] [--verbose]
//   (testing only: --drop-after N[,N...] cuts the stream after the Nth message
//   received, --drop-after-intent N[,N...] right after the Nth intent sent)
// Environment (as `uno match --seat "node client/node_bot/bot.js"` sets it):
//   UNO_SERVER (host:port), UNO_TABLE (table id), UNO_TOKEN (seat token), UNO_SEAT;
//   UNOPLAY_TLS_CA (a PEM file: use TLS and trust it, as the Python clients do).
// Exit codes: 0 game over or interrupted by the server's stop, 1 the server refused us (bad token, unknown table,
//   ...) or the stream could not be restored, 2 bad command line.
'use strict';

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const { checkDeals } = require('./deals');

const PROTO_ROOT = path.resolve(__dirname, '..', '..', 'proto');
const UNARY_TIMEOUT_MS = 10000; // deadline of each lobby call
const SHUTTING_DOWN = 'the server is shutting down'; // UNAVAILABLE's message when the server stops
const MAX_RETRIES = 8; // consecutive failed (re)connections before giving up
// UNAVAILABLE's message when the server stops to start again with its tables:
// keep reconnecting for up to RESTART_WAIT_MS, then resume (guide, section 6)
const RESTARTING = 'the server is restarting';
const RESTART_WAIT_MS = 120000;
// Keepalive within what the server allows (client pings no more often than
// every few seconds): ping every 10 s, give up on the connection after 5 s
// without an answer. Batches of a long resume can be large: accept 16 MiB.
const CHANNEL_OPTIONS = {
  'grpc.keepalive_time_ms': 10000,
  'grpc.keepalive_timeout_ms': 5000,
  'grpc.keepalive_permit_without_calls': 1,
  'grpc.max_receive_message_length': 16 * 1024 * 1024,
};
// Status codes worth reopening the game stream after; anything else is final.
// RESOURCE_EXHAUSTED: a server limit ended the stream; the seat is unharmed.
const RETRYABLE = new Set([grpc.status.UNAVAILABLE, grpc.status.INTERNAL, grpc.status.UNKNOWN,
  grpc.status.CANCELLED, grpc.status.DEADLINE_EXCEEDED, grpc.status.RESOURCE_EXHAUSTED]);
// The event that shows an intent of each kind was applied (its `player` is us).
const RESULT_EVENT = {
  ACTION_KIND_PLAY: ['EVENT_KIND_PLAYED'],
  ACTION_KIND_DRAW: ['EVENT_KIND_DREW'],
  ACTION_KIND_KEEP: ['EVENT_KIND_KEPT'],
  ACTION_KIND_CHALLENGE: ['EVENT_KIND_CHALLENGED'],
  ACTION_KIND_ACCEPT: ['EVENT_KIND_PENALTY_ACCEPTED'],
  ACTION_KIND_CALL_UNO: ['EVENT_KIND_UNO_CALLED', 'EVENT_KIND_UNO_FALSE_CALL'],
  ACTION_KIND_CATCH: ['EVENT_KIND_UNO_CAUGHT'],
  ACTION_KIND_CHOOSE_COLOUR: ['EVENT_KIND_COLOUR_CHOSEN'],
};
const COLOURS = ['COLOUR_RED', 'COLOUR_YELLOW', 'COLOUR_GREEN', 'COLOUR_BLUE'];
const NUMBER_RANKS = ['RANK_ZERO', 'RANK_ONE', 'RANK_TWO', 'RANK_THREE', 'RANK_FOUR',
  'RANK_FIVE', 'RANK_SIX', 'RANK_SEVEN', 'RANK_EIGHT', 'RANK_NINE'];
const WILD_RANKS = ['RANK_WILD', 'RANK_WILD_DRAW_FOUR'];
// Challenge a Wild Draw Four when its player still holds at least this many
// cards: the more they hold, the likelier they held the colour in force.
const CHALLENGE_MIN_HAND = 4;

// ------------------------------------------------------------------ options

function parseArgs(argv, env) {
  const opts = {
    server: env.UNO_SERVER || '127.0.0.1:50051',
    table: env.UNO_TABLE || '',
    token: env.UNO_TOKEN || '',
    tlsCa: env.UNOPLAY_TLS_CA || '', // PEM file: connect with TLS, trusting it
    name: 'node-bot',
    verbose: Boolean(env.UNO_VERBOSE),
    dropAfter: [], // testing only: cut our own stream after the Nth message received
    dropAfterIntent: [], // testing only: cut it right after sending the Nth intent
    arena: false, // enter the server's arena under --name instead of one table
    games: 0, // with --arena: stop after this many games (0: never)
    secretFile: '', // with --arena: where the name's secret is kept
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) usage(`${arg} needs a value`);
      return argv[++i];
    };
    if (arg === '--server') opts.server = value();
    else if (arg === '--table') opts.table = value();
    else if (arg === '--token') opts.token = value();
    else if (arg === '--name') opts.name = value();
    else if (arg === '--tls-ca') opts.tlsCa = value();
    else if (arg === '--verbose' || arg === '-v') opts.verbose = true;
    else if (arg === '--drop-after') opts.dropAfter = value().split(',').map(Number);
    else if (arg === '--drop-after-intent') opts.dropAfterIntent = value().split(',').map(Number);
    else if (arg === '--arena') opts.arena = true;
    else if (arg === '--games') opts.games = Number(value());
    else if (arg === '--secret-file') opts.secretFile = value();
    else if (arg === '--help' || arg === '-h') usage('');
    else usage(`unknown option ${arg}`);
  }
  if (!opts.table && !opts.arena) usage('the table id is needed: --table ID or UNO_TABLE (or --arena)');
  if (opts.arena && !opts.secretFile) opts.secretFile = `${opts.name}.arena-secret`;
  return opts;
}

function usage(problem) {
  if (problem) process.stderr.write(`bot.js: ${problem}\n`);
  process.stderr.write('usage: node bot.js [--server HOST:PORT] [--table ID] [--token TOKEN] '
    + '[--name NAME] [--tls-ca PEM] [--verbose]\n'
    + '       node bot.js --arena --name NAME [--games N] [--secret-file FILE] [--server HOST:PORT]\n');
  process.exit(problem ? 2 : 0);
}

// ------------------------------------------------------------------ strategy

function points(card) {
  const n = NUMBER_RANKS.indexOf(card.rank);
  if (n >= 0) return n;
  return WILD_RANKS.includes(card.rank) ? 50 : 20;
}

// The colour of most coloured cards in `hand`, leaving out card `skipId`.
function colourHeldMost(hand, skipId) {
  const counts = {};
  for (const c of COLOURS) counts[c] = 0;
  for (const card of hand) {
    if (card.id !== skipId && card.colour in counts) counts[card.colour] += 1;
  }
  return COLOURS.reduce((best, c) => (counts[c] > counts[best] ? c : best), COLOURS[0]);
}

// Pick one of `legal` (LegalAction messages) for `view`, or null to wait.
// `wd4By` is the seat that played the Wild Draw Four we face, if known.
function choose(view, legal, wd4By) {
  const seat = view.seat;
  const of = (kind) => legal.filter((a) => a.action.kind === kind);
  // Out of turn as well as in it: catch a player who forgot UNO; call our own.
  const catches = of('ACTION_KIND_CATCH');
  if (catches.length) return catches[0];
  const calls = of('ACTION_KIND_CALL_UNO');
  if (calls.length && view.catchable === seat) return calls[0];
  if (view.current !== seat) return null; // not our turn: nothing else to do
  const cardById = new Map(view.hand.map((c) => [c.id, c]));
  if (view.drawn_card) cardById.set(view.drawn_card.id, view.drawn_card);
  switch (view.phase) {
    case 'PHASE_PENALTY': {
      const n = view.hand_sizes.length;
      const step = view.direction === 'DIRECTION_COUNTER_CLOCKWISE' ? -1 : 1;
      const offender = wd4By >= 0 ? wd4By : (((seat - step) % n) + n) % n;
      const want = view.hand_sizes[offender] >= CHALLENGE_MIN_HAND
        ? 'ACTION_KIND_CHALLENGE' : 'ACTION_KIND_ACCEPT';
      return of(want)[0] || of('ACTION_KIND_ACCEPT')[0] || legal[0];
    }
    case 'PHASE_CHOOSE_COLOUR': {
      const colour = colourHeldMost(view.hand, -1);
      const choices = of('ACTION_KIND_CHOOSE_COLOUR');
      return choices.find((a) => a.action.colour === colour) || choices[0];
    }
    default: { // PHASE_PLAY, PHASE_DRAWN
      let plays = of('ACTION_KIND_PLAY');
      // A play that calls UNO beats the same play without the call.
      if (plays.some((a) => a.action.uno)) plays = plays.filter((a) => a.action.uno);
      const cardOf = (a) => cardById.get(a.action.card_id) || { id: a.action.card_id, rank: '', colour: '' };
      const plain = plays.filter((a) => !WILD_RANKS.includes(cardOf(a).rank));
      if (plain.length) {
        // Most points first (get rid of what would count against us), then the colour we hold most.
        const most = colourHeldMost(view.hand, -1);
        const key = (a) => points(cardOf(a)) * 10 + (cardOf(a).colour === most ? 1 : 0);
        return plain.reduce((best, a) => (key(a) > key(best) ? a : best));
      }
      const wilds = plays.filter((a) => WILD_RANKS.includes(cardOf(a).rank));
      if (wilds.length) {
        // A plain Wild before a Wild Draw Four (keep the stronger card), naming our colour.
        wilds.sort((a, b) => WILD_RANKS.indexOf(cardOf(a).rank) - WILD_RANKS.indexOf(cardOf(b).rank));
        const best = wilds.filter((a) => cardOf(a).rank === cardOf(wilds[0]).rank);
        const colour = colourHeldMost(view.hand, best[0].action.card_id);
        return best.find((a) => a.action.colour === colour) || best[0];
      }
      // Nothing to play: draw (PHASE_PLAY) or keep the drawn card (PHASE_DRAWN).
      return of('ACTION_KIND_DRAW')[0] || of('ACTION_KIND_KEEP')[0]
        || legal.find((a) => a.action.kind !== 'ACTION_KIND_CALL_UNO') || legal[0];
    }
  }
}

// ------------------------------------------------------------------ the bot

function loadServices() {
  const definition = protoLoader.loadSync(
    ['unoplay/v1/lobby_service.proto', 'unoplay/v1/game_service.proto',
      'unoplay/v1/arena_service.proto'],
    { includeDirs: [PROTO_ROOT], keepCase: true, longs: Number, enums: String,
      defaults: true, oneofs: true });
  return grpc.loadPackageDefinition(definition).unoplay.v1;
}

class Bot {
  constructor(opts, api) {
    this.opts = opts;
    // Plain HTTP/2 unless given a CA (or self-signed certificate) to trust for TLS.
    const credentials = () => (opts.tlsCa
      ? grpc.credentials.createSsl(fs.readFileSync(opts.tlsCa))
      : grpc.credentials.createInsecure());
    this.lobby = new api.LobbyService(opts.server, credentials(), CHANNEL_OPTIONS);
    this.games = new api.GameService(opts.server, credentials(), CHANNEL_OPTIONS);
    this.token = opts.token;
    this.seat = -1;
    this.lastSeq = 0; // last seq seen: the resume point
    this.latest = null; // the latest TableMessage holding a PlayerUpdate
    this.decidedSeq = 0; // seq of the update we last decided on
    this.freshFrom = 0; // no update older than this seq is current (from a snapshot)
    this.midChange = false; // events seen whose update has not come yet
    this.refused = new Set(); // action ids refused for the latest update
    this.pending = null; // {seq, id, kind, maybeLost}: an intent the server has not answered yet
    this.wd4By = -1; // who played the Wild Draw Four we may face
    this.gameOver = false;
    this.revealed = false; // deal_revealed came: the game's last message
    this.interrupted = false; // the server's stop ended the game unfinished
    this.errors = 0;
    this.errorReasons = {};
    this.refusedLog = []; // [reason, action id, action kind] of each refused intent
    this.intents = 0;
    this.messages = 0;
    this.gaps = 0;
    this.reconnects = 0;
    this.retries = 0;
    this.call = null;
    this.table = null; // the table of the game's welcome: id, seats, rules
    this.commitment = ''; // welcome.deal_commitment of this game
    this.gameEvents = []; // every event of this game, for the deal check
    this.deals = null; // the deal check, once the seed is revealed
    this.gameGap = false; // seqs jumped during this game: its deals cannot be checked
  }

  log(text) {
    process.stderr.write(`[node-bot seat ${this.seat}] ${text}\n`);
  }

  async run() {
    if (!this.token) await this.joinTable();
    await new Promise((resolve) => {
      this.finish = resolve;
      this.open();
    });
  }

  // Take a seat by name, retrying while the server is not reachable yet.
  async joinTable() {
    for (let attempt = 0; ; attempt++) {
      try {
        const reply = await new Promise((resolve, reject) => {
          this.lobby.JoinTable({ table_id: this.opts.table, name: this.opts.name },
            { deadline: Date.now() + UNARY_TIMEOUT_MS },
            (err, res) => (err ? reject(err) : resolve(res)));
        });
        this.token = reply.seat_token;
        this.seat = reply.seat;
        this.log(`joined table ${this.opts.table} as ${this.opts.name}`);
        return;
      } catch (err) {
        if (err.code !== grpc.status.UNAVAILABLE || attempt >= MAX_RETRIES) {
          this.fail(`JoinTable refused: ${grpc.status[err.code]}: ${err.details}`);
        }
        await new Promise((r) => setTimeout(r, backoff(attempt)));
      }
    }
  }

  // Open a Play stream and send join, resuming after lastSeq.
  open() {
    const call = this.games.Play();
    this.call = call;
    let closed = false;
    call.on('data', (response) => {
      if (this.call !== call || call.dropped) return;
      // A response is a batch of table messages (one change of the game or several).
      const batch = response.messages || (response.message ? [response.message] : []);
      // The first response of a stream may carry a snapshot: updates of the
      // backlog older than its update_seq are stale, never to be decided on.
      if (response.snapshot && response.snapshot.update_seq) {
        this.freshFrom = Math.max(this.freshFrom, Number(response.snapshot.update_seq));
      }
      this.retries = 0;
      this.onBatch(batch);
    });
    call.on('error', (err) => {
      if (closed) return;
      closed = true;
      this.onClosed(call, err);
    });
    call.on('end', () => {
      if (closed) return;
      closed = true;
      this.onClosed(call, null);
    });
    call.write({ join: { table_id: this.opts.table, seat_token: this.token, last_seq: this.lastSeq } });
  }

  onClosed(call, err) {
    if (this.call !== call) return;
    this.call = null;
    if (!err && this.gameOver) {
      this.done();
      return;
    }
    const code = err ? err.code : grpc.status.UNAVAILABLE; // ended early: the server went away
    // deal_revealed without GAME_OVER, or "the server is shutting down": the
    // server's stop interrupted the game, which will never go on
    // (proto/README.md, section 2). Nothing went wrong on our side.
    if (!this.gameOver && (this.revealed
        || (code === grpc.status.UNAVAILABLE && err && err.details === SHUTTING_DOWN))) {
      this.interrupted = true;
      this.log('the game was interrupted by the server\'s stop');
      this.done();
      return;
    }
    if (!RETRYABLE.has(code)) {
      this.fail(`stream refused: ${grpc.status[code]}: ${err.details}`);
    }
    if (err && code === grpc.status.UNAVAILABLE && (err.details || '').includes(RESTARTING)) {
      this.restartUntil = Date.now() + RESTART_WAIT_MS;
      this.retries = 0;
      this.log('the server is restarting: reconnecting until it is back');
    }
    if (this.retries >= MAX_RETRIES && !(Date.now() < (this.restartUntil || 0))) {
      this.fail(`stream lost ${this.retries} times in a row; giving up`);
    }
    const delay = backoff(Math.min(this.retries++, MAX_RETRIES));
    this.reconnects += 1;
    // An intent in flight may or may not have reached the server. If it did,
    // its event comes in the resumed backlog; if it did not, the backlog's
    // updates (it ends with a fresh one) are decided on again.
    if (this.pending) this.pending.maybeLost = true;
    this.log(`stream dropped (${err ? grpc.status[code] : 'ended'}); resuming after seq ${this.lastSeq} in ${delay} ms`);
    setTimeout(() => this.open(), delay);
  }

  onBatch(batch) {
    for (const message of batch) {
      const seq = message.seq;
      if (seq <= this.lastSeq) continue; // already seen before a reconnect
      if (seq !== this.lastSeq + 1) {
        this.gaps += 1;
        this.gameGap = true; // some of this game's events are lost to us (guide, section 11)
        this.log(`gap in the stream: seq ${this.lastSeq} then ${seq}`);
      }
      this.lastSeq = seq;
      this.messages += 1;
      this.onMessage(message);
      if (this.opts.dropAfter.includes(this.messages)) {
        this.drop(`after message ${this.messages}`);
        return; // the rest of the batch comes again after the resume
      }
    }
    this.act(); // on the latest update of the batch only: earlier ones are stale
  }

  onMessage(message) {
    switch (message.body) {
      case 'welcome':
        this.seat = message.welcome.seat;
        this.table = message.welcome.table;
        if (message.welcome.deal_commitment) { // the game starts: its events follow
          this.commitment = message.welcome.deal_commitment;
          this.revealed = false;
          this.gameEvents = [];
          this.gameGap = false; // what was lost before does not matter to this game
        }
        break;
      case 'deal_revealed': {
        this.revealed = true;
        const t = this.table;
        if (this.gameGap) { // not every card of the game was seen: cannot be checked, not unfair
          this.deals = { fair: null, checked: 0, problems: ['a gap in the stream: not every event was seen'] };
          this.log('the deals cannot be checked: the stream lost some of the game\'s events');
          break;
        }
        this.deals = checkDeals({ seat: this.seat, table_id: t.table_id, seats: t.seats.length,
          rules: t.rules, commitment: this.commitment, reveal: message.deal_revealed,
          events: this.gameEvents });
        if (this.deals.fair === false) this.log(`the deals do not match the seed: ${this.deals.problems.join('; ')}`);
        break;
      }
      case 'event': {
        const e = message.event;
        this.gameEvents.push(e);
        this.midChange = true; // every change ends with an update: wait for it
        if (e.kind === 'EVENT_KIND_PLAYED' && e.cards.length
            && e.cards[0].rank === 'RANK_WILD_DRAW_FOUR') this.wd4By = e.player;
        if (e.kind === 'EVENT_KIND_GAME_OVER') this.gameOver = true;
        // Our intent took effect: its event names us.
        if (this.pending && e.player === this.seat
            && (RESULT_EVENT[this.pending.kind] || []).includes(e.kind)) this.pending = null;
        break;
      }
      case 'update': {
        this.midChange = false;
        if (this.latest === null || message.seq > this.latest.seq) this.refused.clear();
        this.latest = message;
        // Resumed after a drop with an intent in flight: stop waiting for its
        // answer and decide on the latest update of the backlog (which shows
        // the intent's effect if it was applied; the server ends a resumed
        // backlog with a fresh update).
        if (this.pending && this.pending.maybeLost) this.pending = null;
        // An action kind this bot does not know the answering event of: the
        // next update is its answer.
        if (this.pending && !RESULT_EVENT[this.pending.kind] && message.seq > this.pending.seq) {
          this.pending = null;
        }
        if (message.update.view.phase === 'PHASE_GAME_OVER') this.gameOver = true;
        break;
      }
      case 'error': {
        const err = message.error;
        this.errors += 1;
        this.errorReasons[err.reason] = (this.errorReasons[err.reason] || 0) + 1;
        const kind = this.pending && err.action_id === this.pending.id ? this.pending.kind : '?';
        this.refusedLog.push([err.reason, err.action_id, kind]);
        this.log(`ActionError ${err.reason} for action ${err.action_id}: ${err.message}`);
        if (this.pending && err.action_id === this.pending.id) {
          // Decide again on the latest update, without the refused action.
          if (this.latest && this.latest.seq === this.pending.seq) {
            this.refused.add(err.action_id);
            this.decidedSeq = 0;
          }
          this.pending = null;
        }
        break;
      }
      default:
        break;
    }
  }

  // Answer the latest update once, with at most one intent in flight.
  act() {
    if (this.pending || !this.latest || this.latest.seq === this.decidedSeq) return;
    if (this.latest.seq < this.freshFrom) return; // still reading a stale backlog
    if (this.midChange) return; // a batch cut inside a change: its update comes next
    if (!this.call || this.call.dropped) return;
    const { view, legal_actions: all } = this.latest.update;
    this.decidedSeq = this.latest.seq;
    const legal = all.filter((a) => !this.refused.has(a.id));
    if (!legal.length) return;
    const choice = choose(view, legal, this.wd4By);
    if (!choice) return;
    if (this.opts.verbose) this.log(`seq ${this.latest.seq}: ${choice.label} (id ${choice.id})`);
    this.pending = { seq: this.latest.seq, id: choice.id, kind: choice.action.kind, maybeLost: false };
    this.intents += 1;
    // seen_seq: what the choice was made on, so that a race lost is not counted as a mistake
    this.call.write({ intent: { action_id: choice.id, seen_seq: this.lastSeq } });
    if (this.opts.dropAfterIntent.includes(this.intents)) this.drop(`after intent ${this.intents}`);
  }

  // Testing only: cut our own stream as a network failure would.
  drop(when) {
    this.log(`testing: cutting the stream ${when}`);
    this.call.dropped = true;
    this.call.cancel();
  }

  summary() {
    const view = this.latest ? this.latest.update.view : null;
    return {
      seat: this.seat,
      table: this.opts.table,
      game_over: this.gameOver,
      interrupted: this.interrupted,
      scores: view ? view.scores : [],
      winners: view ? view.game_winners : [],
      errors: this.errors,
      error_reasons: this.errorReasons,
      refused: this.refusedLog,
      intents: this.intents,
      messages: this.messages,
      last_seq: this.lastSeq,
      gaps: this.gaps,
      reconnects: this.reconnects,
      deals: this.deals, // {fair, checked, problems} once the seed was revealed (fair null: a gap), else null
    };
  }

  done() {
    process.stdout.write(`${JSON.stringify(this.summary())}\n`);
    this.lobby.close();
    this.games.close();
    this.finish();
  }

  fail(text) {
    this.log(text);
    process.stdout.write(`${JSON.stringify(this.summary())}\n`);
    process.exit(1);
  }
}

function backoff(attempt) {
  const base = Math.min(2000, 50 * 2 ** attempt);
  return Math.round(base / 2 + Math.random() * base / 2); // jittered: half to all of it
}

// ------------------------------------------------------------------ the arena

// Enter the server's arena under opts.name (proto/README.md, section 13) and
// play every game it seats us at, one Bot a game, until opts.games are played.
// The name's secret (given by its first entry) is kept in opts.secretFile.
async function runArena(opts, api) {
  const credentials = opts.tlsCa
    ? grpc.credentials.createSsl(fs.readFileSync(opts.tlsCa))
    : grpc.credentials.createInsecure();
  const arena = new api.ArenaService(opts.server, credentials, CHANNEL_OPTIONS);
  const log = (text) => process.stderr.write(`[node-bot arena ${opts.name}] ${text}\n`);
  let played = 0;
  for (let attempt = 0; ; attempt++) {
    let secret = '';
    try { secret = fs.readFileSync(opts.secretFile, 'utf8').trim(); } catch (e) { /* none yet */ }
    // One stay in the arena: resolves 'done', 'ended' (entered elsewhere) or an error.
    const outcome = await new Promise((resolve) => {
      const stream = arena.Enter({ name: opts.name, secret });
      let queue = Promise.resolve();
      let finished = false;
      const end = (what) => { if (!finished) { finished = true; resolve(what); } };
      stream.on('data', (message) => {
        queue = queue.then(async () => {
          if (finished) return;
          if (message.welcome) {
            if (message.welcome.secret) {
              fs.writeFileSync(opts.secretFile, `${message.welcome.secret}\n`, { mode: 0o600 });
            }
            log(`in the arena (${message.welcome.seats} seats, ${message.welcome.rules})`);
            attempt = 0;
            return;
          }
          const seat = message.seat;
          const last = opts.games && played + 1 >= opts.games;
          if (last) {
            // The last game: leave the queue first (closing Enter seats us at no
            // further game, and this one goes on: proto/README.md, section 13).
            leaving = true;
            stream.cancel();
          }
          await new Bot({ ...opts, table: seat.table_id, token: seat.seat_token }, api).run();
          played += 1;
          if (last) end('done');
        });
      });
      let leaving = false;
      stream.on('error', (err) => { if (!leaving) end(err); });
      stream.on('end', () => queue.then(() => end('ended')));
    });
    if (outcome === 'done' || outcome === 'ended') {
      if (outcome === 'ended') log('entered elsewhere: this one stops');
      arena.close();
      return;
    }
    if (outcome.code !== grpc.status.UNAVAILABLE || attempt >= MAX_RETRIES) {
      log(`Enter refused: ${grpc.status[outcome.code]}: ${outcome.details}`);
      process.exit(1);
    }
    await new Promise((r) => setTimeout(r, backoff(attempt)));
  }
}

if (require.main === module) {
  const opts = parseArgs(process.argv.slice(2), process.env);
  const api = loadServices();
  const running = opts.arena ? runArena(opts, api) : new Bot(opts, api).run();
  running.then(() => { process.exitCode = 0; });
}

module.exports = { Bot, choose, parseArgs, runArena };
