package agents

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/openclaw-go/openclaw/agents/providers"
	"github.com/openclaw-go/openclaw/tools/fs"
)

// workspaceFiles are read from the agent's workspace, in this order, to
// make up the system prompt, as OpenClaw injects them (BOOTSTRAP.md only
// while the first-run ritual is pending; TOOLS.md, retired by OpenClaw
// into AGENTS.md, when an older workspace still has it). Missing files
// are skipped.
var workspaceFiles = []string{"AGENTS.md", "SOUL.md", identityFile, "USER.md", bootstrapFile, "MEMORY.md", "TOOLS.md"}

// maxWorkspaceFileChars bounds one file's share of the prompt.
const maxWorkspaceFileChars = 20_000

// buildSystemPrompt assembles the system prompt: who the agent is, the
// workspace files, the tools in prose (the schemas travel separately as
// the request's tool list, so the model gets both), and any extra prompt
// the caller added.
func buildSystemPrompt(a resolvedAgent, tools []providers.Tool, extra string) string {
	var b strings.Builder
	name, _ := a.displayName()
	fmt.Fprintf(&b, "You are %s, an agent (id %q) running in an OpenClaw-compatible gateway.\n", name, a.ID)
	if emoji := a.emoji(); emoji != "" {
		fmt.Fprintf(&b, "Your emoji is %s.\n", emoji)
	}
	if a.Description != "" {
		fmt.Fprintf(&b, "%s\n", a.Description)
	}
	if a.Workspace != "" {
		fmt.Fprintf(&b, "Your workspace is %s.\n", a.Workspace)
	}
	for _, f := range workspaceFiles {
		text, ok := readWorkspaceFile(a.Workspace, f)
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", f, text)
	}
	if len(tools) > 0 {
		b.WriteString("\n## Tools\n\nYou can call these tools; call several at once when they do not depend on each other.\n")
		for _, t := range tools {
			fmt.Fprintf(&b, "- %s: %s\n", t.Name, firstLine(t.Description))
		}
	}
	if extra = strings.TrimSpace(extra); extra != "" {
		fmt.Fprintf(&b, "\n%s\n", extra)
	}
	return b.String()
}

// readWorkspaceFile reads one bootstrap file, truncated with a note when
// it is too long. The workspace is the agent's own folder; files are read
// through os.Root so a symlink cannot point the prompt elsewhere, nor a
// hard link (see fs.CheckLinks).
func readWorkspaceFile(dir, name string) (string, bool) {
	if dir == "" {
		return "", false
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", false
	}
	defer root.Close()
	data, err := fs.ReadFile(root, name)
	if errors.Is(err, fs.ErrHardLinked) {
		// Said in the prompt, so the refusal is seen where the file was
		// expected rather than the file silently missing.
		return fmt.Sprintf("[%s not read: %v]", name, err), true
	}
	if err != nil {
		return "", false
	}
	text := strings.TrimSpace(string(data))
	if text == "" {
		return "", false
	}
	if len(text) > maxWorkspaceFileChars {
		text = text[:maxWorkspaceFileChars] + fmt.Sprintf("\n[%s truncated at %d characters]", filepath.Base(name), maxWorkspaceFileChars)
	}
	return text, true
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
