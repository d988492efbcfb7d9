package migrate

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/gateway/store"
)

type actionMap map[string]Action

func (m actionMap) with(o map[string]Action) actionMap {
	for k, v := range o {
		m[k] = v
	}
	return m
}

// stateActions are the plan lines of the state fillState writes.
var stateActions = map[string]Action{
	"memory notes (MEMORY.md, memory/*.md)": ActionImport,
	"DM pairing: approved senders":          ActionImport,
	"DM pairing: pending requests":          ActionImport,
	"DM pairing (matrix)":                   ActionCannot,
	"Telegram update offsets":               ActionImport,
	"cron jobs (with their run history)":    ActionImport,
	"cron jobs OpenClaw declared itself":    ActionSkip,
	"cron job shell":                        ActionCannot,
	"sessions and transcripts":              ActionImport,
	"model auth profiles":                   ActionCannot,
}

const (
	userJobID = "44121bae-88d7-4aa7-aed6-358e5b8c126f"
	// userJob is a job as the real `openclaw cron add` stored it.
	userJob = `{"id":"` + userJobID + `","agentId":"main","name":"daily-news","enabled":true,"createdAtMs":1796187955027,` +
		`"updatedAtMs":1796187955027,"schedule":{"kind":"cron","expr":"0 9 * * *","tz":"Europe/Berlin"},"sessionTarget":"isolated",` +
		`"wakeMode":"now","payload":{"kind":"agentTurn","message":"summarize the news","toolsAllow":["*"]},` +
		`"delivery":{"mode":"announce","channel":"last"},"state":{"nextRunAtMs":1796198400000},` +
		`"scheduledToolPolicy":{"version":1,"mode":"trusted"},"configRevision":"sha256:x"}`
	heartbeatJob = `{"id":"hb","declarationKey":"heartbeat:main","agentId":"main","name":"heartbeat-main","enabled":false,"createdAtMs":1,` +
		`"schedule":{"kind":"every","everyMs":1800000},"sessionTarget":"main","wakeMode":"next-heartbeat","payload":{"kind":"heartbeat"},"state":{}}`
	shellJob = `{"id":"sh","name":"shell","enabled":true,"createdAtMs":1,"schedule":{"kind":"every","everyMs":60000},` +
		`"sessionTarget":"isolated","wakeMode":"now","payload":{"kind":"command","command":"ls"},"state":{}}`
	mainSession = "3b6f2e61-6f0c-4d53-9d0e-2f6b7c1a0001"
	dmSession   = "3b6f2e61-6f0c-4d53-9d0e-2f6b7c1a0002"
	dmKey       = "agent:main:telegram:direct:123456789"
	navigation  = `{"version":1,"report":{"kind":"canonical"},"navigation":{},"reset":{},"model":{},"modelBytes":0,"modelWithoutCheckpointBytes":0,"withoutCustomDataBytes":0}`
)

