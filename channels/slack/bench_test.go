package slack

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/slack/slacktest"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/store"
)

// BenchmarkSend posts formatted replies with buttons through the real
// slack-go client to the fake Web API: Markdown conversion, Block Kit
// encoding, the HTTP round trip and the fake's bookkeeping.
func BenchmarkSend(b *testing.B) {
	fake := newFake(b)
	a := newAdapter(b, fake, nil)
	msg := channels.Outbound{
		To:      channels.Target{ChatID: "C1", ThreadID: "1700000001.000100"},
		Text:    "## Result\n\nThe **build** passed in `3m12s`; see [the log](https://ci.example.com/1).\n\n- lint ok\n- tests ok",
		Buttons: [][]channels.Button{{{Text: "Allow", Data: "approve:1:allow"}, {Text: "Deny", Data: "approve:1:deny"}}},
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.Send(ctx, msg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToMrkdwn converts a typical agent reply.
func BenchmarkToMrkdwn(b *testing.B) {
	md := "## Summary\n\nI checked the **three** services:\n\n1. `api` — healthy\n2. `worker` — _degraded_\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nSee [runbook](https://wiki.example.com/x)."
	b.ReportAllocs()
	for b.Loop() {
		_ = ToMrkdwn(md)
	}
}

// instantAgent answers at once, so the pipeline benchmark measures the
// gateway's own cost.
type instantAgent struct{}

func (instantAgent) Dispatch(ctx context.Context, d channels.Dispatch) (channels.Reply, error) {
	return channels.Reply{Text: "echo " + d.Text}, nil
}

// BenchmarkInboundToOutbound pushes b.N DMs from 50 people through the
// fake Socket Mode socket, the adapter (ack after store), the pipeline and
// back out through chat.postMessage to the fake.
func BenchmarkInboundToOutbound(b *testing.B) {
	fake := newFake(b)
	st, err := store.Open(context.Background(), filepath.Join(b.TempDir(), "bench.sqlite"), channels.Migrations())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	a := newAdapter(b, fake, func(o *Options) { o.PingTimeout = 30 * time.Second })
	net := channels.Network{Name: "slack", Label: "Slack", Accounts: func(*config.Config) []channels.AccountSpec {
		return []channels.AccountSpec{{AccountID: "default", Default: true, Enabled: true, Fingerprint: "b",
			Policy: channels.AccountPolicy{DMPolicy: "open", AllowFrom: []string{"*"}, TextLimit: 4000, ReplyToMode: "off"},
			New:    func() (channels.Adapter, error) { return a, nil }}}
	}}
	m := channels.New(&config.Config{}, channels.Options{Store: st, Dispatcher: instantAgent{}, Networks: []channels.Network{net},
		DefaultAgent: func(*config.Config) string { return "main" }, TypingInterval: time.Hour})
	m.Start(context.Background())
	b.Cleanup(func() { m.Close(context.Background()) })
	fake.WaitConnections(1, 30*time.Second)
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		fake.PushMessage(slacktest.Msg{Channel: "D" + strconv.Itoa(i%50), ChannelType: "im", User: "U" + strconv.Itoa(i%50),
			Text: "hi " + strconv.Itoa(i), TS: fmt.Sprintf("1764500000.%06d", i)})
	}
	fake.WaitMessages(b.N, 5*time.Minute)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msgs/s")
}
