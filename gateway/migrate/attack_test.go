package migrate

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/openclaw-go/openclaw/gateway/store"
)

// TestMaliciousSource: a source written by an attacker (huge rows, ids
// and names made of path traversal and SQL, a decompression bomb,
// symbolic links out of the workspace) is planned and applied without a
// crash, and nothing is written outside our state directory.
func TestMaliciousSource(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	outside := t.TempDir() // what an escape would reach
	write(t, filepath.Join(outside, "secret.md"), "secret")
	write(t, filepath.Join(dir, "openclaw.json"), `{}`)
	if err := os.MkdirAll(filepath.Join(dir, "workspace"), 0o700); err != nil {
		t.Fatal(err)
	}
	// memory/ leads out of the workspace; MEMORY.md is a link to a secret.
	if err := os.Symlink(outside, filepath.Join(dir, "workspace", "memory")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "workspace", "MEMORY.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "state"), 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, "state", "openclaw.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, sourceSchema)
	huge := strings.Repeat("A", 5<<20)
	sqlish := "default'); DROP TABLE devices; --"
	mustExec(t, db, `INSERT INTO channel_pairing_allow_entries VALUES
		('telegram', ?, '1', 0, 1), ('telegram', 'default', ?, 1, 1), ('telegram', 'default', '../../../etc/passwd', 2, 1),
		('telegram', 'default', 'evil'||char(10)||'line', 3, 1), ('../../x', 'default', '2', 0, 1)`, sqlish, huge)
	mustExec(t, db, `INSERT INTO channel_pairing_requests VALUES ('telegram', 'default', ?, 'ABCD2345', '2099-01-01T00:00:00Z', 'x', ?)`, huge, huge)
	mustExec(t, db, `INSERT INTO plugin_state_entries VALUES ('telegram', 'telegram.update-offsets', '../../../tmp/x', '{"lastUpdateId":-5,"botId":"1"}', 1, NULL),
		('telegram', 'telegram.update-offsets', 'b', ?, 1, NULL)`, `{"lastUpdateId":1,"botId":"`+huge+`"}`)
	mustExec(t, db, `INSERT INTO cron_jobs (store_key, job_id, name, enabled, payload_kind, job_json, updated_at) VALUES
		('s', '../../../etc/cron.d/x', 'x', 1, 'agentTurn', ?, 1), ('s', 'j2', ?, 1, 'agentTurn', 'not json', 1)`,
		`{"id":"x","name":"`+huge+`"}`, sqlish)
	db.Close()

	// An agent database whose session ids and keys are paths, with an
	// event over OpenClaw's own size limit and a zstd bomb.
	for _, agent := range []string{"main", "Bad Agent"} {
		adb := openAgentDB(t, filepath.Join(dir, "agents", agent))
		addSession(t, adb, "agent:main:../../../../etc/passwd", "../../../../tmp/evil", "{}")
		addSession(t, adb, "agent:main:main", "../../../escape", `{"lastChannel":"telegram","lastTo":"`+huge+`"}`)
		addEvent(t, adb, "../../../escape", 0, `{"type":"message","message":{"role":"user","content":"`+huge+`"}}`)
		enc, _ := zstd.NewWriter(nil)
		bomb := enc.EncodeAll(make([]byte, 64<<20), nil)
		mustExec(t, adb, `INSERT INTO transcript_events (session_id, seq, event_zstd, created_at, event_utf8_bytes, navigation_json) VALUES (?, 1, ?, 1, 100, ?)`,
			"../../../escape", bomb, navigation)
		addEvent(t, adb, "../../../escape", 2, `{"type":"message","message":{"role":"user","content":"ok"}}`)
		adb.Close()
	}

	parent := t.TempDir()
	p := Paths{From: dir, StateDir: filepath.Join(parent, "ours"), ConfigPath: filepath.Join(parent, "ours", "openclaw.json")}
	plan, err := MakePlan(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(ctx, plan); err != nil {
		t.Fatal(err)
	}
	again, err := MakePlan(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if again.Pending() {
		t.Fatalf("second plan still imports: %+v", again.Items)
	}
	for _, it := range plan.Items {
		if len(it.Note) > 1000 || strings.Contains(it.Name, "\n") || len(it.Name) > 200 {
			t.Fatalf("a plan line carries the source's junk: %.200q", it.Name+it.Note)
		}
	}
	// Nothing beside our state directory; nothing read through the links.
	if entries, _ := os.ReadDir(parent); len(entries) != 1 {
		t.Fatalf("written beside our state: %v", entries)
	}
	// The workspace copy keeps links as links (our tools refuse links
	// out of a workspace); what must not happen is a copy of their target.
	for _, rel := range []string{"MEMORY.md", "memory"} {
		if st, err := os.Lstat(filepath.Join(p.StateDir, "workspace", rel)); err == nil && st.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("%s: a link out of the workspace was followed and its target copied", rel)
		}
	}
	ours, err := sql.Open("sqlite", filepath.Join(p.StateDir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer ours.Close()
	if got := queryStrings(t, ours, `SELECT sender_id FROM channel_pairing_allow_entries ORDER BY 1`); got != "../../../etc/passwd" {
		// An id is only ever compared with a sender's id, never a path.
		t.Fatalf("approved senders %.200q", got)
	}
	if got := queryStrings(t, ours, `SELECT count(*) FROM channel_pairing_requests`); got != "0" {
		t.Fatalf("a request with a 5 MiB sender id was imported")
	}
	if got := queryStrings(t, ours, `SELECT count(*) FROM devices`); got != "0" {
		t.Fatalf("devices table: %s", got)
	}
	if got := queryStrings(t, ours, `SELECT max(length(content)) FROM transcript_messages`); len(got) > 4 {
		t.Fatalf("a huge or bomb event was imported: longest message %s bytes", got)
	}
	if got := queryStrings(t, ours, `SELECT count(*) FROM cron_jobs`); got != "0" {
		t.Fatalf("a broken cron job was imported")
	}
}
