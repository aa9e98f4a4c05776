// Command uno-go-bot is a UNO bot for a unoplay server, in Go.
//
// It is built from the project's .proto files alone (compiled at build time
// by protoc into client/go_bot/build, never committed) and the bot author's
// guide, proto/README.md. It:
//   - takes a seat: the token in UNO_TOKEN / --token, or joins the table
//     UNO_TABLE / --table by name through LobbyService.JoinTable, or, with
//     neither, creates a table with --bots N server-side bots and starts it;
//   - opens GameService.Play, sends join, and answers every PlayerUpdate that
//     offers it legal actions with one of them (a small heuristic, see
//     strategy.go), deciding on the latest update only, by action id;
//   - counts the ActionErrors it receives (and logs them to stderr);
//   - reconnects with backoff when the stream drops, resuming from the last
//     seq it saw and dropping any message it has already seen;
//   - exits 0 when the stream ends after game over, or when the server's stop
//     interrupted the game (deal_revealed without GAME_OVER, or UNAVAILABLE
//     "the server is shutting down": it does not reconnect), printing one line
//     of JSON to stdout: seat, final scores, winners, errors, interrupted.
//
// Usage:
//
//	uno-go-bot [--server HOST:PORT] [--table ID] [--token TOKEN] [--name NAME]
//	           [--tls-ca PEM] [--verbose]
//	           [--bots N] [--bot-kind greedy|random] [--rules PRESET] [--target N]
//	uno-go-bot --arena --name NAME [--games N] [--secret-file FILE] [--server HOST:PORT]
//	(--bots, --bot-kind, --rules and --target only when it creates the table;
//	testing only: --drop-after N[,N...] cuts the stream after the Nth message
//	received, --drop-after-intent N[,N...] right after the Nth intent sent)
//
// Environment (as `uno match --seat client/go_bot/build/uno-go-bot` sets it):
// UNO_SERVER (host:port), UNO_TABLE (table id), UNO_TOKEN (seat token),
// UNO_SEAT; UNOPLAY_TLS_CA (a PEM file: use TLS and trust it, as the Python
// clients do).
//
// Exit codes: 0 game over or interrupted by the server's stop, 1 the server refused us (bad token, unknown
// table, ...) or the stream could not be restored, 2 bad command line.
//
// Build (see `make go-bot`): protoc with protoc-gen-go and protoc-gen-go-grpc
// writes package unoplay/unoplaypb into build/gopath, then `go build` in
// GOPATH mode (GO111MODULE=off) against Debian's /usr/share/gocode.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// options is the command line and environment, parsed.
type options struct {
	server, table, token, name, tlsCA string
	bots                              int
	botKind, rules                    string
	target                            int // -1: the preset's
	verbose                           bool
	dropAfter, dropAfterIntent        map[int]bool // testing only
	arena                             bool         // enter the server's arena (arena.go)
	games                             int          // with --arena: stop after this many games (0: never)
	secretFile                        string       // with --arena: where the name's secret is kept
	seat                              int32        // UNO_SEAT, for the log until we know
}

// errHelp is --help (exit 0); parseArgs's other errors are a bad command
// line (exit 2), already reported on stderr.
var errHelp = errors.New("help")

