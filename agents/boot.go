package agents

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"
)

// maxBootBytes bounds a BOOT.md read at start.
const maxBootBytes = 64 << 10

// RunBoot is hooks.internal.entries.boot-md at gateway start: each
// agent's workspace BOOT.md, when not empty, runs as a turn of that
// agent in a session of its own (agent:<id>:boot:<uuid>), one agent after
// another, not with the owner's rights, and the session is deleted after. A workspace shared by
// agents runs once, for the first of them. Nothing is delivered to a
// chat: instructions that should tell someone must send a message. A
// failed turn is logged and the next one runs. It returns the turns run.
func (s *Service) RunBoot(ctx context.Context) int {
	cfg := s.config()
	if !cfg.Hooks.InternalHookOn("boot-md") {
		return 0
	}
	seen := map[string]bool{}
	ran := 0
	for _, id := range cfg.AgentIDs() {
		agent, ok := resolveAgent(cfg, s.opts.StateDir, id)
		if !ok || seen[agent.Workspace] {
			continue
		}
		seen[agent.Workspace] = true
		text := readBoot(agent.Workspace)
		if text == "" {
			continue
		}
		key := "agent:" + agent.ID + ":boot:" + uuid.NewString()
		// Not as the owner: BOOT.md is a workspace file, which any turn's
		// file tools may write, so a prompt-injected model could plant
		// instructions for the next start. Run without owner rights,
		// owner-only tools are out of reach and dangerous ones ask.
		run, _, err := s.Start(ctx, StartRequest{AgentID: agent.ID, SessionKey: key,
			Message: "Carry out these startup instructions from BOOT.md now. Nothing you answer is delivered: send a message if someone must hear of it.\n\n" + text})
		if err != nil {
			s.log.Warn("boot-md: could not start", "agent", agent.ID, "err", err)
			continue
		}
		select {
		case <-run.Done():
		case <-ctx.Done():
			return ran
		}
		ran++
		if res := run.Result(); res.Status != "ok" {
			s.log.Warn("boot-md: the startup turn failed", "agent", agent.ID, "status", res.Status, "err", res.Error)
		} else {
			s.log.Info("boot-md: ran BOOT.md", "agent", agent.ID)
		}
		if _, err := s.opts.Store.Delete(context.WithoutCancel(ctx), key, true); err != nil {
			s.log.Warn("boot-md: delete the startup session", "sessionKey", key, "err", err)
		}
	}
	return ran
}

// readBoot is the workspace's BOOT.md, trimmed; "" when missing, empty,
// or larger than it may be.
func readBoot(workspace string) string {
	f, err := os.Open(filepath.Join(workspace, "BOOT.md"))
	if err != nil {
		return ""
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxBootBytes+1))
	if err != nil || len(data) > maxBootBytes {
		return ""
	}
	return strings.TrimSpace(string(data))
}
