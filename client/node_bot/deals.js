#!/usr/bin/env node
// Fair deals, checked in JavaScript from the bot author's guide alone
// (proto/README.md, section 11): an implementation independent of the
// server's Python code.
//
// A seat (or spectator) records what it received, and when the game is over
// and the server reveals the seed and salt (TableMessage.deal_revealed), it
//   - recomputes the commitment from the seed, the salt, the table, the seat
//     count and the rules, and compares it with welcome.deal_commitment;
//   - replays the draw and discard piles from the seed and the public events,
//     and checks every card it could see: dealer draws, starters, its own
//     hands and draws, hands shown to it, every card played (it must be in its
//     player's hand as the seed dealt it) and every hand's points at a round's end.
//
// As a module: checkDeals(transcript) -> {fair, checked, problems}.
// As a command: `node deals.js < transcript.json` prints that result as JSON
// and exits 0 (fair) or 1 (not fair). A transcript is
//   {seat, table_id, seats, rules, commitment, reveal: {seed, salt, commitment},
//    events: [Event, ...]}
// with rules and events as @grpc/proto-loader gives them (keepCase, enums as
// strings, longs as numbers).
'use strict';

const crypto = require('crypto');

const DECK_SIZE = 108;
const BLOCK_BYTES = 1024;

// ------------------------------------------------------------------ commitment

// The value of one RuleSet field as the commitment writes it.
function ruleValue(value, enumPrefix) {
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return String(value);
  // An enum: its value's name without the enum's prefix, lower-cased.
  return String(value).slice(enumPrefix.length).toLowerCase();
}

// Enum prefixes: the name of each enum's value 0 without "UNSPECIFIED".
const ENUM_PREFIX = {
  first_player: 'FIRST_PLAYER_', reverse_starter: 'REVERSE_STARTER_',
  wild_starter: 'WILD_STARTER_', initial_direction: 'DIRECTION_',
  wd4_restriction: 'WD4_RESTRICTION_', point_values: 'POINT_VALUES_', scoring: 'SCORING_',
  stacking: 'STACKING_', multi_play: 'MULTI_PLAY_', format: 'GAME_FORMAT_',
};

// Every RuleSet field but preset. (@grpc/proto-loader's `oneofs: true` adds a
// virtual property "_name" for each `optional` field: not a field, left out.)
function rulesLine(rules) {
  return Object.keys(rules).filter((name) => name !== 'preset' && !name.startsWith('_')).sort()
    .map((name) => `${name}=${ruleValue(rules[name], ENUM_PREFIX[name] || '')}`).join(',');
}

function commitment(seed, salt, tableId, seats, rules) {
  const text = `unoplay deal commitment v1\ntable: ${tableId}\nseats: ${seats}\n`
    + `rules: ${rulesLine(rules)}\nsalt: ${salt}\nseed: ${seed}\n`;
  return crypto.createHash('sha256').update(text, 'utf8').digest('hex');
}

// ------------------------------------------------------------------ the chance stream

class DealStream {
  constructor(seed) {
    this.key = crypto.createHash('sha256').update(Buffer.concat([
      Buffer.from('unoplay deal v1\n', 'utf8'), Buffer.from(seed, 'utf8')])).digest();
    this.block = 0;
    this.words = null;
    this.next = 0;
  }

  word() {
    if (this.words === null || this.next === this.words.length) {
      const counter = Buffer.alloc(8);
      counter.writeBigUInt64LE(BigInt(this.block++));
      const bytes = crypto.createHash('shake256', { outputLength: BLOCK_BYTES })
        .update(Buffer.concat([this.key, counter])).digest();
      this.words = [];
      for (let i = 0; i < BLOCK_BYTES; i += 4) this.words.push(bytes.readUInt32LE(i));
      this.next = 0;
    }
    return this.words[this.next++];
  }

  // A number in 0..n-1: floor(w * n / 2^32) (exact in a double).
  below(n) {
    return Math.floor((this.word() * n) / 4294967296);
  }
}

// ------------------------------------------------------------------ the piles

