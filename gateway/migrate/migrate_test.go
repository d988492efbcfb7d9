package migrate

import (
	"context"
	"crypto/sha256"
	"database/sql"
	_ "embed"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/store"
)

// The schemas OpenClaw 2026.9.6 creates, read from a real install.
//
//go:embed testdata/openclaw-state.sql
var sourceSchema string

//go:embed testdata/openclaw-agent.sql
var agentSchema string

const (
	cliDevice  = "cli-device-id"
	cliToken   = "cli-token-plaintext"
	nodeDevice = "node-device-id"
	nodeToken  = "node-token-plaintext"
	approvals  = `{"version":1,"defaults":{"security":"allowlist","ask":"on-miss"},"agents":{"main":{"allowlist":[{"pattern":"/bin/ls"}]}}}`
)

// buildSource writes an OpenClaw state directory: config, database with
// an operator device, a paired node, exec approvals, one user cron job
// and one declared, a workspace and a WhatsApp link.
func buildSource(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "openclaw.json"), `{ gateway: { mode: "local" } }`)
	write(t, filepath.Join(dir, "workspace", "AGENTS.md"), "be nice")
	write(t, filepath.Join(dir, "workspace", "memory", "2026-09-01.md"), "notes")
	if err := os.Symlink("AGENTS.md", filepath.Join(dir, "workspace", "link.md")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "workspace-work", "AGENTS.md"), "work")
	write(t, filepath.Join(dir, "credentials", "whatsapp", "default", "creds.json"), "{}")
	if err := os.MkdirAll(filepath.Join(dir, "state"), 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, "state", "openclaw.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustExec(t, db, sourceSchema)
	mustExec(t, db, `INSERT INTO device_pairing_paired (device_id, public_key, display_name, platform, client_id, client_mode,
		role, roles_json, scopes_json, approved_scopes_json, tokens_json, created_at_ms, approved_at_ms) VALUES
		(?, 'pk-cli', 'laptop', 'linux', 'cli', 'cli', 'operator', '["operator"]', '["operator.admin","operator.read","operator.write"]',
		 '["operator.read"]', ?, 1000, 2000)`, cliDevice,
		`{"operator":{"token":"`+cliToken+`","role":"operator","scopes":["operator.read"],"createdAtMs":2000}}`)
	mustExec(t, db, `INSERT INTO device_pairing_paired (device_id, public_key, display_name, platform, client_id, client_mode,
		role, roles_json, scopes_json, approved_scopes_json, tokens_json, node_surface_json, created_at_ms, approved_at_ms) VALUES
		(?, 'pk-node', 'box', 'linux', 'node-host', 'node', 'node', '["node"]', '[]', '[]', ?, ?, 3000, 3000)`, nodeDevice,
		`{"node":{"token":"`+nodeToken+`","role":"node","scopes":[],"createdAtMs":3000}}`,
		`{"displayName":"box","version":"2026.9.6","caps":["system"],"commands":["system.run","system.which"],"createdAtMs":3100,"approvedAtMs":3200}`)
	mustExec(t, db, `INSERT INTO exec_approvals_config VALUES ('current', ?, NULL, 0, 'allowlist', 'on-miss', NULL, NULL, 1, 1, 1)`, approvals)
	fillState(t, db, dir)
	return dir
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func mustExec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func target(t *testing.T, from string) Paths {
	state := filepath.Join(t.TempDir(), "ours")
	return Paths{From: from, StateDir: state, ConfigPath: filepath.Join(state, "openclaw.json")}
}

// actions maps item name to action (items split in two keep the import).
func actions(p *Plan) map[string]Action {
	out := map[string]Action{}
	for _, it := range p.Items {
		if _, seen := out[it.Name]; !seen || it.Action == ActionImport {
			out[it.Name] = it.Action
		}
	}
	return out
}

func TestPlanAndApply(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		setup func(t *testing.T, p Paths) // our state before the run
		want  actionMap
	}{
		{
			name:  "fresh state imports everything it can",
			setup: func(*testing.T, Paths) {},
			want: actionMap{
				"config file": ActionImport, "paired devices (with their tokens)": ActionImport,
				"node pairings (approved commands)": ActionImport, "exec approvals": ActionImport,
				"agent workspaces (copied)": ActionImport, "WhatsApp links": ActionCannot,
			}.with(stateActions),
		},
		{
			name: "our config and approvals are kept",
			setup: func(t *testing.T, p Paths) {
				write(t, p.ConfigPath, `{ gateway: { port: 1 } }`)
				write(t, filepath.Join(p.StateDir, "exec-approvals.json"), `{"version":1}`)
				write(t, filepath.Join(p.StateDir, "workspace", "mine.md"), "mine")
			},
			want: actionMap{
				"config file": ActionSkip, "paired devices (with their tokens)": ActionImport,
				"node pairings (approved commands)": ActionImport, "exec approvals": ActionSkip,
				"agent workspaces (copied)": ActionImport, "WhatsApp links": ActionCannot,
			}.with(stateActions),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from := buildSource(t)
			before := snapshotDir(t, from)
			p := target(t, from)
			tt.setup(t, p)
			keptConfig, _ := os.ReadFile(p.ConfigPath)

			plan, err := MakePlan(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if got := actions(plan); !sameActions(got, tt.want) {
				t.Fatalf("plan actions %v, want %v", got, tt.want)
			}
			if fileExists(filepath.Join(p.StateDir, store.FileName)) {
				t.Fatal("planning created our database")
			}
			if err := Apply(ctx, plan); err != nil {
				t.Fatal(err)
			}
			checkImported(t, p, keptConfig)
			checkState(t, p, keptConfig != nil)

			// Idempotent: a second plan has nothing to do.
			again, err := MakePlan(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if again.Pending() {
				t.Fatalf("second plan still imports: %+v", again.Items)
			}
			if err := Apply(ctx, again); err != nil {
				t.Fatal(err)
			}
			if after := snapshotDir(t, from); !equalMaps(before, after) {
				t.Fatal("the source directory changed")
			}
		})
	}
}

func checkImported(t *testing.T, p Paths, keptConfig []byte) {
	t.Helper()
	cfg, _ := os.ReadFile(p.ConfigPath)
	if keptConfig != nil && string(cfg) != string(keptConfig) {
		t.Fatalf("our config was overwritten: %s", cfg)
	}
	if keptConfig == nil && string(cfg) != `{ gateway: { mode: "local" } }` {
		t.Fatalf("config not copied: %q", cfg)
	}
	db, err := sql.Open("sqlite", filepath.Join(p.StateDir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tc := range []struct{ device, role, token string }{{cliDevice, "operator", cliToken}, {nodeDevice, "node", nodeToken}} {
		var hash string
		if err := db.QueryRow(`SELECT token_hash FROM device_tokens WHERE device_id=? AND role=?`, tc.device, tc.role).Scan(&hash); err != nil {
			t.Fatalf("token of %s: %v", tc.device, err)
		}
		sum := sha256.Sum256([]byte(tc.token))
		if hash != hex.EncodeToString(sum[:]) {
			t.Fatalf("token of %s stored as %q, not the SHA-256 of the plaintext", tc.device, hash)
		}
	}
	var scopes, key string
	if err := db.QueryRow(`SELECT scopes, public_key FROM devices WHERE device_id=?`, cliDevice).Scan(&scopes, &key); err != nil {
		t.Fatal(err)
	}
	if scopes != `["operator.read"]` || key != "pk-cli" {
		t.Fatalf("cli device scopes %s key %s: want the approved scopes and its key", scopes, key)
	}
	var cmds string
	var approvedAt int64
	if err := db.QueryRow(`SELECT approved_commands, approved_at FROM nodes WHERE node_id=?`, nodeDevice).Scan(&cmds, &approvedAt); err != nil {
		t.Fatal(err)
	}
	if cmds != `["system.run","system.which"]` || approvedAt != 3200 {
		t.Fatalf("node approved %s at %d", cmds, approvedAt)
	}
	if keptConfig == nil {
		got, _ := os.ReadFile(filepath.Join(p.StateDir, "exec-approvals.json"))
		if !jsonEqual(got, []byte(approvals)) {
			t.Fatalf("exec approvals: %s", got)
		}
		if b, _ := os.ReadFile(filepath.Join(p.StateDir, "workspace", "memory", "2026-09-01.md")); string(b) != "notes" {
			t.Fatalf("workspace not copied: %q", b)
		}
		if l, err := os.Readlink(filepath.Join(p.StateDir, "workspace", "link.md")); err != nil || l != "AGENTS.md" {
			t.Fatalf("workspace symlink: %q %v", l, err)
		}
	} else if _, err := os.Stat(filepath.Join(p.StateDir, "workspace", "AGENTS.md")); err == nil {
		t.Fatal("our workspace was written into")
	}
	if b, _ := os.ReadFile(filepath.Join(p.StateDir, "workspace-work", "AGENTS.md")); string(b) != "work" {
		t.Fatalf("workspace-work not copied: %q", b)
	}
}

// TestPlanRefusesNonInstall: a directory without config or database is
// not taken for an install.
func TestPlanRefusesNonInstall(t *testing.T) {
	dir := t.TempDir()
	if _, err := MakePlan(context.Background(), target(t, dir)); err == nil {
		t.Fatal("an empty directory was planned as an install")
	}
	if Installed(dir) {
		t.Fatal("an empty directory counts as installed")
	}
}

// TestPlanSameDirectory: our default state directory is OpenClaw's
// (~/.openclaw); migrating it into itself imports the database rows and
// leaves the shared config and workspaces as they are.
func TestPlanSameDirectory(t *testing.T) {
	ctx := context.Background()
	from := buildSource(t)
	p := Paths{From: from, StateDir: from, ConfigPath: filepath.Join(from, "openclaw.json")}
	plan, err := MakePlan(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	got := actions(plan)
	if got["config file"] != ActionSkip || got["agent workspaces (copied)"] != ActionSkip || got["paired devices (with their tokens)"] != ActionImport {
		t.Fatalf("actions %v", got)
	}
	if err := Apply(ctx, plan); err != nil {
		t.Fatal(err)
	}
	if again, _ := MakePlan(ctx, p); again.Pending() {
		t.Fatalf("second plan still imports: %+v", again.Items)
	}
}

func sameActions(a, b map[string]Action) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// snapshotDir maps every file under dir to a hash of its content.
func snapshotDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		var data []byte
		if info.Mode()&os.ModeSymlink != 0 {
			l, _ := os.Readlink(path)
			data = []byte("link:" + l)
		} else if data, err = os.ReadFile(path); err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		out[path] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
