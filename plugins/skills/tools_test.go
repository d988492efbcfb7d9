package skills

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

var (
	_ tools.Tool = LoadSkillTool(nil)
	_ tools.Tool = SkillFileTool(nil)
	_ tools.Tool = SkillScriptTool(nil, nil)
	_ tools.Tool = SkillManageTool(nil)
)

func call(t *testing.T, tool tools.Tool, args any) (tools.Result, error) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return tool.Call(context.Background(), tools.Call{Name: tool.Spec().Name, Args: raw, Who: tools.Who{AgentID: "main"}})
}

func fixed(c Catalog) CatalogFunc { return func(tools.Who) Catalog { return c } }

type toolCase struct {
	name string
	args map[string]any
	want string // substring of the result text, or of the error when err
	err  bool
}

func runCases(t *testing.T, tool tools.Tool, cases []toolCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := call(t, tool, tc.args)
			text := res.Text
			if err != nil {
				text = err.Error()
			}
			if failed := err != nil || res.IsError; failed != tc.err {
				t.Fatalf("failed = %v, want %v: %s", failed, tc.err, text)
			}
			if !strings.Contains(text, tc.want) {
				t.Errorf("got %q, want it to contain %q", text, tc.want)
			}
		})
	}
}

func TestLoadSkill(t *testing.T) {
	tool := LoadSkillTool(fixed(testCatalog()))
	if s := tool.Spec(); s.Name != "load_skill" || s.Tier != tools.TierCore || s.Dangerous {
		t.Errorf("spec %+v", s)
	}
	runCases(t, tool, []toolCase{
		{name: "main file", args: map[string]any{"skillName": "weather"}, want: "[skill weather loaded from workspace]\n\n# Weather\n"},
		{name: "SKILL.md by path", args: map[string]any{"skillName": "weather", "filePath": "./SKILL.md"}, want: "# Weather"},
		{name: "sub file", args: map[string]any{"skillName": "weather", "filePath": "references/api.md"}, want: "[skill weather file references/api.md loaded from workspace]\n\n# API"},
		{name: "managed origin", args: map[string]any{"skillName": "managed-only"}, want: "loaded from managed]\n\nManaged body."},
		{name: "traversal", args: map[string]any{"skillName": "weather", "filePath": "../needs-jq/SKILL.md"}, want: "outside the skill folder", err: true},
		{name: "absolute", args: map[string]any{"skillName": "weather", "filePath": "/etc/passwd"}, want: "outside the skill folder", err: true},
		{name: "binary", args: map[string]any{"skillName": "weather", "filePath": "references/logo.gif"}, want: "not a text file", err: true},
		{name: "directory", args: map[string]any{"skillName": "weather", "filePath": "references"}, want: "not a file", err: true},
		{name: "missing file", args: map[string]any{"skillName": "weather", "filePath": "nope.md"}, want: "read nope.md", err: true},
		{name: "unavailable", args: map[string]any{"skillName": "needs-gh"}, want: `skill "needs-gh" is unavailable: needs bin gh`, err: true},
		{name: "unknown", args: map[string]any{"skillName": "nope"}, want: `no skill named "nope"`, err: true},
		{name: "no name", args: map[string]any{}, want: "missing required skillName", err: true},
	})
}

func TestLoadSkillSymlinkEscape(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on windows")
	}
	dir := t.TempDir()
	writeSkill(t, dir, "s", "---\ndescription: d\n---\n")
	secret := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(secret, []byte("secret"), 0o600)
	if err := os.Symlink(secret, filepath.Join(dir, "s", "link.txt")); err != nil {
		t.Fatal(err)
	}
	c := Discover([]Source{{Dir: dir, Origin: OriginWorkspace}}, nil, nil, runtime.GOOS)
	res, err := call(t, LoadSkillTool(fixed(c)), map[string]any{"skillName": "s", "filePath": "link.txt"})
	if err == nil || strings.Contains(res.Text, "secret") {
		t.Fatalf("symlink out of the skill was followed: %q %v", res.Text, err)
	}
}

func TestSkillFile(t *testing.T) {
	tool := SkillFileTool(fixed(testCatalog()))
	runCases(t, tool, []toolCase{
		{name: "list", args: map[string]any{"action": "list", "skillName": "weather"}, want: "references/api.md (20 bytes)\nreferences/logo.gif (9 bytes)\nscripts/\nscripts/forecast.sh"},
		{name: "read", args: map[string]any{"action": "read", "skillName": "weather", "path": "scripts/forecast.sh"}, want: "forecast for"},
		{name: "read needs path", args: map[string]any{"action": "read", "skillName": "weather"}, want: "needs a path", err: true},
		{name: "traversal", args: map[string]any{"action": "read", "skillName": "weather", "path": "../../managed/weather/SKILL.md"}, want: "outside", err: true},
		{name: "bad action", args: map[string]any{"action": "write", "skillName": "weather"}, want: "unknown action", err: true},
		{name: "unavailable", args: map[string]any{"action": "list", "skillName": "mac-only"}, want: "only on darwin", err: true},
	})
}