const NUMBER_RANKS = ['RANK_ZERO', 'RANK_ONE', 'RANK_TWO', 'RANK_THREE', 'RANK_FOUR',
  'RANK_FIVE', 'RANK_SIX', 'RANK_SEVEN', 'RANK_EIGHT', 'RANK_NINE'];

// Card ids are colour-major (game.proto, Card): 25 per colour, then 4 Wilds, 4 Wild Draw Fours.
function rankOf(id) {
  if (id >= 104) return 'RANK_WILD_DRAW_FOUR';
  if (id >= 100) return 'RANK_WILD';
  const r = id % 25;
  if (r === 0) return 'RANK_ZERO';
  if (r <= 18) return NUMBER_RANKS[Math.floor((r + 1) / 2)];
  return ['RANK_SKIP', 'RANK_SKIP', 'RANK_REVERSE', 'RANK_REVERSE', 'RANK_DRAW_TWO',
    'RANK_DRAW_TWO'][r - 19];
}

function cardPoints(id, classic) {
  const rank = rankOf(id);
  const n = NUMBER_RANKS.indexOf(rank);
  if (n >= 0) return n;
  if (rank === 'RANK_WILD_DRAW_FOUR') return classic ? 40 : 50;
  if (rank === 'RANK_WILD') return classic ? 20 : 50;
  return classic ? 10 : 20;
}