// fillState writes the state a user has after some weeks: approved DM
// senders and a pending request, a Telegram cursor, a cron job with runs
// beside jobs OpenClaw declared, and an agent database with two sessions.
func fillState(t *testing.T, db *sql.DB, dir string) {
	t.Helper()
	now := time.Now()
	iso := func(d time.Duration) string { return now.Add(-d).UTC().Format(time.RFC3339Nano) }
	mustExec(t, db, `INSERT INTO channel_pairing_allow_entries VALUES
		('telegram', 'default', '123456789', 0, 1000), ('telegram', 'default', 'tg:987', 1, 1000),
		('discord', 'default', 'user:4242', 0, 1000), ('matrix', 'default', '@x:example.org', 0, 1)`)
	mustExec(t, db, `INSERT INTO channel_pairing_requests VALUES
		('telegram', 'default', '555', 'ABCD2345', ?, ?, '{"accountId":"default","username":"bob"}'),
		('slack', 'default', 'U9', 'ZZZZ2222', ?, ?, NULL)`, iso(10*time.Minute), iso(5*time.Minute), iso(3*time.Hour), iso(3*time.Hour))
	mustExec(t, db, `INSERT INTO plugin_state_entries VALUES ('telegram', 'telegram.update-offsets', 'default',
		'{"version":3,"lastUpdateId":777,"botId":"4242","tokenFingerprint":"f"}', 1, NULL)`)
	for _, j := range []struct{ id, decl, kind, body string }{
		{userJobID, "", "agentTurn", userJob}, {"hb", "heartbeat:main", "heartbeat", heartbeatJob},
		{"dream", "memory-core:memory-dreaming-promotion", "agentTurn", strings.Replace(userJob, userJobID, "dream", 1)},
		{"sh", "", "command", shellJob},
	} {
		var decl any
		if j.decl != "" {
			decl = j.decl
		}
		var name struct{ Name string }
		json.Unmarshal([]byte(j.body), &name)
		mustExec(t, db, `INSERT INTO cron_jobs (store_key, job_id, declaration_key, name, enabled, payload_kind, job_json, state_json, updated_at)
			VALUES ('s', ?, ?, ?, 1, ?, ?, '{"nextRunAtMs":1796198400000}', 1)`, j.id, decl, name.Name, j.kind, j.body)
	}
	detail := `{"kind":"cron-run","status":"ok","completionStatus":"succeeded","summary":"the news","runId":"manual:` + userJobID +
		`:1","runAtMs":1796187983331,"durationMs":5735,"model":"echo-1","provider":"fake","usage":{"input_tokens":9,"output_tokens":5,"total_tokens":14},"sessionId":"x"}`
	mustExec(t, db, `INSERT INTO task_runs (task_id, runtime, source_id, owner_key, scope_kind, task, status, delivery_status,
		notify_policy, created_at, ended_at, detail_json) VALUES ('t1', 'cron', ?, '', 'system', 'daily-news', 'succeeded',
		'not_applicable', 'silent', 1796187983331, 1796187989066, ?)`, userJobID, detail)
	mustExec(t, db, `INSERT INTO cron_run_receipts VALUES ('r1', 's', ?, 'c', 'main', 'manual:`+userJobID+`:1', 'ok', 1, 1, 1796187983331, 1796187989066, NULL),
		('r2', 's', ?, 'c', 'main', 'sched:2', 'error', 1, 1, 1796190000000, 1796190001000, 'model down')`, userJobID, userJobID)

	adb := openAgentDB(t, filepath.Join(dir, "agents", "main"))
	defer adb.Close()
	entry := func(extra string) string {
		return `{"sessionId":"x","updatedAt":1796187936708,"sessionStartedAt":1796187894287,"createdAt":1796187894642` + extra + `}`
	}
	addSession(t, adb, "agent:main:main", mainSession, entry(`,"label":"planning","modelOverride":"echo-1","providerOverride":"fake"`))
	addSession(t, adb, dmKey, dmSession, entry(`,"chatType":"direct","lastChannel":"telegram","lastTo":"telegram:123456789","lastAccountId":"default"`))
	events := []string{
		`{"type":"session","version":4,"id":"` + mainSession + `","timestamp":"2026-12-02T05:05:28.079Z"}`,
		`{"type":"model_change","provider":"fake","modelId":"echo-1","id":"m1","parentId":null,"timestamp":"2026-12-02T05:05:28.586Z"}`,
		`{"type":"message","id":"u1","parentId":"m1","timestamp":"2026-12-02T05:05:32.620Z","message":{"role":"user","content":"hello-migrate","timestamp":1796187894840}}`,
		`{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-12-02T05:05:35.634Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"let me look"},{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"AGENTS.md"}}],"provider":"fake","model":"echo-1","usage":{"input":11,"output":3},"stopReason":"toolUse"}}`,
		`{"type":"message","id":"r1","parentId":"a1","timestamp":"2026-12-02T05:05:36.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"be nice"}],"isError":false}}`,
		`{"type":"message","id":"a2","parentId":"r1","timestamp":"2026-12-02T05:05:37.000Z","message":{"role":"assistant","content":[{"type":"text","text":"echo: hello-migrate"}],"provider":"fake","model":"echo-1","usage":{"input":20,"output":4},"stopReason":"stop"}}`,
	}
	for i, e := range events {
		addEvent(t, adb, mainSession, i, e)
	}
	// A long message is stored zstd-compressed, as OpenClaw does past 1 KiB.
	long := `{"type":"message","id":"u2","parentId":"a2","timestamp":"2026-12-02T05:06:00.000Z","message":{"role":"user","content":"` + strings.Repeat("long words ", 300) + `"}}`
	addPacked(t, adb, mainSession, len(events), long)
	addEvent(t, adb, dmSession, 0, `{"type":"message","id":"u1","timestamp":"2026-12-02T05:07:00.000Z","message":{"role":"user","content":"hi from telegram"}}`)
	write(t, filepath.Join(dir, "workspace", "MEMORY.md"), "remember the milk")
}

