package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const agentsConfig = `// team config
{
  agents: {
    defaults: { model: "openai/gpt-4o" }, // shared default
  },
  // routing
  bindings: [
    { agentId: "main", match: { channel: "slack", accountId: "team" } }, // kept by hand
  ],
}
`

// TestAgentsEdit walks add, bind, unbind and delete over a commented
// file.
func TestAgentsEdit(t *testing.T) {
	home := isolate(t)
	path := filepath.Join(home, ".openclaw", "openclaw.json")
	writeConfig(t, path, agentsConfig)
	ws := filepath.Join(home, "work-space")
	runSteps(t, path, []modelsStep{
		{name: "add normalizes the name and keeps the implicit main",
			args:    []string{"agents", "add", "My Work", "--workspace", ws, "--model", "anthropic/claude-sonnet-4-5", "--bind", "telegram:ops"},
			outHas:  []string{`Normalized agent id to "my-work".`, "Agent: my-work\nWorkspace: " + ws + "\nModel: anthropic/claude-sonnet-4-5\nBound: telegram accountId=ops\n"},
			fileHas: []string{"// team config", "// shared default", "// kept by hand", "main: {}", `"my-work": {`, `"name": "My Work"`, `"workspace": "` + ws + `"`, `"channel": "telegram"`}},
		{name: "add --json", args: []string{"agents", "add", "ops2", "--workspace", ws + "-ops2", "--json", "--bind", "slack:team"},
			outHas:  []string{"\"conflicts\": [\n      \"slack accountId=team (agent=main)\"\n    ]"},
			fileHas: []string{`ops2: {`}},
		{name: "add --json output", args: []string{"agents", "add", "ops3", "--workspace", ws + "-ops3", "--json", "--model", "openai/gpt-4o-mini"},
			wantOut: "{\n  \"agentId\": \"ops3\",\n  \"bindings\": {\n    \"added\": [],\n    \"conflicts\": [],\n    \"skipped\": [],\n    \"updated\": []\n  },\n" +
				"  \"model\": \"openai/gpt-4o-mini\",\n  \"name\": \"ops3\",\n  \"workspace\": \"" + ws + "-ops3\"\n}\n"},
		{name: "add again", args: []string{"agents", "add", "my-work", "--workspace", ws}, wantErr: `agent "my-work" already exists`},
		{name: "add with no usable id", args: []string{"agents", "add", "!!!", "--workspace", ws}, wantErr: "has no valid id characters"},
		{name: "add reserved", args: []string{"agents", "add", "OpenClaw", "--workspace", ws}, wantErr: `"openclaw" is reserved`},
		{name: "add without workspace", args: []string{"agents", "add", "ops"}, wantErr: "--workspace is required"},
		{name: "add without name", args: []string{"agents", "add", "--workspace", ws}, wantErr: "an agent name is required"},
		{name: "add with a malformed model", args: []string{"agents", "add", "ops", "--workspace", ws + "-ops", "--model", "gpt4"}, wantErr: "not a model reference"},
		{name: "add with a bad bind", args: []string{"agents", "add", "ops", "--workspace", ws + "-ops", "--bind", "tele gram"}, wantErr: "want channel[:accountId]"},
		{name: "add with a role", args: []string{"agents", "add", "ops", "--workspace", ws + "-ops", "--role", "writer"}, wantErr: "--role is not available"},
		{name: "bind the same twice is skipped", args: []string{"agents", "bind", "--agent", "my-work", "--bind", "telegram:ops"},
			wantOut: "Already present:\n- telegram accountId=ops\n"},
		{name: "bind a route another agent holds", args: []string{"agents", "bind", "--agent", "my-work", "--bind", "slack:team"},
			wantErr: "Skipped bindings already claimed by another agent:\n- slack accountId=team (agent=main)"},
		{name: "bind channel-only", args: []string{"agents", "bind", "--agent", "my-work", "--bind", "discord"},
			outHas: []string{"Added bindings:\n- discord\n"}},
		{name: "bind upgrades channel-only in place", args: []string{"agents", "bind", "--agent", "MY-WORK", "--bind", "discord:guild-a", "--json"},
			wantOut: "{\n  \"agentId\": \"my-work\",\n  \"added\": [],\n  \"updated\": [\n    \"discord accountId=guild-a\"\n  ],\n  \"skipped\": [],\n  \"conflicts\": []\n}\n",
			fileHas: []string{`accountId: "guild-a"`}},
		{name: "bind with no --bind", args: []string{"agents", "bind", "--agent", "my-work"}, wantErr: "provide at least one --bind"},
		{name: "bind an unknown agent", args: []string{"agents", "bind", "--agent", "ghost", "--bind", "x"}, wantErr: `agent "ghost" not found`},
		{name: "bind an empty account", args: []string{"agents", "bind", "--bind", "telegram:"}, wantErr: "the account after ':' is empty"},
		{name: "bindings json", args: []string{"agents", "bindings", "--agent", "my-work", "--json"},
			wantOut: "[\n  {\n    \"agentId\": \"my-work\",\n    \"match\": {\n      \"accountId\": \"ops\",\n      \"channel\": \"telegram\"\n    },\n    \"description\": \"telegram accountId=ops\"\n  },\n" +
				"  {\n    \"agentId\": \"my-work\",\n    \"match\": {\n      \"accountId\": \"guild-a\",\n      \"channel\": \"discord\"\n    },\n    \"description\": \"discord accountId=guild-a\"\n  }\n]\n"},
		{name: "bindings text", args: []string{"agents", "bindings"},
			wantOut: "Routing bindings:\n- main <- slack accountId=team\n- my-work <- telegram accountId=ops\n- my-work <- discord accountId=guild-a\n"},
		{name: "unbind both --all and --bind", args: []string{"agents", "unbind", "--agent", "my-work", "--all", "--bind", "discord"}, wantErr: "either --all or --bind"},
		{name: "unbind another agent's route", args: []string{"agents", "unbind", "--agent", "my-work", "--bind", "slack:team"},
			wantErr: "Bindings are owned by another agent"},
		{name: "unbind", args: []string{"agents", "unbind", "--agent", "my-work", "--bind", "telegram:ops", "--bind", "irc", "--json"},
			wantOut:    "{\n  \"agentId\": \"my-work\",\n  \"removed\": [\n    \"telegram accountId=ops\"\n  ],\n  \"missing\": [\n    \"irc\"\n  ],\n  \"conflicts\": []\n}\n",
			fileHasNot: []string{`"telegram"`}, fileHas: []string{"// kept by hand", `accountId: "guild-a"`}},
		{name: "delete needs --force", args: []string{"agents", "delete", "my-work"}, wantErr: `deleting agent "my-work" needs --force`},
		{name: "delete the default needs --force and says it is the default", args: []string{"agents", "delete", "main"},
			wantErr: "(the default agent"},
		{name: "delete unknown", args: []string{"agents", "delete", "ghost", "--force"}, wantErr: `agent "ghost" not found`},
		{name: "delete with --force drops the entry and its bindings", args: []string{"agents", "delete", "my-work", "--force", "--json"},
			wantOut:    "{\n  \"agentId\": \"my-work\",\n  \"failed\": [],\n  \"removed\": [],\n  \"removedBindings\": 1,\n  \"workspace\": \"" + ws + "\",\n  \"workspaceRetained\": true\n}\n",
			fileHasNot: []string{"my-work", "guild-a"}, fileHas: []string{"// kept by hand", "main: {}"}},
		{name: "delete ops2", args: []string{"agents", "delete", "ops2", "--force"}, outHas: []string{"Deleted agent ops2 (0 bindings removed)."}},
		{name: "delete ops3", args: []string{"agents", "delete", "ops3", "--force"}, fileHasNot: []string{"ops3"}},
		{name: "the last agent cannot go", args: []string{"agents", "delete", "main", "--force"}, wantErr: "is the only configured agent"},
	})
	fi, err := os.Stat(ws)
	if err != nil {
		t.Fatalf("workspace: %v", err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("workspace mode %v, want 0700", fi.Mode().Perm())
	}
}

// TestAgentsList checks the --json rows: the default first, workspaces
// resolved as the gateway does, the model inherited, bindings counted.
func TestAgentsList(t *testing.T) {
	home := isolate(t)
	path := filepath.Join(home, ".openclaw", "openclaw.json")
	state := filepath.Join(home, ".openclaw")
	writeConfig(t, path, `{
  agents: {
    defaults: { model: "openai/gpt-4o" },
    entries: { ops: { workspace: "~/ops", model: "anthropic/claude-sonnet-4-5" }, main: {}, helper: { name: "Helper" } },
  },
  bindings: [{ agentId: "ops", match: { channel: "telegram" } }, { agentId: "OPS", match: { channel: "discord", peer: { kind: "group", id: "1" } } }],
}`)
	stdout, stderr, err := runCLI(t, "agents", "list", "--json", "--bindings")
	if err != nil {
		t.Fatalf("%v: %s", err, stderr)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(stdout), &rows); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	got, _ := json.Marshal(rows)
	want := `[{"bindings":0,"id":"main","isDefault":true,"model":"openai/gpt-4o","workspace":"` + state + `/workspace"},` +
		`{"bindings":0,"id":"helper","isDefault":false,"model":"openai/gpt-4o","name":"Helper","workspace":"` + state + `/workspace-helper"},` +
		`{"bindings":2,"id":"ops","isDefault":false,"model":"anthropic/claude-sonnet-4-5","routes":["telegram","discord peer=group:1"],"workspace":"` + home + `/ops"}]`
	if string(got) != want {
		t.Errorf("agents list --json\n%s\nwant\n%s", got, want)
	}
	// Bare `agents` is `agents list`.
	out, _, err := runCLI(t, "agents")
	if err != nil || !strings.HasPrefix(out, "Agents:\n- main (default)\n") {
		t.Errorf("bare agents: %v %q", err, out)
	}
}

// TestAgentsWorkspaceAttack: an agent whose workspace holds the state
// directory would let its file tools read the gateway token, device keys
// and database; every way of naming such a directory is refused, and
// nothing is written or created.
func TestAgentsWorkspaceAttack(t *testing.T) {
	home := isolate(t)
	state := filepath.Join(home, ".openclaw")
	path := filepath.Join(state, "openclaw.json")
	writeConfig(t, path, "{ gateway: { auth: { token: 'gw-secret' } } }\n")
	os.Symlink(state, filepath.Join(home, "innocent"))
	os.MkdirAll(filepath.Join(home, "dirs"), 0o700)
	os.Symlink(home, filepath.Join(home, "dirs", "up"))
	outside := filepath.Join(home, "elsewhere", "cfg.json5")
	tests := []struct {
		name, workspace string
		env             map[string]string
		want            string
	}{
		{"the state dir", state, nil, "would hold the state directory"},
		{"the state dir by ~", "~/.openclaw", nil, "would hold the state directory"},
		{"home, which holds it", home, nil, "would hold the state directory"},
		{"the root", "/", nil, "would hold the state directory"},
		{"dot-dot out of a workspace", filepath.Join(state, "workspace-x", "..", ".."), nil, "would hold the state directory"},
		{"a symlink to the state dir", filepath.Join(home, "innocent"), nil, "would hold the state directory"},
		{"a new dir under a symlink to home", filepath.Join(home, "dirs", "up", ".openclaw"), nil, "would hold the state directory"},
		{"a secrets dir inside the state dir", filepath.Join(state, "credentials"), nil, "not one of its workspace directories"},
		{"inside the state dir through a symlink", filepath.Join(home, "innocent", "identity"), nil, "not one of its workspace directories"},
		{"a dir holding a config file kept elsewhere", filepath.Join(home, "elsewhere"), map[string]string{envConfigPath: outside}, "would hold the config file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			before, _ := os.ReadFile(path)
			_, stderr, err := runCLI(t, "agents", "add", "evil", "--workspace", tc.workspace)
			if err == nil || !strings.Contains(stderr, tc.want) {
				t.Fatalf("err %v stderr %q, want %q", err, stderr, tc.want)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
				t.Errorf("the config changed:\n%s", after)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(state, "credentials")); err == nil {
		t.Error("a refused workspace was created")
	}
	// The directories OpenClaw itself puts workspaces in are fine.
	for _, ok := range []string{filepath.Join(state, "workspace-ok"), filepath.Join(home, "projects", "ok2")} {
		id := filepath.Base(ok)
		if _, stderr, err := runCLI(t, "agents", "add", id, "--workspace", ok); err != nil {
			t.Errorf("workspace %s refused: %s", ok, stderr)
		}
	}
	// A workspace put in the file by hand is flagged by agents list.
	writeConfig(t, path, `{ agents: { entries: { main: {}, bad: { workspace: "~" } } } }`)
	_, stderr, err := runCLI(t, "agents", "list")
	if err != nil || !strings.Contains(stderr, "warning: agent bad: workspace") {
		t.Errorf("list did not flag the hand-written workspace: %v %q", err, stderr)
	}
}

// TestAgentsLegacyList: a file still in the agents.list form is not
// edited into a mix of both forms.
func TestAgentsLegacyList(t *testing.T) {
	home := isolate(t)
	path := filepath.Join(home, ".openclaw", "openclaw.json")
	writeConfig(t, path, `{ agents: { list: [{ id: "main" }, { id: "ops" }] } }`)
	runSteps(t, path, []modelsStep{
		{name: "add", args: []string{"agents", "add", "new", "--workspace", filepath.Join(home, "n")}, wantErr: "older agents.list form"},
		{name: "delete", args: []string{"agents", "delete", "ops", "--force"}, wantErr: "older agents.list form"},
	})
}
