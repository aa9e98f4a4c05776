package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"

	pb "unoplay/unoplaypb"
)

const (
	unaryTimeout = 10 * time.Second // deadline of each lobby call
	maxRetries   = 8                // consecutive failed (re)connections before giving up
	maxReceive   = 16 << 20         // batches of a long resume can be large
	// The status message of UNAVAILABLE when the server stops (proto/README.md, section 2).
	shuttingDown = "the server is shutting down"
	// The message when the server stops to start again with its tables: keep
	// reconnecting for up to restartWait, then resume (proto/README.md, section 6).
	restarting  = "the server is restarting"
	restartWait = 2 * time.Minute
)

// Keepalive within what the server allows (client pings no more often than
// every 4 s; grpc-go itself never pings more often than every 10 s): ping
// every 10 s, give up on the connection after 5 s without an answer.
var keepaliveParams = keepalive.ClientParameters{
	Time:                10 * time.Second,
	Timeout:             5 * time.Second,
	PermitWithoutStream: true,
}

// retryable: status codes worth reopening the game stream after; anything
// else is final. RESOURCE_EXHAUSTED: a server limit ended the stream; the
// seat is unharmed.
var retryable = map[codes.Code]bool{
	codes.Unavailable: true, codes.Internal: true, codes.Unknown: true,
	codes.Canceled: true, codes.DeadlineExceeded: true, codes.ResourceExhausted: true,
}

// resultEvents: the events that show an intent of each kind was applied
// (their player is us).
var resultEvents = map[pb.ActionKind][]pb.EventKind{
	pb.ActionKind_ACTION_KIND_PLAY:      {pb.EventKind_EVENT_KIND_PLAYED},
	pb.ActionKind_ACTION_KIND_DRAW:      {pb.EventKind_EVENT_KIND_DREW},
	pb.ActionKind_ACTION_KIND_KEEP:      {pb.EventKind_EVENT_KIND_KEPT},
	pb.ActionKind_ACTION_KIND_CHALLENGE: {pb.EventKind_EVENT_KIND_CHALLENGED},
	pb.ActionKind_ACTION_KIND_ACCEPT:    {pb.EventKind_EVENT_KIND_PENALTY_ACCEPTED},
	pb.ActionKind_ACTION_KIND_CALL_UNO: {pb.EventKind_EVENT_KIND_UNO_CALLED,
		pb.EventKind_EVENT_KIND_UNO_FALSE_CALL},
	pb.ActionKind_ACTION_KIND_CATCH:         {pb.EventKind_EVENT_KIND_UNO_CAUGHT},
	pb.ActionKind_ACTION_KIND_CHOOSE_COLOUR: {pb.EventKind_EVENT_KIND_COLOUR_CHOSEN},
}

// statusNames: the canonical names of gRPC status codes, as the guide writes them.
var statusNames = []string{"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
	"NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
	"ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"}

func statusName(code codes.Code) string {
	if int(code) < len(statusNames) {
		return statusNames[code]
	}
	return code.String()
}

// errDropped ends a stream that the bot cut itself (testing only), as a
// network failure would.
var errDropped = status.Error(codes.Canceled, "cut for testing")

// intent is one the server has not answered yet.
type intent struct {
	seq       uint64 // the update it was decided on
	id        uint32
	kind      pb.ActionKind
	maybeLost bool // the stream dropped after it was sent
}

// summary is the one line of JSON printed at the end.
type summary struct {
	Seat         int32            `json:"seat"`
	Table        string           `json:"table"`
	GameOver     bool             `json:"game_over"`
	Interrupted  bool             `json:"interrupted"` // the server's stop ended the game unfinished
	Scores       []int32          `json:"scores"`
	Winners      []uint32         `json:"winners"`
	Errors       int              `json:"errors"`
	ErrorReasons map[string]int   `json:"error_reasons"`
	Refused      [][3]interface{} `json:"refused"` // [reason, action id, action kind]
	Intents      int              `json:"intents"`
	Messages     int              `json:"messages"`
	LastSeq      uint64           `json:"last_seq"`
	Gaps         int              `json:"gaps"`
	Reconnects   int              `json:"reconnects"`
}