func openAgentDB(t *testing.T, agentDir string) *sql.DB {
	t.Helper()
	path := filepath.Join(agentDir, "agent", "openclaw-agent.sqlite")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, agentSchema)
	return db
}

func addSession(t *testing.T, db *sql.DB, key, id, entry string) {
	t.Helper()
	mustExec(t, db, `INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at) VALUES (?, ?, ?, 1)`, key, id, entry)
	mustExec(t, db, `INSERT INTO session_windows (session_id, session_key, created_at, updated_at) VALUES (?, ?, 1, 1)`, id, key)
}

func addEvent(t *testing.T, db *sql.DB, id string, seq int, event string) {
	t.Helper()
	mustExec(t, db, `INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_utf8_bytes) VALUES (?, ?, ?, 1796187928079, ?)`,
		id, seq, event, len(event))
}

func addPacked(t *testing.T, db *sql.DB, id string, seq int, event string) {
	t.Helper()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	packed := enc.EncodeAll([]byte(event), nil)
	mustExec(t, db, `INSERT INTO transcript_events (session_id, seq, event_zstd, created_at, event_utf8_bytes, navigation_json) VALUES (?, ?, ?, 1, ?, ?)`,
		id, seq, packed, len(event), navigation)
}

// checkState checks what fillState's state became here.
func checkState(t *testing.T, p Paths, oursKept bool) {
	t.Helper()
	ctx := context.Background()
	db, err := sql.Open("sqlite", filepath.Join(p.StateDir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows := queryStrings(t, db, `SELECT channel || '/' || account_id || '/' || sender_id FROM channel_pairing_allow_entries ORDER BY 1`)
	if want := "discord/default/4242 telegram/default/123456789 telegram/default/987"; rows != want {
		t.Fatalf("approved senders %q, want %q", rows, want)
	}
	if got := queryStrings(t, db, `SELECT channel || '/' || sender_id || '/' || code || '/' || sender_label FROM channel_pairing_requests`); got != "telegram/555/ABCD2345/@bob" {
		t.Fatalf("pending requests %q (the expired one must stay behind)", got)
	}
	if got := queryStrings(t, db, `SELECT account_id || '/' || bot_id || '/' || last_update_id FROM telegram_update_offsets`); got != "default/4242/777" {
		t.Fatalf("telegram offsets %q", got)
	}
	if got := queryStrings(t, db, `SELECT id FROM cron_jobs`); got != userJobID {
		t.Fatalf("cron jobs %q: only the user's job is carried over", got)
	}
	if got := queryStrings(t, db, `SELECT status || ':' || COALESCE(json_extract(entry, '$.summary'), '') FROM cron_runs WHERE job_id = '`+userJobID+`' ORDER BY started_at`); got != "ok:the news error:" {
		t.Fatalf("cron runs %q", got)
	}
	st := sessions.New(db, nil)
	s, err := st.Get(ctx, "agent:main:main")
	if err != nil {
		t.Fatal(err)
	}
	if s.SessionID != mainSession || s.Label != "planning" || s.Model != "fake/echo-1" || s.MessageCount != 5 {
		t.Fatalf("main session %+v", s)
	}
	msgs, err := st.History(ctx, mainSession, sessions.HistoryQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, fmt.Sprintf("%s:%.20s:%d", m.Role, m.Text, len(m.ToolCalls)))
	}
	if want := "user:hello-migrate:0 assistant:let me look:1 tool:be nice:0 assistant:echo: hello-migrate:0 user:long words long word:0"; strings.Join(got, " ") != want {
		t.Fatalf("history %q, want %q", strings.Join(got, " "), want)
	}
	if msgs[1].ToolCalls[0].Name != "read" || !bytes.Contains(msgs[1].ToolCalls[0].Arguments, []byte("AGENTS.md")) || msgs[2].ToolCallID != "c1" {
		t.Fatalf("tool call and result: %+v %+v", msgs[1], msgs[2])
	}
	// A new turn continues the session: the next message takes seq 6.
	if seq, err := st.AppendMessage(ctx, mainSession, sessions.Message{Role: sessions.RoleUser, Text: "again"}); err != nil || seq != 6 {
		t.Fatalf("append after import: seq %d, %v", seq, err)
	}
	if got := queryStrings(t, db, `SELECT channel || '/' || account_id || '/' || chat_id || '/' || chat_kind FROM channel_session_routes WHERE session_key = '`+dmKey+`'`); got != "telegram/default/123456789/direct" {
		t.Fatalf("route of the DM session %q", got)
	}
	mem, _ := os.ReadFile(filepath.Join(p.StateDir, "workspace", "MEMORY.md"))
	if string(mem) != "remember the milk" {
		t.Fatalf("memory notes not carried over: %q", mem)
	}
	if oursKept {
		if b, _ := os.ReadFile(filepath.Join(p.StateDir, "workspace", "mine.md")); string(b) != "mine" {
			t.Fatal("our workspace lost its own file")
		}
	}
}

func queryStrings(t *testing.T, db *sql.DB, q string) string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s sql.NullString
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s.String)
	}
	return strings.Join(out, " ")
}

