package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers"
	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/store"
)

// The turn benchmarks measure the gateway's own time per agent turn: from
// Start to the run's end, through persisting the user message, loading
// the transcript, building the prompt, the model call, persisting the
// answer and emitting every agent and chat event. See bench/README.md,
// "Agent turns", for how to run them and what they gave.

// instantModel is an in-memory provider that answers at once with
// "echo: <last user text>", streamed a word at a time, so a turn costs
// only the gateway's own work.
type instantModel struct{ name string }

var _ providers.Provider = instantModel{}

func (m instantModel) Name() string { return m.name }

func (m instantModel) Complete(ctx context.Context, req providers.Request, hooks providers.Hooks) (*providers.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var last string
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == providers.RoleUser {
			last = req.Messages[i].Text
			break
		}
	}
	text := "echo: " + last
	if hooks.OnDelta != nil {
		for _, piece := range strings.SplitAfter(text, " ") {
			hooks.OnDelta(piece)
		}
	}
	return &providers.Response{
		Text: text, StopReason: providers.StopEnd,
		Usage: providers.Usage{InputTokens: int64(len(req.System)/4 + 1), OutputTokens: int64(len(text)/4 + 1)},
	}, nil
}

// discardEmitter drops events, as a gateway with no client connected
// would after building them.
type discardEmitter struct{}

func (discardEmitter) Broadcast(string, any) {}

// jsonEmitter encodes each event once and drops it: what the bus does
// for every event before it looks for connections to send it to.
type jsonEmitter struct{}

func (jsonEmitter) Broadcast(event string, payload any) {
	if _, err := json.Marshal(payload); err != nil {
		panic(fmt.Sprintf("encode %s event: %v", event, err))
	}
}

// newTurnService opens a service over a fresh database whose default
// agent uses the model "fake/echo-1" at baseURL. With baseURL "" the
// provider "fake" is an instantModel, put in the service's provider cache
// under the configured entry so no HTTP is involved.
func newTurnService(tb testing.TB, baseURL string, emit Emitter) (*Service, *sessions.Store) {
	tb.Helper()
	url := baseURL
	if url == "" {
		url = "http://127.0.0.1:9" // never called
	}
	src := fmt.Sprintf(`{models:{providers:{fake:{baseUrl:%q, api:"openai-completions", models:[{id:"echo-1"}]}}},
		agents:{defaults:{model:"fake/echo-1"}}}`, url+"/v1")
	snap, err := config.Parse("openclaw.json", []byte(src), config.LoadOptions{Getenv: func(string) string { return "" }})
	if err != nil {
		tb.Fatalf("config: %v", err)
	}
	db, err := store.Open(context.Background(), filepath.Join(tb.TempDir(), store.FileName), sessions.Migrations())
	if err != nil {
		tb.Fatal(err)
	}
	st := sessions.New(db.DB, nil)
	svc := New(snap.Config, Options{Store: st, Emit: emit, StateDir: tb.TempDir()})
	tb.Cleanup(func() { svc.Close(); db.Close() })
	if baseURL == "" {
		svc.mu.Lock()
		svc.providers["fake"] = providerEntry{cfg: snap.Config.Models.Providers["fake"], p: instantModel{name: "fake"}}
		svc.mu.Unlock()
	}
	return svc, st
}

// turnsPerSession is the length of each benchmark conversation: the
// transcript a turn loads stays short, as in a chat, and new sessions
// keep being created, as on a busy gateway.
const turnsPerSession = 10

// benchTurns runs sequential turns and reports ns/op (the mean) and the
// p50 and p99 of the per-turn times.
func benchTurns(b *testing.B, svc *Service) {
	ctx := context.Background()
	var lat []time.Duration
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		start := time.Now()
		run, _, err := svc.Start(ctx, StartRequest{
			SessionKey: "agent:main:bench-" + strconv.Itoa(i/turnsPerSession),
			Message:    "hello number " + strconv.Itoa(i),
		})
		if err != nil {
			b.Fatal(err)
		}
		<-run.Done()
		lat = append(lat, time.Since(start))
		if r := run.Result(); r.Status != "ok" {
			b.Fatalf("turn %d ended %s: %s", i, r.Status, r.Error)
		}
		i++
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2]), "p50-ns")
	b.ReportMetric(float64(lat[len(lat)*99/100]), "p99-ns")
}

// BenchmarkTurn is the gateway's overhead per turn with a model that
// answers instantly in memory: SQLite writes of the user message and the
// answer, transcript read, prompt, chain, events. The sub-benchmarks
// differ in what happens to events: dropped, or JSON-encoded once as the
// bus does.
func BenchmarkTurn(b *testing.B) {
	b.Run("discard", func(b *testing.B) {
		svc, _ := newTurnService(b, "", discardEmitter{})
		benchTurns(b, svc)
	})
	b.Run("json", func(b *testing.B) {
		svc, _ := newTurnService(b, "", jsonEmitter{})
		benchTurns(b, svc)
	})
}

// BenchmarkTurnHTTP is BenchmarkTurn with the model behind HTTP: the
// OpenAI-compatible client streams the echo from a fake model server on
// loopback (whose own time, in this process, is included).
func BenchmarkTurnHTTP(b *testing.B) {
	model, err := fakemodel.Start("127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(model.Close)
	svc, _ := newTurnService(b, model.URL(), discardEmitter{})
	benchTurns(b, svc)
}
