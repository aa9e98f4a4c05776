#include "bot.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

#include "strategy.h"

namespace unobot {
namespace {

constexpr auto kUnaryTimeout = std::chrono::seconds(10);  // deadline of each lobby call
constexpr int kMaxReceive = 16 << 20;   // batches of a long resume can be large
// The status message of UNAVAILABLE when the server stops (proto/README.md, section 2).
constexpr const char* kShuttingDown = "the server is shutting down";
// The message when the server stops to start again with its tables: keep
// reconnecting for up to kRestartWait, then resume (proto/README.md, section 6).
constexpr const char* kRestarting = "the server is restarting";
constexpr auto kRestartWait = std::chrono::minutes(2);

// Status codes worth reopening the game stream after; anything else is final.
// RESOURCE_EXHAUSTED: a server limit ended the stream; the seat is unharmed.
bool retryable(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::INTERNAL:
    case grpc::StatusCode::UNKNOWN:
    case grpc::StatusCode::CANCELLED:
    case grpc::StatusCode::DEADLINE_EXCEEDED:
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return true;
    default:
      return false;
  }
}

// The canonical names of gRPC status codes, as the guide writes them.
std::string status_name(grpc::StatusCode code) {
  static const std::array<const char*, 17> names = {
      "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
      "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
      "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
      "UNAUTHENTICATED"};
  const auto i = static_cast<size_t>(code);
  return i < names.size() ? names[i] : "status " + std::to_string(i);
}

std::string describe(const grpc::Status& status) {
  return status_name(status.error_code()) + ": " + status.error_message();
}

// The events that show an intent of each kind was applied (their player is us).
const std::vector<pb::EventKind>* result_events(pb::ActionKind kind) {
  static const std::map<pb::ActionKind, std::vector<pb::EventKind>> events = {
      {pb::ACTION_KIND_PLAY, {pb::EVENT_KIND_PLAYED}},
      {pb::ACTION_KIND_DRAW, {pb::EVENT_KIND_DREW}},
      {pb::ACTION_KIND_KEEP, {pb::EVENT_KIND_KEPT}},
      {pb::ACTION_KIND_CHALLENGE, {pb::EVENT_KIND_CHALLENGED}},
      {pb::ACTION_KIND_ACCEPT, {pb::EVENT_KIND_PENALTY_ACCEPTED}},
      {pb::ACTION_KIND_CALL_UNO, {pb::EVENT_KIND_UNO_CALLED, pb::EVENT_KIND_UNO_FALSE_CALL}},
      {pb::ACTION_KIND_CATCH, {pb::EVENT_KIND_UNO_CAUGHT}},
      {pb::ACTION_KIND_CHOOSE_COLOUR, {pb::EVENT_KIND_COLOUR_CHOSEN}},
  };
  const auto it = events.find(kind);
  return it == events.end() ? nullptr : &it->second;
}

// The stream the bot cut itself (testing only), as a network failure would.
const grpc::Status kDropped(grpc::StatusCode::CANCELLED, "cut for testing");

}  // namespace

Bot::Bot(Options options, std::ostream& out, std::ostream& err,
         std::shared_ptr<grpc::Channel> channel)
    : opts_(std::move(options)), out_(out), err_(err), channel_(std::move(channel)),
      table_(opts_.table), token_(opts_.token), seat_(opts_.seat) {
  summary_.table = table_;
}

void Bot::log(const std::string& text) {
  err_ << "[cpp-bot seat " << seat_ << "] " << text << std::endl;
}

std::string describe_status(const grpc::Status& status) { return describe(status); }

std::shared_ptr<grpc::Channel> make_channel(const Options& opts, std::string& error) {
  // Plain HTTP/2 unless given a CA (or self-signed certificate) to trust for TLS.
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (!opts.tls_ca.empty()) {
    std::ifstream pem(opts.tls_ca);
    if (!pem) {
      error = "cannot use " + opts.tls_ca + " for TLS: cannot read it";
      return nullptr;
    }
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs.assign(std::istreambuf_iterator<char>(pem), {});
    credentials = grpc::SslCredentials(ssl);
  }
  // Keepalive within what the server allows (client pings no more often than
  // every 4 s): ping every 10 s, give up on the connection after 5 s without
  // an answer, also between calls.
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 10000);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 5000);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  args.SetMaxReceiveMessageSize(kMaxReceive);
  return grpc::CreateCustomChannel(opts.server, credentials, args);
}

