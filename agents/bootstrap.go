package agents

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"slices"
	"strings"

	"github.com/openclaw-go/openclaw/tools/fs"
)

// The workspace's bootstrap files, as OpenClaw seeds them: the four every
// workspace gets when they are missing, and BOOTSTRAP.md, the first-run
// ritual, only in a brand-new one. (OpenClaw retired TOOLS.md, whose notes
// now live in AGENTS.md's "## Tools" section, and HEARTBEAT.md; both are
// still read when a workspace has them.)
const (
	bootstrapFile = "BOOTSTRAP.md"
	identityFile  = "IDENTITY.md"
)

// starterFiles are the starter texts, in the order they are written.
var starterFiles = []struct{ name, text string }{
	{"AGENTS.md", `# AGENTS.md

This folder is your workspace: your files, your notes, your memory.

## Every session
- Read SOUL.md (who you are) and USER.md (who you help).
- If BOOTSTRAP.md is here, this is your first run: follow it, then delete it.
- Look at recent notes in memory/ when the task needs context.

## Memory
- Write what should outlive this conversation to memory/YYYY-MM-DD.md.
- Keep MEMORY.md short: lasting facts and decisions, not logs.

## Ground rules
- Ask before anything that leaves this machine or cannot be undone.
- Private things stay private, in chats with others above all.

## Tools
Notes on this machine's tools and conventions go here (hosts, devices,
preferred commands). They are guidance only: they do not change which
tools you may use.
`},
	{"SOUL.md", `# SOUL.md

Who you are, in your own words. Rewrite this as you find out.

- Be useful before being impressive; say what you did and what you did not.
- Have opinions, and say when you are unsure.
- Keep what you learn about people to yourself.
`},
	{identityFile, `# IDENTITY.md

Filled in during the first conversation.

- **Name:** _(pick one)_
- **Creature:** _(what are you?)_
- **Vibe:** _(how do you come across?)_
- **Emoji:** _(one that feels like you)_
- **Avatar:** _(workspace-relative path, http(s) URL or data URI)_
`},
	{"USER.md", `# USER.md

About the person you help. Add dated notes as you learn them, and mark
old ones superseded rather than deleting them.

- **Name:**
- **What to call them:**
- **Time zone:**
- **Notes:**
`},
}

// bootstrapText is BOOTSTRAP.md's starter text.
const bootstrapText = `# BOOTSTRAP.md

You were just switched on in a new workspace; nothing is remembered yet.
Have a short first conversation and set yourself up:

1. Say hello and ask what they would like to call you. Offer a couple of
   ideas if they have none.
2. Agree on one line about your character and pick an emoji.
3. Write what you agreed into IDENTITY.md (Name, Creature or Vibe, Emoji)
   and SOUL.md, and what you learnt about them into USER.md.
4. Mention once, briefly, that you run with real access to this machine,
   so channels and remote access deserve care.

When that is done, delete this file. It is not created again; if it stays
behind, it is removed once IDENTITY.md, SOUL.md or USER.md has been
changed or memory/ exists.
`

// seedWorkspace creates the workspace and the bootstrap files it lacks,
// never touching a file that exists (a user's file always wins).
// BOOTSTRAP.md is written only when the workspace was brand new: missing
// or empty. Optional files named in skip (skipOptionalBootstrapFiles)
// are not created; AGENTS.md and BOOTSTRAP.md always are.
func seedWorkspace(dir string, skip []string) error {
	if dir == "" {
		return nil
	}
	entries, err := os.ReadDir(dir)
	brandNew := errors.Is(err, iofs.ErrNotExist) || (err == nil && len(entries) == 0)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create workspace %s: %w", dir, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("open workspace %s: %w", dir, err)
	}
	defer root.Close()
	files := starterFiles
	if brandNew {
		files = append(files[:len(files):len(files)], struct{ name, text string }{bootstrapFile, bootstrapText})
	}
	for _, f := range files {
		if f.name != "AGENTS.md" && f.name != bootstrapFile && slices.Contains(skip, f.name) {
			continue
		}
		w, err := root.OpenFile(f.name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, iofs.ErrExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("create %s in %s: %w", f.name, dir, err)
		}
		_, err = w.WriteString(f.text)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("write %s in %s: %w", f.name, dir, err)
		}
	}
	return nil
}

