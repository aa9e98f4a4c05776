#include "summary.h"

#include <cstdio>
#include <sstream>

namespace unobot {
namespace {

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
          out += escaped;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

// Writes one JSON object, field by field.
class Object {
 public:
  Object& field(const std::string& name, const std::string& raw) {
    out_ << (first_ ? "{" : ",") << quoted(name) << ":" << raw;
    first_ = false;
    return *this;
  }
  std::string str() const { return first_ ? "{}" : out_.str() + "}"; }

 private:
  std::ostringstream out_;
  bool first_ = true;
};

std::string boolean(bool value) { return value ? "true" : "false"; }

template <typename T, typename Format>
std::string array(const std::vector<T>& items, Format format) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + format(items[i]);
  return out + "]";
}

template <typename T>
std::string numbers(const std::vector<T>& items) {
  return array(items, [](T n) { return std::to_string(n); });
}

}  // namespace

std::string to_json(const DealCheck& d) {
  return Object()
      .field("fair", d.fair ? boolean(*d.fair) : "null")
      .field("checked", std::to_string(d.checked))
      .field("problems", array(d.problems, quoted))
      .str();
}

std::string to_json(const Summary& s) {
  Object reasons;
  for (const auto& [reason, count] : s.error_reasons) reasons.field(reason, std::to_string(count));
  const std::string refused = array(s.refused, [](const auto& r) {
    const auto& [reason, id, kind] = r;
    return "[" + quoted(reason) + "," + std::to_string(id) + "," + quoted(kind) + "]";
  });
  return Object()
      .field("seat", std::to_string(s.seat))
      .field("table", quoted(s.table))
      .field("game_over", boolean(s.game_over))
      .field("interrupted", boolean(s.interrupted))
      .field("scores", numbers(s.scores))
      .field("winners", numbers(s.winners))
      .field("errors", std::to_string(s.errors))
      .field("error_reasons", reasons.str())
      .field("refused", refused)
      .field("intents", std::to_string(s.intents))
      .field("messages", std::to_string(s.messages))
      .field("last_seq", std::to_string(s.last_seq))
      .field("gaps", std::to_string(s.gaps))
      .field("reconnects", std::to_string(s.reconnects))
      .field("deals", s.deals ? to_json(*s.deals) : "null")
      .str();
}

}  // namespace unobot