int Bot::run() {
  if (!channel_) {
    std::string error;
    channel_ = make_channel(opts_, error);
    if (!channel_) return fail(error);
  }
  lobby_ = pb::LobbyService::NewStub(channel_);
  games_ = pb::GameService::NewStub(channel_);
  if (token_.empty()) {
    const bool seated = table_.empty() ? create_table() : join_table();
    if (!seated) return 1;
  }
  return play();
}

// One lobby call with a deadline, retried while the server is not reachable
// (yet); false (after saying why) when it is refused.
bool Bot::unary(const std::string& name, const Call& call) {
  for (int attempt = 0;; ++attempt) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + kUnaryTimeout);
    const grpc::Status status = call(context);
    if (status.ok()) return true;
    if (status.error_code() != grpc::StatusCode::UNAVAILABLE || attempt >= kMaxRetries) {
      fail(name + " refused: " + describe(status));
      return false;
    }
    std::this_thread::sleep_for(backoff(attempt));
  }
}

// Take a seat at the given table by name.
bool Bot::join_table() {
  return unary("JoinTable", [&](grpc::ClientContext& context) {
    pb::JoinTableRequest request;
    request.set_table_id(table_);
    request.set_name(opts_.name);
    pb::JoinTableResponse reply;
    grpc::Status status = lobby_->JoinTable(&context, request, &reply);
    if (status.ok()) {
      token_ = reply.seat_token();
      seat_ = static_cast<int>(reply.seat());
      log("joined table " + table_ + " as " + opts_.name);
    }
    return status;
  });
}

// Make a table for us and --bots server-side bots, take a seat and start the game.
bool Bot::create_table() {
  const bool created = unary("CreateTable", [&](grpc::ClientContext& context) {
    pb::CreateTableRequest request;
    request.set_seats(static_cast<uint32_t>(opts_.bots + 1));
    request.mutable_rules()->set_preset(opts_.rules);
    if (opts_.target >= 0) request.mutable_rules()->set_target_score(static_cast<uint32_t>(opts_.target));
    pb::CreateTableResponse reply;
    grpc::Status status = lobby_->CreateTable(&context, request, &reply);
    if (status.ok()) summary_.table = table_ = reply.table().table_id();
    return status;
  });
  if (!created || !join_table()) return false;
  for (int i = 0; i < opts_.bots; ++i) {
    const bool added = unary("AddBot", [&](grpc::ClientContext& context) {
      pb::AddBotRequest request;
      request.set_table_id(table_);
      request.set_kind(opts_.bot_kind);
      pb::AddBotResponse reply;
      return lobby_->AddBot(&context, request, &reply);
    });
    if (!added) return false;
  }
  return unary("StartGame", [&](grpc::ClientContext& context) {
    pb::StartGameRequest request;
    request.set_table_id(table_);
    request.set_seat_token(token_);
    pb::StartGameResponse reply;
    return lobby_->StartGame(&context, request, &reply);
  });
}

// Open the game stream, and open it again after every drop, until the game
// is over or interrupted (0) or the stream cannot be restored (1).
int Bot::play() {
  for (;;) {
    const grpc::Status status = stream();
    if (status.ok() && game_over_) return done();
    // OK before game over: the stream ended early, the server went away.
    const grpc::StatusCode code = status.ok() ? grpc::StatusCode::UNAVAILABLE : status.error_code();
    const std::string what = status.ok() ? "ended" : status_name(code);
    // deal_revealed without GAME_OVER, or "the server is shutting down": the
    // server's stop interrupted the game, which will never go on
    // (proto/README.md, section 2). Nothing went wrong on our side: do not
    // reconnect to a server that is gone.
    if (!game_over_ && (revealed_ || (code == grpc::StatusCode::UNAVAILABLE &&
                                      status.error_message() == kShuttingDown))) {
      summary_.interrupted = true;
      log("the game was interrupted by the server's stop");
      return done();
    }
    if (!retryable(code)) return fail("stream refused: " + describe(status));
    if (code == grpc::StatusCode::UNAVAILABLE &&
        status.error_message().find(kRestarting) != std::string::npos) {
      restart_until_ = std::chrono::steady_clock::now() + kRestartWait;
      retries_ = 0;
      log("the server is restarting: reconnecting until it is back");
    }
    if (retries_ >= kMaxRetries && std::chrono::steady_clock::now() >= restart_until_) {
      return fail("stream lost " + std::to_string(retries_) + " times in a row; giving up");
    }
    const auto delay = backoff(std::min(retries_, kMaxRetries));
    ++retries_;
    ++summary_.reconnects;
    // An intent in flight may or may not have reached the server. If it did,
    // its event comes in the resumed backlog; if it did not, the backlog's
    // updates (it ends with a fresh one) are decided on again.
    if (pending_) pending_->maybe_lost = true;
    log("stream dropped (" + what + "); resuming after seq " + std::to_string(last_seq_) +
        " in " + std::to_string(delay.count()) + " ms");
    std::this_thread::sleep_for(delay);
  }
}

