package discord

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/discord/discordtest"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/store"
)

// BenchmarkSend sends a formatted reply through the REST client to the
// fake: formatting, discordgo's request path and the fake's handler.
func BenchmarkSend(b *testing.B) {
	fake := discordtest.New(b, testToken)
	a := newAdapter(b, fake, nil)
	msg := channels.Outbound{To: channels.Target{ChatID: "c1"}, ReplyToID: "m1",
		Text: "# Result\n\nThe **answer** is `42`, see [docs](https://a.test).\n\n| a | b |\n|---|---|\n| 1 | 2 |"}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := a.Send(ctx, msg); err != nil {
			b.Fatal(err)
		}
	}
}

// instantAgent answers at once, so the pipeline benchmark measures the
// gateway's own cost.
type instantAgent struct{}

func (instantAgent) Dispatch(ctx context.Context, d channels.Dispatch) (channels.Reply, error) {
	return channels.Reply{Text: "echo " + d.Text}, nil
}

// BenchmarkInboundToOutbound pushes b.N DMs from 50 people through the
// fake Gateway WebSocket, the adapter, the pipeline (SQLite, gate,
// routing, chunking, delivery) and back out through REST to the fake.
func BenchmarkInboundToOutbound(b *testing.B) {
	fake := discordtest.New(b, testToken)
	st, err := store.Open(context.Background(), filepath.Join(b.TempDir(), "bench.sqlite"), channels.Migrations())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	a := newAdapter(b, fake, nil)
	net := channels.Network{Name: "discord", Label: "Discord", Accounts: func(*config.Config) []channels.AccountSpec {
		return []channels.AccountSpec{{AccountID: "default", Default: true, Enabled: true, Fingerprint: "b",
			Policy: channels.AccountPolicy{DMPolicy: "open", AllowFrom: []string{"*"}, TextLimit: 2000, ReplyToMode: "off"},
			New:    func() (channels.Adapter, error) { return a, nil }}}
	}}
	m := channels.New(&config.Config{}, channels.Options{Store: st, Dispatcher: instantAgent{}, Networks: []channels.Network{net},
		DefaultAgent: func(*config.Config) string { return "main" }, TypingInterval: time.Hour})
	m.Start(context.Background())
	b.Cleanup(func() { m.Close(context.Background()) })
	fake.WaitLive(1, 0, 30*time.Second)
	author := func(i int) map[string]any {
		return map[string]any{"id": strconv.Itoa(5000 + i%50), "username": "p", "discriminator": "0"}
	}
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		fake.Dispatch("MESSAGE_CREATE", map[string]any{"id": strconv.Itoa(100000 + i), "channel_id": "dm-" + strconv.Itoa(i%50),
			"content": "hi " + strconv.Itoa(i), "author": author(i), "timestamp": "2026-11-30T12:00:00.000000+00:00",
			"type": 0, "mentions": []any{}, "attachments": []any{}})
	}
	fake.WaitSent(b.N, 5*time.Minute)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msgs/s")
}
