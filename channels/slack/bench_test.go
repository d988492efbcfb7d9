package slack

import (
	"context"
	"testing"

	"github.com/openclaw-go/openclaw/channels"
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