// finishBootstrap removes a BOOTSTRAP.md left behind once the workspace
// looks configured: SOUL.md, IDENTITY.md or USER.md differs from its
// starter text, or memory/ exists. It says whether the ritual is still
// pending (the file is there).
func finishBootstrap(dir string) (pending bool) {
	if dir == "" {
		return false
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return false
	}
	defer root.Close()
	if _, err := root.Stat(bootstrapFile); err != nil {
		return false
	}
	configured := false
	if st, err := root.Stat("memory"); err == nil && st.IsDir() {
		configured = true
	}
	for _, f := range starterFiles {
		if configured || f.name == "AGENTS.md" {
			continue
		}
		data, err := fs.ReadFile(root, f.name)
		configured = err == nil && string(data) != f.text
	}
	if !configured {
		return true
	}
	return root.Remove(bootstrapFile) != nil
}

// fileIdentity is what IDENTITY.md says about the agent.
type fileIdentity struct {
	Name, Emoji, Avatar, Theme string
}

// readIdentityFile parses the workspace's IDENTITY.md: "- Label: value"
// lines, labels matched case-insensitively and **bold** or not, starter
// placeholders such as "_(pick one)_" ignored. Theme, then Creature, then
// Vibe give the theme.
func readIdentityFile(dir string) fileIdentity {
	var id fileIdentity
	text, ok := readWorkspaceFile(dir, identityFile, 0)
	if !ok {
		return id
	}
	var creature, vibe string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "- ") && !strings.HasPrefix(line, "* ") {
			continue
		}
		label, value, ok := strings.Cut(strings.TrimSpace(line[2:]), ":")
		if !ok {
			continue
		}
		label = strings.ToLower(strings.Trim(strings.TrimSpace(label), "*_ "))
		value = identityValue(value)
		switch label {
		case "name":
			id.Name = value
		case "emoji":
			id.Emoji = value
		case "avatar":
			id.Avatar = value
		case "theme":
			id.Theme = value
		case "creature":
			creature = value
		case "vibe":
			vibe = value
		}
	}
	if id.Theme == "" {
		id.Theme = creature
	}
	if id.Theme == "" {
		id.Theme = vibe
	}
	return id
}

// identityValue cleans one field: the bold markers around a "**Label:**"
// are stripped, and a placeholder in parentheses counts as empty.
func identityValue(v string) string {
	v = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), "**"))
	bare := strings.Trim(v, "_* ")
	if strings.HasPrefix(bare, "(") && strings.HasSuffix(bare, ")") {
		return ""
	}
	return v
}

// SeedWorkspaces creates every configured agent's workspace and its
// missing bootstrap files, unless agents.defaults.skipBootstrap; the
// gateway calls it at start, and each run does it for its own agent (an
// agent added by a reload), as OpenClaw seeds at onboarding or the first
// run.
func (s *Service) SeedWorkspaces() {
	cfg := s.config()
	if cfg.Agents.Defaults.SkipBootstrap {
		return
	}
	for _, id := range cfg.AgentIDs() {
		if a, ok := resolveAgent(cfg, s.opts.StateDir, id); ok {
			if err := seedWorkspace(a.Workspace, cfg.Agents.Defaults.SkipOptionalBootstrapFiles); err != nil {
				s.log.Warn("could not seed the agent workspace", "agent", id, "err", err)
			}
		}
	}
}

// prepareWorkspace seeds dir (unless skipBootstrap) and ends a finished
// first-run ritual, before a run reads the workspace into its prompt.
func (s *Service) prepareWorkspace(dir string) {
	if d := s.config().Agents.Defaults; !d.SkipBootstrap {
		if err := seedWorkspace(dir, d.SkipOptionalBootstrapFiles); err != nil {
			s.log.Warn("could not seed the agent workspace", "workspace", dir, "err", err)
		}
	}
	finishBootstrap(dir)
}
