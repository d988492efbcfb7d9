package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/gateway/client"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// startWithConfig starts the gateway on a config naming the fake model.
func startWithConfig(t *testing.T, model *fakemodel.Server, extra string) (*running, *client.Client) {
	t.Helper()
	return startWithConfigEnv(t, model, extra, nil, nil)
}

// startWithConfigEnv is startWithConfig with an environment and the
// options adjusted by edit.
func startWithConfigEnv(t *testing.T, model *fakemodel.Server, extra string, env map[string]string, edit func(*Options)) (*running, *client.Client) {
	t.Helper()
	dir := t.TempDir()
	cfg := fmt.Sprintf(`{
  gateway: { mode: "local", auth: { token: "t0k3n-automation" } },
  models: { providers: { fake: { baseUrl: %q, api: "openai-completions", models: [{ id: "echo-1" }] } } },
  agents: { defaults: { model: "fake/echo-1", heartbeat: { every: "30m", target: "none" } } },
  %s
}`, model.URL()+"/v1", extra)
	if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r := startGatewayWith(t, dir, env, edit)
	c, err := r.dial(t, "t0k3n-automation", "operator.admin")
	if err != nil {
		t.Fatal(err)
	}
	return r, c
}

// call makes one RPC and decodes its answer.
func call[T any](t *testing.T, c *client.Client, method string, params any) T {
	t.Helper()
	var out T
	if err := c.Call(context.Background(), method, params, &out); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return out
}

// nextEvent waits for an event of a name matching pred.
func nextEvent(t *testing.T, c *client.Client, name string, pred func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case ev, ok := <-c.Events():
			if !ok {
				t.Fatal("connection closed")
			}
			if ev.Event != name {
				continue
			}
			var p map[string]any
			json.Unmarshal(ev.Payload, &p)
			if pred == nil || pred(p) {
				return p
			}
		case <-deadline:
			t.Fatalf("no %s event", name)
		}
	}
}

func lastUserText(r fakemodel.Recorded) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Text
		}
	}
	return ""
}

