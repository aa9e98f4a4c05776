#include "arena.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>

#include "bot.h"
#include "unoplay/v1/arena_service.grpc.pb.h"

namespace unobot {
namespace {

// The secret kept in `path`, without surrounding white space ("" when there
// is none yet: the first entry's welcome brings one).
std::string load_secret(const std::string& path) {
  std::ifstream in(path);
  if (!in) return "";
  std::stringstream text;
  text << in.rdbuf();
  std::string secret = text.str();
  const auto first = secret.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  const auto last = secret.find_last_not_of(" \t\r\n");
  return secret.substr(first, last - first + 1);
}

// Keep the name's secret in `path`, readable by its owner alone (0600); the
// reason when it cannot be.
std::string save_secret(const std::string& path, const std::string& secret) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return std::strerror(errno);
  std::string problem;
  if (::fchmod(fd, 0600) != 0) problem = std::strerror(errno);  // it may have existed
  const std::string text = secret + "\n";
  size_t written = 0;
  while (problem.empty() && written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) problem = std::strerror(errno);
    else written += static_cast<size_t>(n);
  }
  if (::close(fd) != 0 && problem.empty()) problem = std::strerror(errno);
  return problem;
}

}  // namespace

int run_arena(const Options& opts, std::ostream& out, std::ostream& err) {
  const auto log = [&](const std::string& text) {
    err << "[cpp-bot arena " << opts.name << "] " << text << std::endl;
  };
  std::string error;
  const auto channel = make_channel(opts, error);
  if (!channel) {
    log(error);
    return 1;
  }
  const auto arena = pb::ArenaService::NewStub(channel);
  std::mt19937 rng{std::random_device{}()};
  int played = 0;
  for (int attempt = 0;; ++attempt) {
    pb::EnterRequest request;
    request.set_name(opts.name);
    request.set_secret(load_secret(opts.secret_file));
    // The Enter stream has a context of its own: cancelling it (to leave the
    // queue) cancels no game stream. No deadline: keepalive instead.
    grpc::ClientContext context;
    auto stream = arena->Enter(&context, request);
    // Close the Enter stream ourselves: leave the queue.
    const auto leave = [&] {
      context.TryCancel();
      pb::EnterResponse rest;
      while (stream->Read(&rest)) {
      }
      stream->Finish();
    };
    pb::EnterResponse message;
    while (stream->Read(&message)) {
      if (message.has_welcome()) {
        const pb::ArenaWelcome& welcome = message.welcome();
        if (!welcome.secret().empty()) {  // a new name: keep this, it is the name
          if (const std::string problem = save_secret(opts.secret_file, welcome.secret());
              !problem.empty()) {
            log("cannot keep the name's secret in " + opts.secret_file + ": " + problem);
          }
        }
        log("in the arena (" + std::to_string(welcome.seats()) + " seats, " + welcome.rules() + ")");
        attempt = 0;
        continue;
      }
      if (!message.has_seat()) continue;  // a body this bot does not know
      const pb::ArenaSeat& seat = message.seat();
      const bool last = opts.games > 0 && played + 1 >= opts.games;
      if (last) {
        // Leave the queue now, before this game is played: the game goes on
        // (and is rated as any other), and the server seats us at no other
        // one (proto/README.md, section 13, "Stopping").
        leave();
      }
      Options game = opts;
      game.arena = false;
      game.table = seat.table_id();
      game.token = seat.seat_token();
      game.seat = static_cast<int>(seat.seat());
      log("game " + std::to_string(played + 1) + ": seat " + std::to_string(seat.seat()) +
          " at table " + seat.table_id());
      const int code = Bot(game, out, err, channel).run();  // from last_seq 0
      if (code != 0 || last) {
        if (!last) leave();  // we stop here
        return code;
      }
      ++played;
    }
    const grpc::Status status = stream->Finish();
    if (status.ok()) {
      log("entered elsewhere: this one stops");
      return 0;
    }
    if (status.error_code() != grpc::StatusCode::UNAVAILABLE || attempt >= kMaxRetries) {
      log("Enter refused: " + describe_status(status));
      return 1;
    }
    std::this_thread::sleep_for(backoff(rng, attempt));
  }
}

}  // namespace unobot