// fakeRunner records what it was asked to run.
type fakeRunner struct {
	mu      sync.Mutex
	argv    []string
	dir     string
	env     []string
	timeout time.Duration
	stdout  string
	code    int
}

func (f *fakeRunner) Run(ctx context.Context, who tools.Who, argv []string, dir string, env []string, timeout time.Duration) (string, string, int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.argv, f.dir, f.env, f.timeout = argv, dir, env, timeout
	return f.stdout, "", f.code, nil
}

func TestSkillScript(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, dir, "tool", "---\ndescription: d\n---\n")
	sd := filepath.Join(dir, "tool", "scripts")
	os.MkdirAll(sd, 0o700)
	os.WriteFile(filepath.Join(sd, "run"), []byte("#!/bin/sh\n"), 0o700)
	os.WriteFile(filepath.Join(sd, "gen.py"), []byte("print(1)\n"), 0o600)
	os.WriteFile(filepath.Join(sd, "data.bin"), []byte("x"), 0o600)
	os.WriteFile(filepath.Join(dir, "tool", "top.sh"), []byte("#!/bin/sh\n"), 0o700)
	skillDir := filepath.Join(dir, "tool")
	c := Discover([]Source{{Dir: dir, Origin: OriginWorkspace}}, nil, nil, runtime.GOOS)

	cases := []struct {
		name     string
		args     map[string]any
		argv     []string
		code     int
		wantText string
		err      bool
	}{
		{name: "executable", args: map[string]any{"skillName": "tool", "script": "run", "args": []string{"a b", "--x"}},
			argv: []string{filepath.Join(sd, "run"), "a b", "--x"}, wantText: "exit code 0\nstdout:\nout"},
		{name: "interpreter by extension", args: map[string]any{"skillName": "tool", "script": "gen.py"},
			argv: []string{"python3", filepath.Join(sd, "gen.py")}, wantText: "exit code 0"},
		{name: "failure exit", args: map[string]any{"skillName": "tool", "script": "run"}, code: 3,
			argv: []string{filepath.Join(sd, "run")}, wantText: "exit code 3", err: true},
		{name: "not executable", args: map[string]any{"skillName": "tool", "script": "data.bin"}, wantText: "not executable", err: true},
		{name: "outside scripts", args: map[string]any{"skillName": "tool", "script": "../top.sh"}, wantText: "must be a file name under scripts/", err: true},
		{name: "nested", args: map[string]any{"skillName": "tool", "script": "a/b"}, wantText: "must be a file name", err: true},
		{name: "missing", args: map[string]any{"skillName": "tool", "script": "nope"}, wantText: "has no script nope", err: true},
		{name: "unknown skill", args: map[string]any{"skillName": "nope", "script": "run"}, wantText: "no skill named", err: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := &fakeRunner{stdout: "out", code: tc.code}
			tool := SkillScriptTool(fixed(c), r)
			res, err := call(t, tool, tc.args)
			text := res.Text
			if err != nil {
				text = err.Error()
			}
			if (err != nil || res.IsError) != tc.err || !strings.Contains(text, tc.wantText) {
				t.Fatalf("got %q (err %v), want %q err=%v", text, err, tc.wantText, tc.err)
			}
			if !slices.Equal(r.argv, tc.argv) {
				t.Errorf("argv %q, want %q", r.argv, tc.argv)
			}
			if tc.argv != nil {
				if r.dir != skillDir || r.timeout != ScriptTimeout || !slices.Contains(r.env, "SKILL_DIR="+skillDir) {
					t.Errorf("dir %s timeout %v env %v", r.dir, r.timeout, r.env)
				}
			}
		})
	}
	if s := SkillScriptTool(fixed(c), &fakeRunner{}).Spec(); !s.Dangerous || s.Timeout <= ScriptTimeout || s.Tier != tools.TierExtension {
		t.Errorf("spec %+v", s)
	}
}

func TestCapOutput(t *testing.T) {
	got := capOutput(strings.Repeat("x", maxOutputBytes*2), maxOutputBytes)
	if len(got) > maxOutputBytes+64 || !strings.Contains(got, "output truncated: 20000 bytes") {
		t.Errorf("capOutput gave %d bytes", len(got))
	}
}