func TestHeartbeatTurns(t *testing.T) {
	model := fakemodel.New(t)
	r, c := startWithConfig(t, model, "")
	hbFile := filepath.Join(r.dir, "workspace", "HEARTBEAT.md")
	os.MkdirAll(filepath.Dir(hbFile), 0o700)
	runHeartbeat := func() map[string]any {
		t.Helper()
		res := call[map[string]any](t, c, "cron.run", map[string]any{"id": "heartbeat:main"})
		if res["ran"] != true {
			t.Fatalf("cron.run heartbeat: %v", res)
		}
		return nextEvent(t, c, "cron", func(p map[string]any) bool {
			return p["jobId"] == "heartbeat:main" && p["action"] == "finished"
		})
	}

	// The heartbeat job is the config's, listed with --all only.
	all := call[map[string]any](t, c, "cron.list", map[string]any{"includeDisabled": true})
	if !strings.Contains(fmt.Sprint(all["jobs"]), "heartbeat:main") {
		t.Fatalf("no heartbeat job: %v", all)
	}
	if err := c.Call(context.Background(), "cron.remove", map[string]any{"id": "heartbeat:main"}, nil); err == nil {
		t.Fatal("the heartbeat job was removed over the bus")
	}

	// A HEARTBEAT.md with only headings costs no model call.
	os.WriteFile(hbFile, []byte("# Heartbeat\n\n## Daily\n"), 0o600)
	if ev := runHeartbeat(); ev["status"] != "skipped" || !strings.Contains(fmt.Sprint(ev["summary"]), "no tasks") {
		t.Fatalf("empty file: %v", ev)
	}
	if n := len(model.Requests()); n != 0 {
		t.Fatalf("%d model calls for an empty HEARTBEAT.md", n)
	}

	// With a task: HEARTBEAT_OK is kept quiet.
	os.WriteFile(hbFile, []byte("# Heartbeat\n- check the backups\n"), 0o600)
	model.Script(fakemodel.Reply{Text: "HEARTBEAT_OK"})
	runHeartbeat()
	last := call[map[string]any](t, c, "last-heartbeat", map[string]any{})
	if last["status"] != "ok-token" || last["agentId"] != "main" {
		t.Fatalf("last-heartbeat: %v", last)
	}
	if got := lastUserText(model.Requests()[0]); !strings.Contains(got, "HEARTBEAT.md") {
		t.Fatalf("heartbeat prompt: %q", got)
	}

	// Something to report, but target none: not delivered, and said so.
	model.Script(fakemodel.Reply{Text: "The backups failed last night."})
	runHeartbeat()
	last = call[map[string]any](t, c, "last-heartbeat", map[string]any{})
	if last["status"] != "skipped" || last["reason"] != "target none" || last["preview"] != "The backups failed last night." {
		t.Fatalf("last-heartbeat: %v", last)
	}

	// A wake puts the text in front of the model at once.
	model.Script(fakemodel.Reply{Text: "HEARTBEAT_OK"})
	call[map[string]any](t, c, "wake", map[string]any{"mode": "now", "text": "the nightly build finished"})
	ev := nextEvent(t, c, "heartbeat", func(p map[string]any) bool { return p["trigger"] == "wake" })
	if ev["status"] != "ok-token" {
		t.Fatalf("wake heartbeat: %v", ev)
	}
	reqs := model.Requests()
	if got := lastUserText(reqs[len(reqs)-1]); !strings.Contains(got, "System: [") || !strings.Contains(got, "the nightly build finished") {
		t.Fatalf("woken turn's message: %q", got)
	}

	// next-heartbeat waits for the next turn of the session.
	call[map[string]any](t, c, "wake", map[string]any{"mode": "next-heartbeat", "text": "disk 91% full"})
	model.Script(fakemodel.Reply{Text: "HEARTBEAT_OK"})
	runHeartbeat()
	reqs = model.Requests()
	if got := lastUserText(reqs[len(reqs)-1]); !strings.Contains(got, "disk 91% full") {
		t.Fatalf("queued event missing from the next heartbeat: %q", got)
	}

	// set-heartbeats false: scheduled heartbeats skip, without a model call.
	n := len(model.Requests())
	if res := call[map[string]any](t, c, "set-heartbeats", map[string]any{"enabled": false}); res["enabled"] != false {
		t.Fatalf("set-heartbeats: %v", res)
	}
	if ev := runHeartbeat(); ev["status"] != "skipped" || !strings.Contains(fmt.Sprint(ev["summary"]), "turned off") {
		t.Fatalf("heartbeats off: %v", ev)
	}
	if len(model.Requests()) != n {
		t.Fatal("a heartbeat ran while heartbeats were off")
	}

	// Bad params name the field.
	for _, tc := range []struct {
		method string
		params map[string]any
		want   string
	}{
		{"wake", map[string]any{"mode": "now"}, "text is required"},
		{"wake", map[string]any{"mode": "soon", "text": "x"}, "mode"},
		{"wake", map[string]any{"mode": "now", "text": "x", "agentId": "ghost"}, "unknown agent"},
		{"set-heartbeats", map[string]any{}, "enabled"},
	} {
		err := c.Call(context.Background(), tc.method, tc.params, nil)
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != protocol.CodeInvalidRequest || !strings.Contains(pe.Message, tc.want) {
			t.Errorf("%s %v: %v, want INVALID_REQUEST mentioning %q", tc.method, tc.params, err, tc.want)
		}
	}

	// The health snapshot reports the heartbeat the config sets.
	health := call[map[string]any](t, c, "health", map[string]any{})
	if health["heartbeatSeconds"] != float64(1800) || !strings.Contains(fmt.Sprint(health["agents"]), "everyMs:1.8e+06") {
		t.Fatalf("health heartbeat: %v %v", health["heartbeatSeconds"], health["agents"])
	}
}

// bindChat records a session as a chat's, as the channel pipeline does
// when a message arrives.
func bindChat(t *testing.T, r *running, sessionKey, channel, chatID string) {
	t.Helper()
	db := r.openState(t)
	if _, err := db.Exec(`INSERT INTO channel_session_routes (session_key, channel, account_id, chat_id, chat_kind, thread_id, updated_at)
		VALUES (?, ?, 'default', ?, 'direct', '', ?)`, sessionKey, channel, chatID, time.Now().UnixMilli()); err != nil {
		t.Fatal(err)
	}
}

func invoke(t *testing.T, c *client.Client, sessionKey string, args any) (string, bool) {
	t.Helper()
	res := call[map[string]any](t, c, "tools.invoke", map[string]any{"name": "cron", "sessionKey": sessionKey, "args": args})
	return fmt.Sprint(res["output"]), res["ok"] == true
}

