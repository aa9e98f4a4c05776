// The arena (proto/README.md, section 13): enter it under a name and play
// every game it seats the bot at.
#pragma once

#include <ostream>

#include "options.h"

namespace unobot {

// Enters the server's arena under opts.name and plays every game the arena
// seats the bot at, one Bot a game, until opts.games are played (0: never).
// The name's secret, given by its first entry, is kept in opts.secret_file
// (written 0600). Returns the exit code: 0 when the games are played or the
// name entered from elsewhere took over, 1 when the arena refused us or could
// not be reached again, or a game ended badly.
int run_arena(const Options& opts, std::ostream& out, std::ostream& err);

}  // namespace unobot