type bot struct {
	opts           *options
	stdout, stderr io.Writer
	rng            *rand.Rand
	lobby          pb.LobbyServiceClient
	games          pb.GameServiceClient

	table, token string
	seat         int32
	lastSeq      uint64           // last seq seen: the resume point
	latest       *pb.TableMessage // the latest message holding a PlayerUpdate
	decidedSeq   uint64           // seq of the update we last decided on
	freshFrom    uint64           // no update older than this seq is current (from a snapshot)
	midChange    bool             // events seen whose update has not come yet
	refused      map[uint32]bool  // action ids refused for the latest update
	pending      *intent
	wd4By        int32 // who played the Wild Draw Four we may face
	gameOver     bool
	revealed     bool // deal_revealed came: the game's last message
	retries      int
	restartUntil time.Time // keep reconnecting until then: the server said it restarts

	sum summary
}

func newBot(opts *options, stdout, stderr io.Writer) *bot {
	return &bot{
		opts: opts, stdout: stdout, stderr: stderr,
		rng:   rand.New(rand.NewSource(time.Now().UnixNano())),
		table: opts.table, token: opts.token, seat: opts.seat, wd4By: -1,
		refused: map[uint32]bool{},
		sum:     summary{Table: opts.table, ErrorReasons: map[string]int{}, Refused: [][3]interface{}{}},
	}
}

func (b *bot) log(format string, args ...interface{}) {
	fmt.Fprintf(b.stderr, "[go-bot seat %d] %s\n", b.seat, fmt.Sprintf(format, args...))
}

// run plays one game; it returns the exit code.
func (b *bot) run() int {
	conn, err := dial(b.opts)
	if err != nil {
		return b.fail("%v", err)
	}
	defer conn.Close()
	b.lobby = pb.NewLobbyServiceClient(conn)
	b.games = pb.NewGameServiceClient(conn)
	if b.token == "" {
		if b.table == "" {
			err = b.createTable()
		} else {
			err = b.joinTable()
		}
		if err != nil {
			return b.fail("%v", err)
		}
	}
	return b.play()
}

// dial connects to opts.server: plain HTTP/2 unless given a CA (or
// self-signed certificate) to trust for TLS.
func dial(opts *options) (*grpc.ClientConn, error) {
	security := grpc.WithInsecure()
	if opts.tlsCA != "" {
		creds, err := credentials.NewClientTLSFromFile(opts.tlsCA, "")
		if err != nil {
			return nil, fmt.Errorf("cannot use %s for TLS: %v", opts.tlsCA, err)
		}
		security = grpc.WithTransportCredentials(creds)
	}
	conn, err := grpc.Dial(opts.server, security,
		grpc.WithKeepaliveParams(keepaliveParams),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxReceive)))
	if err != nil {
		return nil, fmt.Errorf("cannot connect to %s: %v", opts.server, err)
	}
	return conn, nil
}

// unary makes one lobby call with a deadline, retrying while the server is
// not reachable (yet).
func (b *bot) unary(name string, call func(ctx context.Context) error) error {
	for attempt := 0; ; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), unaryTimeout)
		err := call(ctx)
		cancel()
		if err == nil {
			return nil
		}
		if status.Code(err) != codes.Unavailable || attempt >= maxRetries {
			s := status.Convert(err)
			return fmt.Errorf("%s refused: %s: %s", name, statusName(s.Code()), s.Message())
		}
		time.Sleep(b.backoff(attempt))
	}
}

