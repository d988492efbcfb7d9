package telegram_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/telegram"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
)

// steppedAgent streams its pieces one at a time, each only once the test
// let it go on, then answers final.
type steppedAgent struct {
	pieces []string
	next   chan struct{}
	final  string
}

func (a *steppedAgent) Dispatch(ctx context.Context, d channels.Dispatch) (channels.Reply, error) {
	for _, p := range a.pieces {
		d.OnText(p)
		select {
		case <-a.next:
		case <-ctx.Done():
			return channels.Reply{}, ctx.Err()
		}
	}
	return channels.Reply{Text: a.final}, nil
}

// With streaming.mode "partial" over the Bot API the chat ends with one
// message holding the answer: the preview was sent once and edited as it
// grew, then into the answer, never sent again.
func TestPartialPreviewOverTheBotAPI(t *testing.T) {
	const token = "42:preview"
	tg := telegramtest.New(t, token)
	st := storetest.Open(t, channels.Migrations())
	ad := telegram.New(telegram.Options{AccountID: "default", Token: token, APIRoot: tg.URL(), PollTimeout: time.Second})
	agent := &steppedAgent{pieces: []string{"Hel", "Hello wor"}, next: make(chan struct{}), final: "Hello world"}
	net := channels.Network{Name: "telegram", Label: "Telegram", Accounts: func(*config.Config) []channels.AccountSpec {
		return []channels.AccountSpec{{AccountID: "default", Default: true, Enabled: true, Fingerprint: "p",
			Policy: channels.AccountPolicy{DMPolicy: "open", AllowFrom: []string{"*"}, TextLimit: 4000, StreamMode: "partial"},
			New:    func() (channels.Adapter, error) { return ad, nil }}}
	}}
	m := channels.New(&config.Config{}, channels.Options{Store: st, Dispatcher: agent, Networks: []channels.Network{net}, PreviewInterval: -1,
		DefaultAgent: func(*config.Config) string { return "main" }, TypingInterval: time.Hour})
	m.Start(context.Background())
	t.Cleanup(func() { m.Close(context.Background()) })

	tg.AddPrivateText(telegramtest.User{ID: 1001, FirstName: "Ann"}, "hi")
	tg.WaitSent(1, 30*time.Second)
	agent.next <- struct{}{}
	tg.WaitEdits(1, 30*time.Second)
	agent.next <- struct{}{}
	sent := tg.WaitEdits(2, 30*time.Second)
	if len(sent) != 1 || sent[0].Deleted || sent[0].Text != "Hello world" {
		t.Fatalf("chat shows %+v, want the one preview holding the answer", sent)
	}
	var log []string
	for _, e := range tg.Edits() {
		log = append(log, e.Text)
	}
	if want := []string{"Hello wor", "Hello world"}; !slices.Equal(log, want) {
		t.Errorf("edits %q, want %q", log, want)
	}
}