func parseArgs(args []string, getenv func(string) string, stderr io.Writer) (*options, error) {
	o := &options{seat: -1, target: -1}
	fs := flag.NewFlagSet("uno-go-bot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.server, "server", or(getenv("UNO_SERVER"), "127.0.0.1:50051"), "server `HOST:PORT` (UNO_SERVER)")
	fs.StringVar(&o.table, "table", getenv("UNO_TABLE"), "table `ID` to play at (UNO_TABLE)")
	fs.StringVar(&o.token, "token", getenv("UNO_TOKEN"), "seat `TOKEN` of a seat already taken (UNO_TOKEN)")
	fs.StringVar(&o.name, "name", "go-bot", "display `NAME` when joining a table")
	fs.StringVar(&o.tlsCA, "tls-ca", getenv("UNOPLAY_TLS_CA"), "`PEM` file to trust: connect with TLS (UNOPLAY_TLS_CA)")
	fs.IntVar(&o.bots, "bots", 3, "with no table: server-side bots to play against, 1..9")
	fs.StringVar(&o.botKind, "bot-kind", "greedy", "with no table: the server-side bots' `KIND` (greedy, random)")
	fs.StringVar(&o.rules, "rules", "", "with no table: rules `PRESET` (official, house)")
	fs.IntVar(&o.target, "target", -1, "with no table: target score, 0 for one round, -1 the preset's")
	fs.BoolVar(&o.verbose, "verbose", getenv("UNO_VERBOSE") != "", "log every decision to stderr")
	fs.BoolVar(&o.arena, "arena", false, "enter the server's arena under --name and play every game it seats the bot at")
	fs.IntVar(&o.games, "games", 0, "with --arena: stop after `N` games (0: never)")
	fs.StringVar(&o.secretFile, "secret-file", "", "with --arena: the `FILE` that keeps the name's secret (default NAME.arena-secret)")
	dropAfter := fs.String("drop-after", "", "testing only: cut the stream after the `N[,N...]`th message received")
	dropAfterIntent := fs.String("drop-after-intent", "", "testing only: cut the stream right after the `N[,N...]`th intent sent")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: uno-go-bot [--server HOST:PORT] [--table ID] [--token TOKEN] [--name NAME]\n"+
			"                  [--tls-ca PEM] [--verbose] [--bots N] [--bot-kind KIND] [--rules PRESET] [--target N]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, errHelp
		}
		return nil, err // flag has printed the problem and the usage
	}
	if fs.NArg() > 0 {
		return nil, usageError(stderr, "unexpected argument %q", fs.Arg(0))
	}
	var err error
	if o.dropAfter, err = counts(*dropAfter); err != nil {
		return nil, usageError(stderr, "--drop-after: %v", err)
	}
	if o.dropAfterIntent, err = counts(*dropAfterIntent); err != nil {
		return nil, usageError(stderr, "--drop-after-intent: %v", err)
	}
	if o.token != "" && o.table == "" {
		return nil, usageError(stderr, "a seat token needs its table: --table ID or UNO_TABLE")
	}
	creating := map[string]bool{}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "bots", "bot-kind", "rules", "target":
			creating[f.Name] = true
		}
	})
	if o.table != "" && len(creating) > 0 {
		return nil, usageError(stderr, "--bots, --bot-kind, --rules and --target are only for a new table (no --table)")
	}
	if o.bots < 1 || o.bots > 9 {
		return nil, usageError(stderr, "--bots must be 1..9")
	}
	if o.target > 100000 {
		return nil, usageError(stderr, "--target must be 0..100000")
	}
	if o.arena && (o.table != "" || o.token != "") {
		return nil, usageError(stderr, "--arena seats the bot itself: no --table or --token")
	}
	if o.arena && o.secretFile == "" {
		o.secretFile = o.name + ".arena-secret"
	}
	if s, err := strconv.Atoi(getenv("UNO_SEAT")); err == nil {
		o.seat = int32(s)
	}
	return o, nil
}

func usageError(stderr io.Writer, format string, args ...interface{}) error {
	err := fmt.Errorf(format, args...)
	fmt.Fprintf(stderr, "uno-go-bot: %v\n", err)
	return err
}

// counts parses "N[,N...]" (positive numbers) into a set.
func counts(text string) (map[int]bool, error) {
	set := map[int]bool{}
	if text == "" {
		return set, nil
	}
	for _, part := range strings.Split(text, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive number", part)
		}
		set[n] = true
	}
	return set, nil
}

func or(value, fallback string) string {
	if value != "" {
		return value
	}
	return fallback
}

func main() {
	opts, err := parseArgs(os.Args[1:], os.Getenv, os.Stderr)
	if err == errHelp {
		os.Exit(0)
	}
	if err != nil {
		os.Exit(2)
	}
	if opts.arena {
		os.Exit(runArena(opts, os.Stdout, os.Stderr))
	}
	os.Exit(newBot(opts, os.Stdout, os.Stderr).run())
}