// joinTable takes a seat at the given table by name.
func (b *bot) joinTable() error {
	return b.unary("JoinTable", func(ctx context.Context) error {
		reply, err := b.lobby.JoinTable(ctx, &pb.JoinTableRequest{TableId: b.table, Name: b.opts.name})
		if err == nil {
			b.token, b.seat = reply.GetSeatToken(), int32(reply.GetSeat())
			b.log("joined table %s as %s", b.table, b.opts.name)
		}
		return err
	})
}

// createTable makes a table for us and --bots server-side bots, takes a seat
// and starts the game.
func (b *bot) createTable() error {
	rules := &pb.RuleSet{Preset: b.opts.rules}
	if b.opts.target >= 0 {
		target := uint32(b.opts.target)
		rules.TargetScore = &target
	}
	err := b.unary("CreateTable", func(ctx context.Context) error {
		reply, err := b.lobby.CreateTable(ctx, &pb.CreateTableRequest{
			Seats: uint32(b.opts.bots + 1), Rules: rules})
		if err == nil {
			b.table = reply.GetTable().GetTableId()
			b.sum.Table = b.table
		}
		return err
	})
	if err != nil {
		return err
	}
	if err := b.joinTable(); err != nil {
		return err
	}
	for i := 0; i < b.opts.bots; i++ {
		err := b.unary("AddBot", func(ctx context.Context) error {
			_, err := b.lobby.AddBot(ctx, &pb.AddBotRequest{TableId: b.table, Kind: b.opts.botKind})
			return err
		})
		if err != nil {
			return err
		}
	}
	return b.unary("StartGame", func(ctx context.Context) error {
		_, err := b.lobby.StartGame(ctx, &pb.StartGameRequest{TableId: b.table, SeatToken: b.token})
		return err
	})
}

// play opens the game stream, and opens it again after every drop, until the
// game is over (0) or the stream cannot be restored (1).
func (b *bot) play() int {
	for {
		err := b.stream()
		if err == nil && b.gameOver {
			b.done()
			return 0
		}
		code, what := codes.Unavailable, "ended" // ended early: the server went away
		if err != nil {
			code = status.Code(err)
			what = statusName(code)
		}
		// deal_revealed without GAME_OVER, or "the server is shutting down":
		// the server's stop interrupted the game, which will never go on
		// (proto/README.md, section 2). Nothing went wrong on our side.
		if !b.gameOver && (b.revealed || (code == codes.Unavailable && status.Convert(err).Message() == shuttingDown)) {
			b.sum.Interrupted = true
			b.log("the game was interrupted by the server's stop")
			b.done()
			return 0
		}
		if !retryable[code] {
			s := status.Convert(err)
			return b.fail("stream refused: %s: %s", statusName(s.Code()), s.Message())
		}
		if code == codes.Unavailable && err != nil && strings.Contains(status.Convert(err).Message(), restarting) {
			b.restartUntil = time.Now().Add(restartWait)
			b.retries = 0
			b.log("the server is restarting: reconnecting until it is back")
		}
		if b.retries >= maxRetries && !time.Now().Before(b.restartUntil) {
			return b.fail("stream lost %d times in a row; giving up", b.retries)
		}
		attempt := b.retries
		if attempt > maxRetries {
			attempt = maxRetries
		}
		delay := b.backoff(attempt)
		b.retries++
		b.sum.Reconnects++
		// An intent in flight may or may not have reached the server. If it
		// did, its event comes in the resumed backlog; if it did not, the
		// backlog's updates (it ends with a fresh one) are decided on again.
		if b.pending != nil {
			b.pending.maybeLost = true
		}
		b.log("stream dropped (%s); resuming after seq %d in %d ms", what, b.lastSeq, delay.Milliseconds())
		time.Sleep(delay)
	}
}

