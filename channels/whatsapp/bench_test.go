package whatsapp

import (
	"context"
	"testing"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/whatsapp/whatsapptest"
)

// BenchmarkSend measures one formatted reply through the adapter to the
// fake client: target parsing, Markdown conversion, message building and
// the send bookkeeping, not WhatsApp's network.
func BenchmarkSend(b *testing.B) {
	a, fake, _ := connected(b, nil)
	fake.Emit(whatsapptest.DM(ada, "IN1", "how did the build go?"))
	msg := channels.Outbound{
		To:        channels.Target{ChatID: ada.String()},
		Text:      "## Result\n\nThe build **passed**; see [the log](https://ci.example/1).\n\n- 12 tests\n- `go vet` clean",
		ReplyToID: "IN1",
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.Send(ctx, msg); err != nil {
			b.Fatal(err)
		}
	}
}
