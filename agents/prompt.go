package agents

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/openclaw-go/openclaw/agents/providers"
	"github.com/openclaw-go/openclaw/tools/fs"
)

// workspaceFiles are read from the agent's workspace, in this order, to
// make up the system prompt, as OpenClaw injects them (BOOTSTRAP.md only
// while the first-run ritual is pending; TOOLS.md, retired by OpenClaw
// into AGENTS.md, when an older workspace still has it). Missing files
// are skipped.
var workspaceFiles = []string{"AGENTS.md", "SOUL.md", identityFile, "USER.md", bootstrapFile, "MEMORY.md", "TOOLS.md"}

// promptOptions are the run's settings for the system prompt beyond the
// agent itself.
type promptOptions struct {
	// SkipWorkspace leaves the workspace files out (contextInjection).
	SkipWorkspace bool
	// Timezone is the IANA zone named in the prompt ("" = the host's).
	Timezone string
}

// buildSystemPrompt assembles the system prompt: who the agent is, the
// workspace files, the tools in prose (the schemas travel separately as
// the request's tool list, so the model gets both), and any extra prompt
// the caller added. Only the zone goes in, not the time: a prompt that
// changed every minute would defeat the provider's prompt cache.
func buildSystemPrompt(a resolvedAgent, tools []providers.Tool, extra string, o promptOptions) string {
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
	if zone := userTimezone(o.Timezone); zone != "" {
		fmt.Fprintf(&b, "The user's time zone is %s.\n", zone)
	}
	if !o.SkipWorkspace {
		// Each file is cut at bootstrapMaxChars, and all of them together
		// at bootstrapTotalMaxChars: the last ones get what is left.
		total, budget := a.BootstrapTotalMaxChars, a.BootstrapTotalMaxChars
		for _, f := range workspaceFiles {
			limit := a.BootstrapMaxChars
			if total > 0 && (limit <= 0 || budget < limit) {
				limit = max(budget, 1)
			}
			text, ok := readWorkspaceFile(a.Workspace, f, limit)
			if !ok {
				continue
			}
			if total > 0 && budget <= 0 {
				fmt.Fprintf(&b, "\n## %s\n\n[%s left out: the workspace files reached %d characters]\n", f, f, total)
				continue
			}
			budget -= len(text)
			fmt.Fprintf(&b, "\n## %s\n\n%s\n", f, text)
		}
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

// userTimezone is the configured zone when it is one Go knows, else the
// host's zone name ("" when the host's is only "Local").
func userTimezone(configured string) string {
	if configured != "" {
		if _, err := time.LoadLocation(configured); err == nil {
			return configured
		}
	}
	if name := time.Now().Location().String(); name != "Local" {
		return name
	}
	if tz := os.Getenv("TZ"); tz != "" {
		return tz
	}
	return ""
}

// readWorkspaceFile reads one bootstrap file, cut at limit characters
// with a note saying so (limit <= 0: no limit). The workspace is the
// agent's own folder; files are read through os.Root so a symlink cannot
// point the prompt elsewhere, nor a hard link (see fs.CheckLinks).
func readWorkspaceFile(dir, name string, limit int) (string, bool) {
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
	if limit > 0 && len(text) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut-- // never split a character
		}
		text = text[:cut] + fmt.Sprintf("\n[%s truncated at %d characters]", filepath.Base(name), limit)
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
