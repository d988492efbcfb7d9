package channels

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
)

// editingAdapter is memAdapter that can edit and delete, recording both.
type editingAdapter struct {
	*memAdapter
	mu      sync.Mutex
	edits   []Outbound // To, ReplyToID = the message edited, Text
	deleted []string
}

func (a *editingAdapter) Edit(ctx context.Context, to Target, id, text string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.edits = append(a.edits, Outbound{To: to, ReplyToID: id, Text: text})
	return nil
}

func (a *editingAdapter) Delete(ctx context.Context, to Target, id string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.deleted = append(a.deleted, id)
	return nil
}

// streamingAgent writes its answer in pieces and finishes once the chat
// shows the preview.
type streamingAgent struct {
	ad     *editingAdapter
	pieces []string
	final  string
}

func (s *streamingAgent) Dispatch(ctx context.Context, d Dispatch) (Reply, error) {
	if d.OnText != nil {
		for _, p := range s.pieces {
			d.OnText(p)
		}
		deadline := time.After(20 * time.Second)
		for {
			s.ad.memAdapter.mu.Lock()
			n := len(s.ad.memAdapter.sent)
			s.ad.memAdapter.mu.Unlock()
			if n > 0 {
				break
			}
			select {
			case <-deadline:
				return Reply{}, context.DeadlineExceeded
			case <-time.After(time.Millisecond):
			}
		}
	}
	return Reply{Text: s.final}, nil
}

func startStreaming(t *testing.T, mode string, agent *streamingAgent) *harness {
	t.Helper()
	policy := AccountPolicy{DMPolicy: "open", AllowFrom: []string{"*"}, StreamMode: mode, TextLimit: 4000}
	st, err := openTestStore(t, storetest.Place(t))
	if err != nil {
		t.Fatal(err)
	}
	net := Network{Name: "telegram", Label: "Telegram", Accounts: func(*config.Config) []AccountSpec {
		return []AccountSpec{{AccountID: "default", Default: true, Enabled: true, Policy: policy, Fingerprint: "x",
			New: func() (Adapter, error) { return agent.ad, nil }}}
	}}
	m := New(&config.Config{}, Options{Store: st, Dispatcher: agent, Networks: []Network{net}, PreviewInterval: -1,
		DefaultAgent: func(*config.Config) string { return "main" }, TypingInterval: time.Hour})
	m.Start(context.Background())
	h := &harness{m: m, ad: agent.ad.memAdapter, st: st}
	t.Cleanup(h.close)
	return h
}

// With streaming.mode "partial" the reply appears as one message that is
// sent while it is written and then edited into the answer: no second
// copy is sent.
func TestPartialStreamingEditsOneMessage(t *testing.T) {
	ad := &editingAdapter{memAdapter: newMem()}
	agent := &streamingAgent{ad: ad, pieces: []string{"Hel", "Hello wor"}, final: "Hello world"}
	h := startStreaming(t, "partial", agent)
	h.ad.push(t, dmFrom("1", "ann", "hi"))
	h.waitIdle(t)
	h.ad.mu.Lock()
	sent := append([]Outbound(nil), h.ad.sent...)
	h.ad.mu.Unlock()
	ad.mu.Lock()
	defer ad.mu.Unlock()
	if len(sent) != 1 {
		t.Fatalf("sent %d messages, want the one preview: %+v", len(sent), sent)
	}
	if len(ad.edits) == 0 {
		t.Fatal("the preview was never edited into the answer")
	}
	last := ad.edits[len(ad.edits)-1]
	if last.Text != "Hello world" || last.ReplyToID != "1" {
		t.Errorf("last edit %+v, want the answer on message 1", last)
	}
	if len(ad.deleted) != 0 {
		t.Errorf("deleted %v", ad.deleted)
	}
}

// Without "partial" the answer is sent once, whole, and the agent hears
// no partial text.
func TestStreamingOffSendsWhole(t *testing.T) {
	ad := &editingAdapter{memAdapter: newMem()}
	agent := &streamingAgent{ad: ad, pieces: []string{"Hel"}, final: "Hello world"}
	h := startStreaming(t, "off", agent)
	h.ad.push(t, dmFrom("1", "ann", "hi"))
	got := h.ad.waitSent(t, 1)
	if got[0].Text != "Hello world" {
		t.Errorf("sent %+v", got[0])
	}
	ad.mu.Lock()
	defer ad.mu.Unlock()
	if len(ad.edits) != 0 {
		t.Errorf("edited %+v", ad.edits)
	}
}