// stream runs one Play stream: nil when the server ended it with OK.
func (b *bot) stream() error {
	ctx, cancel := context.WithCancel(context.Background()) // no deadline: keepalive instead
	defer cancel()
	call, err := b.games.Play(ctx)
	if err != nil {
		return err
	}
	join := &pb.JoinGame{TableId: b.table, SeatToken: b.token, LastSeq: b.lastSeq}
	// io.EOF from Send: the stream has ended, and Recv tells how.
	if err := call.Send(&pb.PlayRequest{Body: &pb.PlayRequest_Join{Join: join}}); err != nil && err != io.EOF {
		return err
	}
	for {
		response, err := call.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		b.retries = 0
		// The first response of a stream carries a snapshot: updates of the
		// backlog older than its update_seq are stale, never to be decided on.
		if s := response.GetSnapshot(); s != nil && s.GetUpdateSeq() > b.freshFrom {
			b.freshFrom = s.GetUpdateSeq()
		}
		if b.onBatch(response.GetMessages()) {
			return errDropped
		}
		id, ok := b.decide() // on the latest update of the batch only: earlier ones are stale
		if !ok {
			continue
		}
		b.sum.Intents++
		// SeenSeq: what the choice was made on, so that a race lost is not counted as a mistake
		request := &pb.PlayRequest{Body: &pb.PlayRequest_Intent{Intent: &pb.Intent{
			Choice: &pb.Intent_ActionId{ActionId: id}, SeenSeq: b.lastSeq}}}
		if err := call.Send(request); err != nil && err != io.EOF {
			return err
		}
		if b.opts.dropAfterIntent[b.sum.Intents] {
			b.log("testing: cutting the stream after intent %d", b.sum.Intents)
			return errDropped
		}
	}
}

// onBatch takes in one batch of table messages; true when the bot cut the
// stream in it (testing only: the rest of the batch comes again on resume).
func (b *bot) onBatch(batch []*pb.TableMessage) bool {
	for _, m := range batch {
		seq := m.GetSeq()
		if seq <= b.lastSeq {
			continue // already seen before a reconnect
		}
		if seq != b.lastSeq+1 {
			b.sum.Gaps++
			b.log("gap in the stream: seq %d then %d", b.lastSeq, seq)
		}
		b.lastSeq = seq
		b.sum.Messages++
		b.onMessage(m)
		if b.opts.dropAfter[b.sum.Messages] {
			b.log("testing: cutting the stream after message %d", b.sum.Messages)
			return true
		}
	}
	return false
}

func (b *bot) onMessage(m *pb.TableMessage) {
	switch body := m.GetBody().(type) {
	case *pb.TableMessage_Welcome:
		b.seat = body.Welcome.GetSeat()
		if body.Welcome.GetDealCommitment() != "" {
			b.revealed = false // a game starts
		}
	case *pb.TableMessage_DealRevealed:
		b.revealed = true
	case *pb.TableMessage_Event:
		e := body.Event
		b.midChange = true // every change ends with an update: wait for it
		cards := e.GetCards()
		if e.GetKind() == pb.EventKind_EVENT_KIND_PLAYED && len(cards) > 0 &&
			cards[len(cards)-1].GetRank() == pb.Rank_RANK_WILD_DRAW_FOUR {
			b.wd4By = e.GetPlayer() // the new top card is the last one laid
		}
		if e.GetKind() == pb.EventKind_EVENT_KIND_GAME_OVER {
			b.gameOver = true
		}
		// Our intent took effect: its event names us.
		if b.pending != nil && e.GetPlayer() == b.seat {
			for _, kind := range resultEvents[b.pending.kind] {
				if e.GetKind() == kind {
					b.pending = nil
					break
				}
			}
		}
	case *pb.TableMessage_Update:
		b.midChange = false
		if b.latest == nil || m.GetSeq() > b.latest.GetSeq() {
			b.refused = map[uint32]bool{}
		}
		b.latest = m
		// Resumed after a drop with an intent in flight: stop waiting for its
		// answer and decide on the latest update of the backlog (which shows
		// the intent's effect if it was applied).
		if b.pending != nil && b.pending.maybeLost {
			b.pending = nil
		}
		// An action kind whose answering event this bot does not know: the
		// next update is its answer.
		if b.pending != nil && resultEvents[b.pending.kind] == nil && m.GetSeq() > b.pending.seq {
			b.pending = nil
		}
		if body.Update.GetView().GetPhase() == pb.Phase_PHASE_GAME_OVER {
			b.gameOver = true
		}
	case *pb.TableMessage_Error:
		e := body.Error
		b.sum.Errors++
		b.sum.ErrorReasons[e.GetReason()]++
		kind := "?"
		mine := b.pending != nil && e.GetActionId() == b.pending.id
		if mine {
			kind = b.pending.kind.String()
		}
		b.sum.Refused = append(b.sum.Refused, [3]interface{}{e.GetReason(), e.GetActionId(), kind})
		b.log("ActionError %s for action %d: %s", e.GetReason(), e.GetActionId(), e.GetMessage())
		if mine {
			// Decide again on the latest update, without the refused action.
			if b.latest != nil && b.latest.GetSeq() == b.pending.seq {
				b.refused[e.GetActionId()] = true
				b.decidedSeq = 0
			}
			b.pending = nil
		}
	default:
		// seats_changed, or a body this bot does not know: never a decision point.
	}
}

