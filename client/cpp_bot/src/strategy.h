// The bot's one decision: which legal action to send. Edit choose() in
// strategy.cpp to make the bot yours; nothing else needs to change.
#pragma once

#include <vector>

#include "unoplay/v1/game.pb.h"

namespace unobot {

namespace pb = unoplay::v1;

// choose picks one of `legal` (the latest update's actions, less any the
// server refused) for `view`, or returns nullptr to send nothing (wait).
// `wd4_by` is the seat that played the Wild Draw Four we may face, or -1
// when not known.
const pb::LegalAction* choose(const pb::PlayerView& view,
                              const std::vector<const pb::LegalAction*>& legal, int wd4_by);

}  // namespace unobot
