package agents

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestSeedWorkspace: a brand-new workspace gets OpenClaw's five bootstrap
// files; one that has files gets the missing four but no BOOTSTRAP.md;
// a user's file is never overwritten.
func TestSeedWorkspace(t *testing.T) {
	all := []string{"AGENTS.md", "BOOTSTRAP.md", "IDENTITY.md", "SOUL.md", "USER.md"}
	tests := []struct {
		name     string
		existing map[string]string
		want     []string
	}{
		{"brand new", nil, all},
		{"empty folder is new", map[string]string{}, all},
		{"a used workspace gets no ritual", map[string]string{"notes.txt": "x"}, []string{"AGENTS.md", "IDENTITY.md", "SOUL.md", "USER.md", "notes.txt"}},
		{"a user's SOUL.md stays", map[string]string{"SOUL.md": "mine"}, []string{"AGENTS.md", "IDENTITY.md", "SOUL.md", "USER.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "ws")
			if tt.existing != nil {
				os.MkdirAll(dir, 0o700)
			}
			for name, text := range tt.existing {
				os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600)
			}
			if err := seedWorkspace(dir, nil); err != nil {
				t.Fatal(err)
			}
			if got := listDir(t, dir); !slices.Equal(got, tt.want) {
				t.Fatalf("files %q, want %q", got, tt.want)
			}
			for name, text := range tt.existing {
				if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != text {
					t.Fatalf("%s was overwritten: %q", name, b)
				}
			}
			// Seeding again (the next start) changes nothing.
			if err := seedWorkspace(dir, nil); err != nil {
				t.Fatal(err)
			}
			if got := listDir(t, dir); !slices.Equal(got, tt.want) {
				t.Fatalf("second seed: files %q", got)
			}
		})
	}
}

// TestBootstrapRitual: BOOTSTRAP.md is in the prompt while pending, is
// removed once IDENTITY.md (or SOUL.md, USER.md, memory/) changed, and
// does not come back; the name and emoji written into IDENTITY.md become
// the agent's, unless the config names it.
func TestBootstrapRitual(t *testing.T) {
	f := newFixture(t, "", nil)
	ws, err := f.svc.Workspace("main")
	if err != nil {
		t.Fatal(err)
	}
	f.svc.SeedWorkspaces()
	f.model.Script(fakemodel.Reply{Text: "hello, who am I?"})
	f.run(t, StartRequest{Message: "hi"})
	first := f.model.Requests()[0].System
	if !strings.Contains(first, "## BOOTSTRAP.md") || !strings.Contains(first, "## IDENTITY.md") {
		t.Fatalf("the first prompt lacks the ritual or the identity:\n%s", first)
	}
	a, _ := resolveAgent(f.svc.config(), f.svc.opts.StateDir, "main")
	if name, src := a.displayName(); name != "main" || src != "default" {
		t.Fatalf("placeholders gave the name %q (%s)", name, src)
	}

	// The ritual writes the identity (and may forget to delete the file).
	if err := os.WriteFile(filepath.Join(ws, "IDENTITY.md"), []byte("# IDENTITY.md\n\n- **Name:** Nova\n- **Vibe:** calm\n- **Emoji:** 🦊\n- **Avatar:** _(later)_\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f.model.Script(fakemodel.Reply{Text: "I am Nova"})
	f.run(t, StartRequest{Message: "again"})
	second := f.model.Requests()[1].System
	if strings.Contains(second, "## BOOTSTRAP.md") {
		t.Fatalf("the ritual is still in the prompt after IDENTITY.md changed")
	}
	if !strings.HasPrefix(second, "You are Nova,") || !strings.Contains(second, "Your emoji is 🦊.") {
		t.Fatalf("IDENTITY.md's name and emoji are not the agent's:\n%.300s", second)
	}
	if _, err := os.Stat(filepath.Join(ws, "BOOTSTRAP.md")); !os.IsNotExist(err) {
		t.Fatalf("BOOTSTRAP.md left behind: %v", err)
	}
	f.svc.SeedWorkspaces()
	if _, err := os.Stat(filepath.Join(ws, "BOOTSTRAP.md")); !os.IsNotExist(err) {
		t.Fatal("BOOTSTRAP.md came back on the next start")
	}
	res, err := f.svc.handleIdentityFor("main")
	if err != nil || res.Name != "Nova" || res.NameSource != "workspace" || res.Emoji != "🦊" || res.Avatar != "" {
		t.Fatalf("agent.identity.get = %v, %v", res, err)
	}
}

func TestReadIdentityFile(t *testing.T) {
	tests := []struct {
		name, text string
		want       fileIdentity
	}{
		{"starter placeholders are empty", starterFiles[2].text, fileIdentity{}},
		{"bold labels", "- **Name:** Nova\n- **Emoji:** 🦊\n- **Creature:** fox\n- **Vibe:** calm", fileIdentity{Name: "Nova", Emoji: "🦊", Theme: "fox"}},
		{"plain labels, any case", "- name: Rex\n- EMOJI: 🦖\n- Vibe: loud\n- Avatar: avatars/rex.png", fileIdentity{Name: "Rex", Emoji: "🦖", Theme: "loud", Avatar: "avatars/rex.png"}},
		{"theme wins over creature", "- Theme: space\n- Creature: robot", fileIdentity{Theme: "space"}},
		{"prose is not a field", "Name: not a list item\n- Name: Ada", fileIdentity{Name: "Ada"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "IDENTITY.md"), []byte(tt.text), 0o600)
			if got := readIdentityFile(dir); got != tt.want {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestSeedSkipsOptionalFiles: skipOptionalBootstrapFiles keeps SOUL.md and
// USER.md from being created; AGENTS.md and the first-run BOOTSTRAP.md
// still are, whatever the list says.
func TestSeedSkipsOptionalFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ws")
	if err := seedWorkspace(dir, []string{"SOUL.md", "USER.md", "AGENTS.md"}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"AGENTS.md": true, "IDENTITY.md": true, bootstrapFile: true, "SOUL.md": false, "USER.md": false} {
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", name, err == nil, want)
		}
	}
}