func TestSkillManage(t *testing.T) {
	ws := t.TempDir()
	skillsDir := filepath.Join(ws, "skills")
	tool := SkillManageTool(func(tools.Who) (string, error) { return skillsDir, nil })
	if s := tool.Spec(); !s.Dangerous || !strings.HasPrefix(s.Description, "DANGEROUS") {
		t.Errorf("spec %+v", s)
	}
	good := "---\nname: notes\ndescription: Take notes.\n---\nBody v1\n"
	runCases(t, tool, []toolCase{
		{name: "create", args: map[string]any{"action": "create", "skillName": "notes", "content": good}, want: "created skill notes"},
		{name: "create again", args: map[string]any{"action": "create", "skillName": "notes", "content": good}, want: "already exists", err: true},
		{name: "create bad name", args: map[string]any{"action": "create", "skillName": "../evil", "content": good}, want: "letters, digits and hyphens", err: true},
		{name: "create name mismatch", args: map[string]any{"action": "create", "skillName": "other", "content": good}, want: "differs from skillName", err: true},
		{name: "create no front matter", args: map[string]any{"action": "create", "skillName": "plain", "content": "# hi"}, want: "no front matter", err: true},
		{name: "edit SKILL.md", args: map[string]any{"action": "edit", "skillName": "notes", "content": strings.Replace(good, "v1", "v2", 1)}, want: "wrote skills/notes/SKILL.md"},
		{name: "edit invalid SKILL.md", args: map[string]any{"action": "edit", "skillName": "notes", "content": "---\nname: notes\n---\n"}, want: "no description", err: true},
		{name: "edit script", args: map[string]any{"action": "edit", "skillName": "notes", "filePath": "scripts/add.sh", "content": "echo hi\n"}, want: "wrote skills/notes/scripts/add.sh"},
		{name: "edit traversal", args: map[string]any{"action": "edit", "skillName": "notes", "filePath": "../../escape.txt", "content": "x"}, want: "outside the skill folder", err: true},
		{name: "edit absolute", args: map[string]any{"action": "edit", "skillName": "notes", "filePath": filepath.Join(ws, "escape.txt"), "content": "x"}, want: "outside the skill folder", err: true},
		{name: "edit binary", args: map[string]any{"action": "edit", "skillName": "notes", "filePath": "a.bin", "content": "a\x00b"}, want: "must be text", err: true},
		{name: "edit missing skill", args: map[string]any{"action": "edit", "skillName": "nope", "content": good}, want: "use create", err: true},
		{name: "bad action", args: map[string]any{"action": "rename", "skillName": "notes"}, want: "unknown action", err: true},
	})
	data, err := os.ReadFile(filepath.Join(skillsDir, "notes", FileName))
	if err != nil || !strings.Contains(string(data), "Body v2") {
		t.Fatalf("SKILL.md after edit: %q %v", data, err)
	}
	if _, err := os.Stat(filepath.Join(ws, "escape.txt")); err == nil {
		t.Fatal("a file was written outside the skills directory")
	}
	// What was written is discoverable, and a non-executable script runs
	// through its interpreter.
	c := Discover([]Source{{Dir: skillsDir, Origin: OriginWorkspace}}, nil, nil, runtime.GOOS)
	if e, ok := c.Get("notes"); !ok || e.Status != StatusAvailable || !slices.Equal(e.Scripts, []string{"add.sh"}) {
		t.Fatalf("created skill not discovered: %+v", e)
	}

	// A symlinked subfolder leading out of the skill is refused.
	if runtime.GOOS != "windows" {
		outside := t.TempDir()
		if err := os.Symlink(outside, filepath.Join(skillsDir, "notes", "out")); err != nil {
			t.Fatal(err)
		}
		runCases(t, tool, []toolCase{
			{name: "edit through symlink", args: map[string]any{"action": "edit", "skillName": "notes", "filePath": "out/x.txt", "content": "x"}, want: "write notes/out/x.txt", err: true},
		})
		if _, err := os.Stat(filepath.Join(outside, "x.txt")); err == nil {
			t.Fatal("wrote through a symlink out of the skill")
		}
	}

	runCases(t, tool, []toolCase{
		{name: "delete", args: map[string]any{"action": "delete", "skillName": "notes"}, want: "deleted skill notes"},
		{name: "delete again", args: map[string]any{"action": "delete", "skillName": "notes"}, want: "no skill notes", err: true},
	})
	if _, err := os.Stat(filepath.Join(skillsDir, "notes")); !os.IsNotExist(err) {
		t.Errorf("skill folder still there: %v", err)
	}
}