// One Play stream, to its end: its status (OK when the server ended it so).
grpc::Status Bot::stream() {
  grpc::ClientContext context;  // no deadline: keepalive instead
  auto call = games_->Play(&context);
  // Cut the stream ourselves (testing only): what is left unread is dropped.
  auto cut = [&](const std::string& when) {
    log("testing: cutting the stream " + when);
    context.TryCancel();
    pb::PlayResponse rest;
    while (call->Read(&rest)) {
    }
    call->Finish();
    return kDropped;
  };
  // Join first (within 10 s of opening), resuming after the last seq seen.
  pb::PlayRequest join;
  join.mutable_join()->set_table_id(table_);
  join.mutable_join()->set_seat_token(token_);
  join.mutable_join()->set_last_seq(last_seq_);
  call->Write(join);  // when it fails, the stream has ended and Read/Finish say how

  pb::PlayResponse response;
  while (call->Read(&response)) {
    retries_ = 0;
    // The first response of a stream carries a snapshot: updates of the
    // backlog older than its update_seq are stale, never to be decided on.
    if (response.has_snapshot() && response.snapshot().update_seq() > fresh_from_) {
      fresh_from_ = response.snapshot().update_seq();
    }
    if (on_batch(response.messages())) return cut("after message " + std::to_string(summary_.messages));
    // On the latest update of the batch only: earlier ones are stale.
    const auto id = decide();
    if (!id) continue;
    ++summary_.intents;
    pb::PlayRequest intent;
    intent.mutable_intent()->set_action_id(*id);
    intent.mutable_intent()->set_seen_seq(last_seq_);  // a race lost is then not counted
    call->Write(intent);
    if (opts_.drop_after_intent.count(summary_.intents)) {
      return cut("after intent " + std::to_string(summary_.intents));
    }
  }
  return call->Finish();
}

// Take in one batch of table messages; true when the bot cut the stream in it
// (testing only: the rest of the batch comes again on resume).
bool Bot::on_batch(const google::protobuf::RepeatedPtrField<pb::TableMessage>& batch) {
  for (const auto& m : batch) {
    if (m.seq() <= last_seq_) continue;  // already seen before a reconnect
    if (m.seq() != last_seq_ + 1) {
      ++summary_.gaps;
      deals_.on_gap();  // some of this game's events are lost to us (guide, section 11)
      log("gap in the stream: seq " + std::to_string(last_seq_) + " then " + std::to_string(m.seq()));
    }
    last_seq_ = m.seq();
    ++summary_.messages;
    on_message(m);
    if (opts_.drop_after.count(summary_.messages)) return true;
  }
  return false;
}

