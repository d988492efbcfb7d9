package gateway

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/gateway/client"
)

// cronVolatile are the keys of a cron event or run entry that change from
// run to run (token counts follow the size of the prompt and tools).
var cronVolatile = []string{"runId", "runAtMs", "nextRunAtMs", "lastRunAtMs", "sessionId", "anchorMs", "scheduledAtMs", "jobId", "sessionKey", "lastDurationMs", "input_tokens", "total_tokens"}

// TestWireAutomation pins the answers of the heartbeat methods and the
// events a heartbeat and a cron run send, as clients receive them.
func TestWireAutomation(t *testing.T) {
	model := fakemodel.New(t)
	r, c := startWithConfig(t, model, "")

	// Before any heartbeat ran there is none to report.
	checkWire(t, "last-heartbeat.none", call[any](t, c, "last-heartbeat", map[string]any{}))

	checkWire(t, "set-heartbeats.off", call[any](t, c, "set-heartbeats", map[string]any{"enabled": false}))
	checkWire(t, "set-heartbeats.on", call[any](t, c, "set-heartbeats", map[string]any{"enabled": true}))
	checkWire(t, "system-event", call[any](t, c, "system-event", map[string]any{"text": "disk 91% full"}))
	checkWire(t, "wake.next-heartbeat", call[any](t, c, "wake", map[string]any{"mode": "next-heartbeat", "text": "backup done"}))

	// A wake "now" runs a heartbeat turn at once and reports it.
	model.Script(fakemodel.Reply{Text: "HEARTBEAT_OK"})
	checkWire(t, "wake.now", call[any](t, c, "wake", map[string]any{"mode": "now", "text": "the nightly build finished"}))
	checkWire(t, "event.heartbeat.wake", nextEvent(t, c, "heartbeat", func(p map[string]any) bool { return p["trigger"] == "wake" }))
	checkWire(t, "last-heartbeat.wake", call[any](t, c, "last-heartbeat", map[string]any{}))

	// A scheduled heartbeat with nothing to do is skipped without a turn.
	hbFile := filepath.Join(r.dir, "workspace", "HEARTBEAT.md")
	if err := os.MkdirAll(filepath.Dir(hbFile), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hbFile, []byte("# Heartbeat\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	checkWire(t, "cron.run.heartbeat", call[any](t, c, "cron.run", map[string]any{"id": "heartbeat:main"}), cronVolatile...)
	checkWire(t, "event.cron.heartbeat-skipped", finished(t, c, "heartbeat:main"), cronVolatile...)
	checkWire(t, "last-heartbeat.skipped", call[any](t, c, "last-heartbeat", map[string]any{}))

	// Something to report with target none: skipped, and said why.
	if err := os.WriteFile(hbFile, []byte("# Heartbeat\n- check the backups\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	model.Script(fakemodel.Reply{Text: "The backups failed last night."})
	call[any](t, c, "cron.run", map[string]any{"id": "heartbeat:main"})
	checkWire(t, "event.cron.heartbeat-target-none", finished(t, c, "heartbeat:main"), cronVolatile...)
	checkWire(t, "last-heartbeat.target-none", call[any](t, c, "last-heartbeat", map[string]any{}))

	// An agent turn without delivery, and one whose delivery has no chat.
	every := map[string]any{"kind": "every", "everyMs": 3600000}
	quiet := call[map[string]any](t, c, "cron.add", map[string]any{"name": "quiet", "schedule": every, "sessionTarget": "isolated",
		"payload": map[string]any{"kind": "agentTurn", "message": "tidy up"}})
	model.Script(fakemodel.Reply{Text: "tidied"})
	call[any](t, c, "cron.run", map[string]any{"id": quiet["id"]})
	checkWire(t, "event.cron.agent-turn", finished(t, c, quiet["id"]), cronVolatile...)

	loud := call[map[string]any](t, c, "cron.add", map[string]any{"name": "loud", "schedule": every, "sessionTarget": "isolated",
		"payload":  map[string]any{"kind": "agentTurn", "message": "report"},
		"delivery": map[string]any{"mode": "announce"}})
	model.Script(fakemodel.Reply{Text: "the report"})
	call[any](t, c, "cron.run", map[string]any{"id": loud["id"]})
	checkWire(t, "event.cron.agent-turn-undeliverable", finished(t, c, loud["id"]), cronVolatile...)
	runs := call[any](t, c, "cron.runs", map[string]any{"id": loud["id"]})
	checkWire(t, "cron.runs.agent-turn-undeliverable", runs, cronVolatile...)

	// A system event job with wake "now" queues its text and wakes.
	remind := call[map[string]any](t, c, "cron.add", map[string]any{"name": "tea", "schedule": every, "wakeMode": "now",
		"payload": map[string]any{"kind": "systemEvent", "text": "tea is ready"}})
	model.Script(fakemodel.Reply{Text: "HEARTBEAT_OK"})
	call[any](t, c, "cron.run", map[string]any{"id": remind["id"]})
	checkWire(t, "event.cron.system-event", finished(t, c, remind["id"]), cronVolatile...)

	// Refusals keep their text.
	errs := map[string]string{}
	for name, tc := range map[string]struct {
		method string
		params map[string]any
	}{
		"wake.no-text":             {"wake", map[string]any{"mode": "now"}},
		"wake.blank-text":          {"wake", map[string]any{"mode": "now", "text": "  "}},
		"wake.bad-mode":            {"wake", map[string]any{"mode": "soon", "text": "x"}},
		"wake.no-mode":             {"wake", map[string]any{"text": "x"}},
		"wake.unknown-agent":       {"wake", map[string]any{"mode": "now", "text": "x", "agentId": "ghost"}},
		"wake.bad-params":          {"wake", map[string]any{"text": 5}},
		"system-event.no-text":     {"system-event", map[string]any{}},
		"system-event.ghost-agent": {"system-event", map[string]any{"text": "x", "sessionKey": "agent:ghost:main"}},
		"set-heartbeats.missing":   {"set-heartbeats", map[string]any{}},
		"set-heartbeats.not-bool":  {"set-heartbeats", map[string]any{"enabled": "yes"}},
	} {
		err := c.Call(context.Background(), tc.method, tc.params, nil)
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		errs[name] = err.Error()
	}
	checkWire(t, "automation.errors", errs)
}

// finished waits for the cron event that ends a run of job id.
func finished(t *testing.T, c *client.Client, id any) map[string]any {
	t.Helper()
	return nextEvent(t, c, "cron", func(p map[string]any) bool { return p["jobId"] == id && p["action"] == "finished" })
}
