// Command loadclient measures a gateway's WebSocket RPC: the connect
// handshake (socket open to hello-ok) and the latency and throughput of
// one method called sequentially on N concurrent connections.
//
// It speaks the real protocol through gateway/client, as the CLI does:
// client id "cli", mode "cli", role operator, scope operator.read, a
// shared token, protocol 4. It works against our gateway and the real
// OpenClaw gateway alike.
//
// Usage:
//
//	loadclient -url ws://127.0.0.1:18789 -token T -conns 8 -requests 1000 -method health
//
// With -method agent every request is one agent turn, as the CLI's
// `openclaw agent` sends it (scope operator.write, a fresh idempotencyKey,
// agentId main, a session key per connection from -session), and its
// latency runs from sending the request to the second, final response;
// the first, {status:"accepted"}, is reported apart. A run that ends other
// than "ok" counts as a failed request.
//
//	loadclient -method agent -conns 4 -requests 250 -session agent:main:bench -session-turns 10
//
// With -flood N the run happens during a pre-auth flood: N more sockets
// are opened and held idle, never sending connect, each reopened as soon
// as the gateway closes it. The load connections connect first; then the
// flood starts, ramps up (-flood-ramp) and runs on (-flood-settle); then
// the -handshakes fresh
// connects are timed, each retried (every 100 ms) until it gets hello-ok
// or -connect-within passes, its time running from the first attempt;
// then the load runs on the connections already open.
//
//	loadclient -flood 1000 -handshakes 20 -conns 1 -requests 2000 -method health
//
// The result is one JSON object on stdout (or, with -summary, one line of
// key=value pairs for scripts) and one human line on stderr.
// The exit status is 1 when any request or handshake failed.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// config is the parsed command line.
type config struct {
	URL        string
	Token      string
	Method     string
	Params     json.RawMessage // nil: the request has no params
	Conns      int
	Requests   int // per connection
	Warmup     int // unmeasured requests per connection first
	Handshakes int // extra sequential connects measured on their own
	Timeout    time.Duration
	Summary    bool   // print key=value pairs instead of JSON
	JSONFile   string // also write the JSON report here
	Scope      string // the one operator scope asked for at connect

	// Pre-auth flood (flood.go).
	Flood         int           // idle sockets held during the run; 0: none
	FloodRamp     time.Duration // longest wait for the flood to build up
	FloodSettle   time.Duration // then how long it runs before measuring
	ConnectWithin time.Duration // under a flood, how long a fresh connect may retry

	// -method agent only.
	Message      string // text of each turn, numbered
	Session      string // session key prefix: <Session>-<conn>[-<n>]
	SessionTurns int    // turns per session; 0: one session per connection
}

func main() {
	cfg, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadclient:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "loadclient:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string) (config, error) {
	var cfg config
	var params string
	fs := flag.NewFlagSet("loadclient", flag.ContinueOnError)
	fs.StringVar(&cfg.URL, "url", "ws://127.0.0.1:18789", "gateway WebSocket URL")
	fs.StringVar(&cfg.Token, "token", os.Getenv("OPENCLAW_GATEWAY_TOKEN"), "gateway token (default $OPENCLAW_GATEWAY_TOKEN)")
	fs.StringVar(&cfg.Method, "method", "health", "method to call")
	fs.StringVar(&params, "params", "", "request params as JSON (default: none)")
	fs.IntVar(&cfg.Conns, "conns", 1, "concurrent connections")
	fs.IntVar(&cfg.Requests, "requests", 1000, "sequential requests per connection")
	fs.IntVar(&cfg.Warmup, "warmup", 20, "unmeasured requests per connection before the run")
	fs.IntVar(&cfg.Handshakes, "handshakes", 20, "sequential connect handshakes to measure before the run")
	fs.DurationVar(&cfg.Timeout, "timeout", 10*time.Second, "timeout of one handshake or request")
	fs.BoolVar(&cfg.Summary, "summary", false, "print one line of key=value pairs on stdout instead of JSON (for scripts)")
	fs.StringVar(&cfg.JSONFile, "json", "", "also write the JSON report to this file")
	fs.StringVar(&cfg.Scope, "scope", "", "operator scope to ask for (default operator.write for agent, operator.read otherwise)")
	fs.StringVar(&cfg.Message, "message", "hello from the bench", "agent: text of each turn (numbered)")
	fs.StringVar(&cfg.Session, "session", "agent:main:bench", "agent: session key prefix; connection i uses <prefix>-i")
	fs.IntVar(&cfg.SessionTurns, "session-turns", 0, "agent: start a new session (<prefix>-i-n) every this many turns; 0: one per connection")
	fs.IntVar(&cfg.Flood, "flood", 0, "hold this many idle pre-auth sockets open during the run (0: no flood)")
	fs.DurationVar(&cfg.FloodRamp, "flood-ramp", 5*time.Second, "flood: longest wait for the flood to build up before measuring")
	fs.DurationVar(&cfg.FloodSettle, "flood-settle", 0, "flood: how long it runs after building up before measuring (past the gateway's first deadlines, to measure it steady)")
	fs.DurationVar(&cfg.ConnectWithin, "connect-within", 30*time.Second, "flood: how long one fresh connect may keep retrying")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if params != "" {
		if !json.Valid([]byte(params)) {
			return cfg, errors.New("-params is not valid JSON")
		}
		cfg.Params = json.RawMessage(params)
	}
	if cfg.Conns < 1 || cfg.Requests < 1 || cfg.Warmup < 0 || cfg.Handshakes < 0 || cfg.SessionTurns < 0 || cfg.Flood < 0 {
		return cfg, errors.New("-conns and -requests must be at least 1; -warmup, -handshakes, -session-turns and -flood at least 0")
	}
	if cfg.Flood > 100_000 {
		return cfg, errors.New("-flood is at most 100000")
	}
	if cfg.Scope == "" {
		cfg.Scope = "operator.read"
		if cfg.Method == "agent" {
			cfg.Scope = "operator.write"
		}
	}
	if cfg.Method == "agent" && params != "" {
		return cfg, errors.New("-params does not go with -method agent, which builds each turn's params")
	}
	return cfg, nil
}

func run(ctx context.Context, cfg config) error {
	rep, err := measure(ctx, cfg)
	if rep != nil {
		out, merr := json.MarshalIndent(rep, "", "  ")
		if merr != nil {
			return merr
		}
		out = append(out, '\n')
		if cfg.JSONFile != "" {
			if werr := os.WriteFile(cfg.JSONFile, out, 0o644); werr != nil {
				return werr
			}
		}
		if cfg.Summary {
			fmt.Println(rep.summary())
		} else {
			os.Stdout.Write(out)
		}
		fmt.Fprintln(os.Stderr, rep.human())
	}
	if err != nil {
		return err
	}
	if rep.Errors > 0 {
		return fmt.Errorf("%d of %d requests failed; first: %s", rep.Errors, rep.Requests, rep.FirstError)
	}
	if rep.HandshakeFailed > 0 {
		return fmt.Errorf("%d of %d fresh connects did not get through within %s", rep.HandshakeFailed, cfg.Handshakes, cfg.ConnectWithin)
	}
	return nil
}
