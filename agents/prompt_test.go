package agents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPromptHardLinkRefused performs the hard-link attack on the system
// prompt: a workspace bootstrap file (AGENTS.md) hard-linked to a file
// outside the workspace must not bring that file into the prompt, and the
// prompt says why the file is missing.
func TestPromptHardLinkRefused(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("the secret"), 0o600)
	if err := os.Link(filepath.Join(outside, "secret"), filepath.Join(ws, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ws, "SOUL.md"), []byte("kind and brief"), 0o600)
	p := buildSystemPrompt(resolvedAgent{ID: "main", Workspace: ws}, nil, "", promptOptions{})
	if strings.Contains(p, "the secret") || !strings.Contains(p, "[AGENTS.md not read: refused: the file has more than one hard link") {
		t.Errorf("prompt:\n%s", p)
	}
	if !strings.Contains(p, "kind and brief") {
		t.Errorf("SOUL.md, with one link, is missing:\n%s", p)
	}
}