func TestAutomationsToolIsScopedToItsConversation(t *testing.T) {
	model := fakemodel.New(t)
	r, c := startWithConfig(t, model, `agents: { entries: { main: {}, ops: {} }, defaults: { model: "fake/echo-1" } },`)
	_ = r
	job := map[string]any{"name": "report", "schedule": map[string]any{"kind": "every", "everyMs": 3600000},
		"payload": map[string]any{"kind": "agentTurn", "message": "weekly report"}}

	// From the operator's main session: the job is main's, owned by it.
	out, ok := invoke(t, c, "agent:main:main", map[string]any{"action": "add", "job": job})
	if !ok || !strings.Contains(out, "Added job") {
		t.Fatalf("add: %s", out)
	}
	jobs := call[map[string]any](t, c, "cron.list", map[string]any{})["jobs"].([]any)
	mainJob := jobs[0].(map[string]any)
	owner, _ := mainJob["owner"].(map[string]any)
	if mainJob["agentId"] != "main" || owner["sessionKey"] != "agent:main:main" {
		t.Fatalf("owned job: %v", mainJob)
	}
	id := mainJob["id"].(string)

	// Another agent cannot see or touch it.
	if out, _ := invoke(t, c, "agent:ops:main", map[string]any{"action": "list"}); strings.Contains(out, id) {
		t.Fatalf("ops sees main's job: %s", out)
	}
	if out, ok := invoke(t, c, "agent:ops:main", map[string]any{"action": "remove", "id": id}); ok || !strings.Contains(out, "not found") {
		t.Fatalf("ops removed main's job: %s", out)
	}
	if out, ok := invoke(t, c, "agent:ops:main", map[string]any{"action": "add", "job": map[string]any{
		"agentId": "main", "schedule": job["schedule"], "payload": job["payload"]}}); ok {
		t.Fatalf("ops made a job for main: %s", out)
	}

	// A chat conversation of main sees only its own jobs, delivers only to
	// its chat, and its reminders land in its own session.
	chat := "agent:main:telegram:direct:42"
	bindChat(t, r, chat, "telegram", "42")
	if out, _ := invoke(t, c, chat, map[string]any{"action": "list"}); strings.Contains(out, id) {
		t.Fatalf("the chat sees the operator's job: %s", out)
	}
	if out, ok := invoke(t, c, chat, map[string]any{"action": "run", "id": id}); ok {
		t.Fatalf("the chat ran the operator's job: %s", out)
	}
	elsewhere := map[string]any{"name": "spam", "schedule": job["schedule"], "payload": job["payload"],
		"delivery": map[string]any{"mode": "announce", "channel": "telegram", "to": "43"}}
	if out, ok := invoke(t, c, chat, map[string]any{"action": "add", "job": elsewhere}); ok || !strings.Contains(out, "delivers only to it") {
		t.Fatalf("a chat job delivered elsewhere: %s", out)
	}
	reminder := map[string]any{"name": "tea", "schedule": map[string]any{"kind": "at", "at": "10m"},
		"payload": map[string]any{"kind": "systemEvent", "text": "tea is ready"}}
	out, ok = invoke(t, c, chat, map[string]any{"action": "add", "job": reminder})
	if !ok {
		t.Fatalf("chat reminder: %s", out)
	}
	var got map[string]any
	for _, j := range call[map[string]any](t, c, "cron.list", map[string]any{})["jobs"].([]any) {
		if j.(map[string]any)["name"] == "tea" {
			got = j.(map[string]any)
		}
	}
	if got["sessionTarget"] != "current" || got["sessionKey"] != chat {
		t.Fatalf("chat reminder target: %v", got)
	}
	if out, _ := invoke(t, c, chat, map[string]any{"action": "list"}); !strings.Contains(out, "tea") {
		t.Fatalf("the chat does not see its own job: %s", out)
	}
	if out, ok := invoke(t, c, chat, map[string]any{"action": "update", "id": got["id"], "patch": map[string]any{"sessionTarget": "main"}}); ok {
		t.Fatalf("the chat moved its job into the main session: %s", out)
	}
}

func TestScheduledRunKeepsToItsToolsAllow(t *testing.T) {
	model := fakemodel.New(t)
	_, c := startWithConfig(t, model, "")
	job := call[map[string]any](t, c, "cron.add", map[string]any{
		"name": "narrow", "schedule": map[string]any{"kind": "every", "everyMs": 3600000}, "sessionTarget": "isolated",
		"payload": map[string]any{"kind": "agentTurn", "message": "tidy up", "toolsAllow": []string{"DateTimeTool"}},
	})
	model.Script(
		fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: "c1", Name: "exec", Arguments: `{"command":"echo hi"}`}}},
		fakemodel.Reply{Text: "done"},
	)
	call[map[string]any](t, c, "cron.run", map[string]any{"id": job["id"]})
	ev := nextEvent(t, c, "cron", func(p map[string]any) bool { return p["jobId"] == job["id"] && p["action"] == "finished" })
	if ev["status"] != "ok" {
		t.Fatalf("run: %v", ev)
	}
	reqs := model.Requests()
	for _, tool := range reqs[0].Tools {
		if tool.Name == "exec" {
			t.Fatal("the model was shown exec despite toolsAllow")
		}
	}
	var result string
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "tool" {
			result = m.Text
		}
	}
	if !strings.Contains(result, "toolsAllow") && !strings.Contains(result, "not allowed") && !strings.Contains(result, "unknown tool") {
		t.Fatalf("exec in a narrowed run answered %q", result)
	}
	if !strings.Contains(lastUserText(reqs[0]), "[cron:") {
		t.Fatalf("message: %q", lastUserText(reqs[0]))
	}
}