void Bot::on_message(const pb::TableMessage& m) {
  deals_.on_message(m);
  switch (m.body_case()) {
    case pb::TableMessage::kWelcome:
      seat_ = m.welcome().seat();
      if (!m.welcome().deal_commitment().empty()) revealed_ = false;  // a game starts
      break;
    case pb::TableMessage::kDealRevealed:
      revealed_ = true;
      if (const auto& check = deals_.result(); check && check->fair == false) {
        std::string problems;
        for (const auto& p : check->problems) problems += (problems.empty() ? "" : "; ") + p;
        log("the deals do not match the seed: " + problems);
      } else if (check && !check->fair.has_value()) {
        log("the deals cannot be checked: the stream lost some of the game's events");
      }
      break;
    case pb::TableMessage::kEvent: {
      const pb::Event& e = m.event();
      mid_change_ = true;  // every change ends with an update: wait for it
      if (e.kind() == pb::EVENT_KIND_PLAYED && e.cards_size() > 0 &&
          e.cards(e.cards_size() - 1).rank() == pb::RANK_WILD_DRAW_FOUR) {
        wd4_by_ = e.player();  // the new top card is the last one laid
      }
      if (e.kind() == pb::EVENT_KIND_GAME_OVER) game_over_ = true;
      // Our intent took effect: its event names us.
      if (pending_ && e.player() == seat_) {
        if (const auto* kinds = result_events(pending_->kind)) {
          for (pb::EventKind kind : *kinds) {
            if (e.kind() == kind) pending_.reset();
          }
        }
      }
      break;
    }
    case pb::TableMessage::kUpdate:
      mid_change_ = false;
      if (!latest_ || m.seq() > latest_->seq()) refused_.clear();
      latest_ = m;
      // Resumed after a drop with an intent in flight: stop waiting for its
      // answer and decide on the latest update of the backlog (which shows
      // the intent's effect if it was applied).
      if (pending_ && pending_->maybe_lost) pending_.reset();
      // An action kind whose answering event this bot does not know: the
      // next update is its answer.
      if (pending_ && !result_events(pending_->kind) && m.seq() > pending_->seq) pending_.reset();
      if (m.update().view().phase() == pb::PHASE_GAME_OVER) game_over_ = true;
      break;
    case pb::TableMessage::kError:
      on_error(m.error());
      break;
    default:
      // seats_changed, or a body this bot does not know: never a decision point.
      break;
  }
}

// A refusal is not an error: decide again on the latest update, without the
// refused action (races for catches and jump-ins are normal).
void Bot::on_error(const pb::ActionError& e) {
  ++summary_.errors;
  ++summary_.error_reasons[e.reason()];
  const bool mine = pending_ && e.action_id() == pending_->id;
  summary_.refused.emplace_back(e.reason(), e.action_id(),
                                mine ? pb::ActionKind_Name(pending_->kind) : "?");
  log("ActionError " + e.reason() + " for action " + std::to_string(e.action_id()) + ": " +
      e.message());
  if (!mine) return;
  if (latest_ && latest_->seq() == pending_->seq) {
    refused_.insert(e.action_id());
    decided_seq_ = 0;
  }
  pending_.reset();
}

// Answer the latest update once, with at most one intent in flight: the id of
// the action chosen, or nothing to wait.
std::optional<uint32_t> Bot::decide() {
  if (pending_ || !latest_ || latest_->seq() == decided_seq_) return std::nullopt;
  // A stale backlog, or a batch cut inside a change: its update comes next.
  if (latest_->seq() < fresh_from_ || mid_change_) return std::nullopt;
  const pb::PlayerUpdate& update = latest_->update();
  decided_seq_ = latest_->seq();
  std::vector<const pb::LegalAction*> legal;
  for (const auto& a : update.legal_actions()) {
    if (!refused_.count(a.id())) legal.push_back(&a);
  }
  if (legal.empty()) return std::nullopt;
  const pb::LegalAction* choice = choose(update.view(), legal, wd4_by_);
  if (choice == nullptr) return std::nullopt;
  if (opts_.verbose) {
    log("seq " + std::to_string(latest_->seq()) + ": " + choice->label() + " (id " +
        std::to_string(choice->id()) + ")");
  }
  pending_ = Intent{latest_->seq(), choice->id(), choice->action().kind(), false};
  return choice->id();
}

std::chrono::milliseconds backoff(std::mt19937& rng, int attempt) {
  const long base = attempt >= 6 ? 2000 : std::min(2000L, 50L << attempt);
  std::uniform_int_distribution<long> jitter(base / 2, base);
  return std::chrono::milliseconds(jitter(rng));
}

std::chrono::milliseconds Bot::backoff(int attempt) { return unobot::backoff(rng_, attempt); }

// Print the summary line; exit code 0.
int Bot::done() {
  summary_.seat = seat_;
  summary_.game_over = game_over_;
  summary_.last_seq = last_seq_;
  summary_.deals = deals_.result();
  if (latest_) {
    const auto& view = latest_->update().view();
    summary_.scores.assign(view.scores().begin(), view.scores().end());
    summary_.winners.assign(view.game_winners().begin(), view.game_winners().end());
  }
  out_ << to_json(summary_) << std::endl;
  return 0;
}

// Say why the bot gives up, print the summary line; exit code 1.
int Bot::fail(const std::string& why) {
  log(why);
  done();
  return 1;
}

}  // namespace unobot