function checkDeals(t) {
  const problems = [];
  let checked = 0;
  const reveal = t.reveal;
  const expected = commitment(reveal.seed, reveal.salt, t.table_id, t.seats, t.rules);
  if (expected !== reveal.commitment) {
    problems.push('the revealed seed and salt do not give the revealed commitment');
  }
  if (t.commitment && t.commitment !== reveal.commitment) {
    problems.push('the revealed commitment is not the one sent at the start');
  }
  const stream = new DealStream(reveal.seed);
  const classic = String(t.rules.point_values).endsWith('CLASSIC');
  const direction = String(t.rules.initial_direction).endsWith('COUNTER_CLOCKWISE') ? -1 : 1;
  let inPlay = [...Array(t.seats).keys()]; // seats in play, clockwise
  let hands = inPlay.map(() => []);
  let draw = [];
  let unshuffled = 0;
  let discard = [];
  let dealerDeck = [...Array(DECK_SIZE).keys()];
  let round = 0;
  const myDraws = [];
  const shown = {}; // seat -> its hand just after its last Wild Draw Four
  let wd4By = -1; // a Wild Draw Four was just played by this seat

  const take = (k) => {
    const m = draw.length;
    k = Math.min(k, m);
    const low = m - k;
    if (low < unshuffled) {
      for (let i = unshuffled - 1; i >= low; i--) {
        const j = stream.below(i + 1);
        [draw[i], draw[j]] = [draw[j], draw[i]];
      }
      unshuffled = low;
    }
    return draw.splice(low).reverse();
  };
  const same = (what, seen, predicted, asSet) => {
    let a = seen.slice();
    let b = predicted.slice();
    if (asSet) { a.sort((x, y) => x - y); b.sort((x, y) => x - y); }
    checked += a.length;
    if (a.length !== b.length || a.some((c, i) => c !== b[i])) {
      problems.push(`round ${round}: ${what}: seen [${a}], the seed deals [${b}]`);
    }
  };
  const ids = (e) => (e.cards || []).map((c) => c.id);

  for (const e of t.events) {
    const p = e.player;
    switch (e.kind) {
      case 'EVENT_KIND_DEALER_DRAW': {
        if (!dealerDeck.length) dealerDeck = [...Array(DECK_SIZE).keys()];
        const i = stream.below(dealerDeck.length);
        [dealerDeck[i], dealerDeck[dealerDeck.length - 1]] = [dealerDeck[dealerDeck.length - 1], dealerDeck[i]];
        same(`the dealer draw of seat ${p}`, ids(e), [dealerDeck.pop()]);
        break;
      }
      case 'EVENT_KIND_ROUND_STARTED': {
        round = e.value;
        draw = [...Array(DECK_SIZE).keys()];
        unshuffled = DECK_SIZE;
        discard = [];
        const m = inPlay.length;
        const dealt = take(e.count * m);
        const at = inPlay.indexOf(p);
        hands = hands.map(() => []);
        for (let j = 0; j < m; j++) {
          const seat = inPlay[(((at + direction * (1 + j)) % m) + m) % m];
          hands[seat] = dealt.filter((_, k) => k % m === j);
        }
        break;
      }
      case 'EVENT_KIND_HAND_DEALT':
        same(`the hand dealt to seat ${p}`, ids(e), hands[p]);
        break;
      case 'EVENT_KIND_STARTER_FLIPPED':
        same('the starter card', ids(e), take(1));
        discard = ids(e);
        break;
      case 'EVENT_KIND_STARTER_RETURNED':
        draw.push(...ids(e));
        unshuffled = draw.length;
        discard = [];
        break;
      case 'EVENT_KIND_DREW': {
        let got = take(e.count);
        if (got.length < e.count && discard.length > 1) {
          draw = discard.slice(0, -1);
          unshuffled = draw.length;
          discard = discard.slice(-1);
          got = got.concat(take(e.count - got.length));
        }
        if (got.length !== e.count) {
          problems.push(`round ${round}: seat ${p} drew ${e.count} cards, the piles held ${got.length}`);
        }
        hands[p].push(...got);
        if (p === t.seat && got.length) myDraws.push(got);
        break;
      }
      case 'EVENT_KIND_DREW_CARDS':
        same(`the cards drawn by seat ${p}`, ids(e), myDraws.shift() || []);
        break;
      case 'EVENT_KIND_PLAYED': {
        for (const card of ids(e)) {
          const i = hands[p].indexOf(card);
          if (i >= 0) hands[p].splice(i, 1);
          else problems.push(`round ${round}: seat ${p} played card ${card}, which the seed did not give them`);
          checked += 1;
        }
        discard.push(...ids(e));
        // A challenge shows their hand as it is at the next TURN.
        if (ids(e).some((c) => rankOf(c) === 'RANK_WILD_DRAW_FOUR')) wd4By = p;
        break;
      }
      case 'EVENT_KIND_TURN':
        if (wd4By >= 0) {
          shown[wd4By] = hands[wd4By].slice();
          wd4By = -1;
        }
        break;
      case 'EVENT_KIND_HANDS_SWAPPED':
        [hands[p], hands[e.target]] = [hands[e.target], hands[p]];
        break;
      case 'EVENT_KIND_HANDS_ROTATED': {
        const m = inPlay.length;
        const rotated = hands.slice();
        inPlay.forEach((seat, j) => {
          rotated[seat] = hands[inPlay[(((j - e.value) % m) + m) % m]];
        });
        hands = rotated;
        break;
      }
      case 'EVENT_KIND_HAND_RECEIVED':
        same(`the hand seat ${p} received`, ids(e), hands[p], true);
        break;
      case 'EVENT_KIND_HAND_SHOWN':
        same(`the hand seat ${p} showed`, ids(e), shown[p] || [], true);
        break;
      case 'EVENT_KIND_HAND_SCORED': {
        const points = hands[p].reduce((sum, c) => sum + cardPoints(c, classic), 0);
        checked += hands[p].length;
        if (points !== e.value) {
          problems.push(`round ${round}: seat ${p}'s hand scored ${e.value} points, the seed's hand holds ${points}`);
        }
        break;
      }
      case 'EVENT_KIND_PLAYER_OUT':
        inPlay = inPlay.filter((seat) => seat !== p);
        break;
      default:
        break;
    }
  }
  return { fair: problems.length === 0, checked, problems };
}

if (require.main === module) {
  let input = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => { input += chunk; });
  process.stdin.on('end', () => {
    const result = checkDeals(JSON.parse(input));
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.exitCode = result.fair ? 0 : 1;
  });
}

module.exports = { checkDeals, commitment, DealStream };
