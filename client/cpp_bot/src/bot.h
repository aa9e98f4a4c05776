// The bot: takes a seat, plays the game stream, resumes after drops.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <random>
#include <set>
#include <string>

#include <grpcpp/grpcpp.h>

#include "deals.h"
#include "options.h"
#include "summary.h"
#include "unoplay/v1/game_service.grpc.pb.h"
#include "unoplay/v1/lobby_service.grpc.pb.h"

namespace unobot {

// The channel to opts.server: plain HTTP/2, or TLS trusting opts.tls_ca; null
// (with the reason in `error`) when the CA cannot be read.
std::shared_ptr<grpc::Channel> make_channel(const Options& opts, std::string& error);

// "CODE: message", the code by its canonical name (as the guide writes it).
std::string describe_status(const grpc::Status& status);

// Consecutive failed (re)connections before giving up.
constexpr int kMaxRetries = 8;

// 50 ms doubling up to 2 s, jittered (half to all of it).
std::chrono::milliseconds backoff(std::mt19937& rng, int attempt);

class Bot {
 public:
  // Without a channel it opens its own (make_channel).
  Bot(Options options, std::ostream& out, std::ostream& err,
      std::shared_ptr<grpc::Channel> channel = nullptr);
  // Plays one game; returns the exit code (0 game over or interrupted by the
  // server's stop, 1 refused or the stream could not be restored).
  int run();

 private:
  // An intent the server has not answered yet.
  struct Intent {
    uint64_t seq = 0;  // the update it was decided on
    uint32_t id = 0;
    pb::ActionKind kind = pb::ACTION_KIND_UNSPECIFIED;
    bool maybe_lost = false;  // the stream dropped after it was sent
  };
  using Call = std::function<grpc::Status(grpc::ClientContext&)>;

  bool unary(const std::string& name, const Call& call);
  bool join_table();
  bool create_table();
  int play();
  grpc::Status stream();
  bool on_batch(const google::protobuf::RepeatedPtrField<pb::TableMessage>& batch);
  void on_message(const pb::TableMessage& m);
  void on_error(const pb::ActionError& e);
  std::optional<uint32_t> decide();
  std::chrono::milliseconds backoff(int attempt);
  void log(const std::string& text);
  int done();
  int fail(const std::string& why);

  Options opts_;
  std::ostream& out_;
  std::ostream& err_;
  std::mt19937 rng_{std::random_device{}()};
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<pb::LobbyService::Stub> lobby_;
  std::unique_ptr<pb::GameService::Stub> games_;

  std::string table_, token_;
  int seat_ = -1;
  uint64_t last_seq_ = 0;                // last seq seen: the resume point
  std::optional<pb::TableMessage> latest_;  // the latest message holding a PlayerUpdate
  uint64_t decided_seq_ = 0;             // seq of the update we last decided on
  uint64_t fresh_from_ = 0;              // no update older than this seq is current (snapshot)
  bool mid_change_ = false;              // events seen whose update has not come yet
  std::set<uint32_t> refused_;           // action ids refused for the latest update
  std::optional<Intent> pending_;
  int wd4_by_ = -1;  // who played the Wild Draw Four we may face
  bool game_over_ = false;
  bool revealed_ = false;  // deal_revealed came: the game's last message
  int retries_ = 0;
  // keep reconnecting until then: the server said it restarts
  std::chrono::steady_clock::time_point restart_until_{};
  DealRecorder deals_;
  Summary summary_;
};

}  // namespace unobot
