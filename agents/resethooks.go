package agents

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/gateway/config"
)

// defaultSessionMemoryMessages is session-memory's messages when unset.
const defaultSessionMemoryMessages = 15

// resetEvent is one session ending: a /new or /reset (command true), or
// a reset policy's rollover.
type resetEvent struct {
	action  string // "new", "reset", "stop", or the policy ("daily", "idle")
	command bool
	key     string
	sender  string // "<channel>:<id>", "" when not known
	source  string // the channel, "" when not known
}

// onSessionEnd runs the internal hooks for an ended session before it is
// reset: command-logger records the command, session-memory keeps the
// session's last messages in the workspace's memory. The messages are
// read now, before the reset; the file is written in the background, so
// a slow disk never holds up the next turn. Failures are logged.
func (s *Service) onSessionEnd(ctx context.Context, cfg *config.Config, workspace string, old *sessions.Session, ev resetEvent) {
	if ev.command && cfg.Hooks.InternalHookOn("command-logger") {
		s.logCommand(ev)
	}
	if old == nil || ev.action == "stop" || !cfg.Hooks.InternalHookOn("session-memory") {
		return
	}
	n := cmp.Or(cfg.Hooks.Internal.Entries["session-memory"].Messages, defaultSessionMemoryMessages)
	msgs, err := s.opts.Store.History(ctx, old.SessionID, sessions.HistoryQuery{Limit: sessions.MaxHistoryLimit})
	if err != nil {
		s.log.Warn("session-memory: read the ended session", "sessionKey", ev.key, "err", err)
		return
	}
	var kept []sessions.Message
	for _, m := range msgs {
		if (m.Role == "user" || m.Role == "assistant") && strings.TrimSpace(m.Text) != "" && !m.Summary {
			kept = append(kept, m)
		}
	}
	if len(kept) == 0 {
		return
	}
	kept = kept[max(0, len(kept)-n):]
	loc := time.Local
	if tz := cfg.Agents.Defaults.UserTimezone; tz != "" {
		if l, err := time.LoadLocation(tz); err == nil {
			loc = l
		}
	}
	now := time.Now().In(loc)
	go func() {
		path, err := writeSessionMemory(workspace, now, old, ev, kept)
		if err != nil {
			s.log.Warn("session-memory: save the ended session", "sessionKey", ev.key, "err", err)
			return
		}
		s.log.Info("Session context saved to "+path, "sessionKey", ev.key)
	}()
}

// writeSessionMemory writes memory/YYYY-MM-DD-HHMM.md (numbered when
// taken) in workspace and returns its path.
func writeSessionMemory(workspace string, now time.Time, old *sessions.Session, ev resetEvent, msgs []sessions.Message) (string, error) {
	dir := filepath.Join(workspace, "memory")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Session saved %s\n\n", now.Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&b, "- Session: %s (%s)\n", ev.key, old.SessionID)
	if ev.command {
		fmt.Fprintf(&b, "- Ended by: /%s from %s\n", ev.action, cmp.Or(ev.source, "a gateway client"))
	} else {
		fmt.Fprintf(&b, "- Ended by: automatic %s reset\n", ev.action)
	}
	b.WriteString("\n## Conversation\n")
	for _, m := range msgs {
		fmt.Fprintf(&b, "\n**%s:** %s\n", m.Role, strings.TrimSpace(m.Text))
	}
	base := now.Format("2006-01-02-1504")
	for i := 1; ; i++ {
		name := base + ".md"
		if i > 1 {
			name = fmt.Sprintf("%s-%d.md", base, i)
		}
		path := filepath.Join(dir, name)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if os.IsExist(err) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, werr := f.WriteString(b.String())
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		return path, werr
	}
}

// logCommand appends one line to <state dir>/logs/commands.log, as
// OpenClaw's command-logger: timestamp, action, sessionKey, senderId and
// source, "unknown" where not known.
func (s *Service) logCommand(ev resetEvent) {
	dir := filepath.Join(s.opts.StateDir, "logs")
	line, _ := json.Marshal(map[string]string{
		"timestamp": time.Now().UTC().Format("2006-01-02T15:04:05.000Z"), "action": ev.action, "sessionKey": ev.key,
		"senderId": cmp.Or(ev.sender, "unknown"), "source": cmp.Or(ev.source, "unknown"),
	})
	err := os.MkdirAll(dir, 0o700)
	if err == nil {
		var f *os.File
		if f, err = os.OpenFile(filepath.Join(dir, "commands.log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600); err == nil {
			_, err = f.Write(append(line, '\n'))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
	}
	if err != nil {
		s.log.Warn("command-logger: append", "err", err)
	}
}

// commandSender is who sent a command, when a chat sent it.
func commandSender(req StartRequest) string {
	if req.Commands == nil {
		return ""
	}
	return req.Commands.ID
}
