package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/store/storetest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// wireRecorder keeps every broadcast of the events it hears as the bus
// would encode it.
type wireRecorder struct {
	mu     sync.Mutex
	frames []wireFrame
	asked  chan string
}

type wireFrame struct {
	event   string
	payload []byte
}

func (w *wireRecorder) NotifyApproval(e ApprovalEvent) {
	w.mu.Lock()
	for _, b := range e.Broadcasts() {
		p, err := json.Marshal(b.Payload)
		if err != nil {
			panic(err)
		}
		w.frames = append(w.frames, wireFrame{b.Event, p})
	}
	w.mu.Unlock()
	if e.Settled == nil {
		w.asked <- e.Request.ID
	}
}

func (w *wireRecorder) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.frames)
}

func (w *wireRecorder) take() []wireFrame {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.frames
	w.frames = nil
	return out
}

var wireTimes = regexp.MustCompile(`"(createdAtMs|expiresAtMs|ts)":[0-9]+`)

// checkApprovalWire compares the frames' bytes, as encoded, with
// testdata/approval_events/<name>-<i>-<event>.json, the id and the times
// replaced by placeholders: key order and escaping are pinned too.
func checkApprovalWire(t *testing.T, name, id string, frames []wireFrame) {
	t.Helper()
	for i, f := range frames {
		got := strings.ReplaceAll(string(f.payload), id, "<id>")
		got = strings.ReplaceAll(got, ShortID(id), "<short>")
		got = wireTimes.ReplaceAllString(got, `"$1":0`)
		path := filepath.Join("testdata", "approval_events", name+"-"+string(rune('0'+i))+"-"+f.event+".json")
		if *update {
			os.MkdirAll(filepath.Dir(path), 0o755)
			if err := os.WriteFile(path, []byte(got+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -update to write it)", err)
		}
		if !bytes.Equal([]byte(got+"\n"), want) {
			t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", path, got, want)
		}
	}
}

// TestApprovalEventsWire pins the approval broadcasts byte for byte:
// OpenClaw's clients (the Control UI, the CLI, the terminal UI) read them.
func TestApprovalEventsWire(t *testing.T) {
	tests := []struct {
		name     string
		req      ApprovalRequest
		decision string // "" lets the request expire
	}{
		{"exec-env-node", ApprovalRequest{Tool: "exec", Reason: "shell needs a person",
			Args: json.RawMessage(`{"command":"curl https://example.org/?a=<b>&c","env":{"API_TOKEN":"s3cret","LANG":"C"},"host":"node","node":"mac-1"}`),
			Who:  Who{AgentID: "main", SessionKey: "agent:main:telegram:direct:4001", RunID: "run-1"}}, DecisionAllowAlways},
		{"plain-no-session", ApprovalRequest{Tool: "DateTimeTool", Args: json.RawMessage(`{"timezone":"UTC"}`)}, DecisionDeny},
		{"expired", ApprovalRequest{Tool: "write", Args: json.RawMessage(`{"path":"a.txt"}`), Who: Who{AgentID: "ops"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := storetest.Open(t, Migrations())
			rec := &wireRecorder{asked: make(chan string, 1)}
			timeout := time.Minute
			if tt.decision == "" {
				timeout = 20 * time.Millisecond
			}
			ap, err := NewApprovals(context.Background(), st.DB, rec, nil, timeout)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan bool, 1)
			go func() {
				ok, _, _ := ap.Approve(context.Background(), tt.req)
				done <- ok
			}()
			id := <-rec.asked
			if tt.decision != "" {
				// Resolve only once the request's events are out.
				for rec.count() < 2 {
					time.Sleep(time.Millisecond)
				}
				if err := ap.Resolve(context.Background(), id, tt.decision); err != nil {
					t.Fatal(err)
				}
			}
			<-done
			frames := rec.take()
			if len(frames) != 4 {
				t.Fatalf("%d frames, want requested and resolved, exec and plugin each: %v", len(frames), frames)
			}
			checkApprovalWire(t, tt.name, id, frames)
		})
	}
}