// TestAgentDirSessions: an agent whose config names its own agentDir
// (the older agents.list shape, a path relative to the folder holding
// the state directory, as published configs write it) has its sessions
// read from there.
func TestAgentDirSessions(t *testing.T) {
	ctx := context.Background()
	from := buildSource(t)
	rel := "work-agent-state"
	dir := filepath.Join(filepath.Dir(from), rel)
	adb := openAgentDB(t, dir)
	addSession(t, adb, "agent:work:main", "11111111-2222-3333-4444-555555555555", `{"sessionId":"x","updatedAt":1796187936708}`)
	addEvent(t, adb, "11111111-2222-3333-4444-555555555555", 0, `{"type":"message","id":"u1","timestamp":"2026-12-02T05:07:00.000Z","message":{"role":"user","content":"hello from a custom agentDir"}}`)
	adb.Close()
	// openAgentDB puts the file under <dir>/agent; agentDir names that folder.
	write(t, filepath.Join(from, "openclaw.json"), `{ gateway: { mode: "local" }, agents: { list: [{ id: "main", default: true }, { id: "work", agentDir: "`+rel+`/agent" }] } }`)
	p := target(t, from)
	plan, err := MakePlan(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(ctx, plan); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(p.StateDir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := queryStrings(t, db, `SELECT key FROM sessions WHERE key = 'agent:work:main'`); got != "agent:work:main" {
		t.Fatalf("the agent's session from its agentDir was not imported: %q", got)
	}
	if got := queryStrings(t, db, `SELECT key FROM sessions WHERE key = 'agent:main:main'`); got != "agent:main:main" {
		t.Fatalf("the default agent's session is gone: %q", got)
	}
}