// decide answers the latest update once, with at most one intent in flight:
// the id of the action chosen, or false to wait.
func (b *bot) decide() (uint32, bool) {
	if b.pending != nil || b.latest == nil || b.latest.GetSeq() == b.decidedSeq {
		return 0, false
	}
	if b.latest.GetSeq() < b.freshFrom || b.midChange {
		return 0, false // a stale backlog, or a batch cut inside a change: its update comes next
	}
	update := b.latest.GetUpdate()
	b.decidedSeq = b.latest.GetSeq()
	var legal []*pb.LegalAction
	for _, a := range update.GetLegalActions() {
		if !b.refused[a.GetId()] {
			legal = append(legal, a)
		}
	}
	if len(legal) == 0 {
		return 0, false
	}
	choice := choose(update.GetView(), legal, b.wd4By)
	if choice == nil {
		return 0, false
	}
	if b.opts.verbose {
		b.log("seq %d: %s (id %d)", b.latest.GetSeq(), choice.GetLabel(), choice.GetId())
	}
	b.pending = &intent{seq: b.latest.GetSeq(), id: choice.GetId(), kind: choice.GetAction().GetKind()}
	return choice.GetId(), true
}

// backoff is the bot's wait before reconnection attempt number attempt.
func (b *bot) backoff(attempt int) time.Duration {
	return backoff(b.rng, attempt)
}

// backoff is the wait before attempt number attempt (0, 1, ...): 50 ms
// doubling up to 2 s, jittered (half to all of it).
func backoff(rng *rand.Rand, attempt int) time.Duration {
	base := 50 * time.Millisecond << uint(attempt)
	if base > 2*time.Second || base <= 0 {
		base = 2 * time.Second
	}
	return base/2 + time.Duration(rng.Int63n(int64(base/2)+1))
}

func (b *bot) printSummary() {
	s := b.sum
	s.Seat, s.GameOver, s.LastSeq = b.seat, b.gameOver, b.lastSeq
	s.Scores, s.Winners = []int32{}, []uint32{}
	if b.latest != nil {
		view := b.latest.GetUpdate().GetView()
		s.Scores = append(s.Scores, view.GetScores()...)
		s.Winners = append(s.Winners, view.GetGameWinners()...)
	}
	line, _ := json.Marshal(s)
	fmt.Fprintf(b.stdout, "%s\n", line)
}

func (b *bot) done() {
	b.printSummary()
}

// fail reports why the bot gives up and returns exit code 1.
func (b *bot) fail(format string, args ...interface{}) int {
	b.log(format, args...)
	b.printSummary()
	return 1
}
