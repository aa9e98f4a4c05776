package main

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "unoplay/unoplaypb"
)

// runArena enters the server's arena under opts.name (proto/README.md,
// section 13) and plays every game the arena seats the bot at, one bot a
// game, until opts.games are played (0: never). The name's secret, given by
// its first entry, is kept in opts.secretFile. It returns the exit code: 0
// when the games are played or the name entered from elsewhere took over, 1
// when the arena refused us or could not be reached again.
func runArena(opts *options, stdout, stderr io.Writer) int {
	logf := func(format string, args ...interface{}) {
		fmt.Fprintf(stderr, "[go-bot arena %s] %s\n", opts.name, fmt.Sprintf(format, args...))
	}
	conn, err := dial(opts)
	if err != nil {
		logf("%v", err)
		return 1
	}
	defer conn.Close()
	arena := pb.NewArenaServiceClient(conn)
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	played := 0
	for attempt := 0; ; attempt++ {
		secret := ""
		if data, err := os.ReadFile(opts.secretFile); err == nil {
			secret = strings.TrimSpace(string(data))
		}
		ctx, cancel := context.WithCancel(context.Background())
		stream, err := arena.Enter(ctx, &pb.EnterRequest{Name: opts.name, Secret: secret})
		for err == nil {
			var message *pb.EnterResponse
			message, err = stream.Recv()
			if err == io.EOF {
				cancel()
				logf("entered elsewhere: this one stops")
				return 0
			}
			if err != nil {
				break
			}
			if welcome := message.GetWelcome(); welcome != nil {
				if welcome.GetSecret() != "" {
					if werr := os.WriteFile(opts.secretFile, []byte(welcome.GetSecret()+"\n"), 0o600); werr != nil {
						logf("cannot keep the name's secret in %s: %v", opts.secretFile, werr)
					}
				}
				logf("in the arena (%d seats, %s)", welcome.GetSeats(), welcome.GetRules())
				attempt = 0
				continue
			}
			seat := message.GetSeat()
			game := *opts
			game.table, game.token, game.seat = seat.GetTableId(), seat.GetSeatToken(), int32(seat.GetSeat())
			last := opts.games > 0 && played+1 >= opts.games
			if last {
				// The last game: leave the queue first (closing Enter seats us at
				// no further game, and this one goes on: proto/README.md, section 13).
				cancel()
			}
			if code := newBot(&game, stdout, stderr).run(); code != 0 {
				cancel()
				return code
			}
			played++
			if last {
				return 0
			}
		}
		cancel()
		code := status.Code(err)
		if code != codes.Unavailable || attempt >= maxRetries {
			logf("Enter refused: %s: %s", statusName(code), status.Convert(err).Message())
			return 1
		}
		time.Sleep(backoff(rng, attempt))
	}
}
