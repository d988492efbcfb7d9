package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// `openclaw sessions tail`: a session's progress as short lines. As the
// real one, it is conservative: prompt text, tool arguments and tool
// result bodies are never printed (a transcript holds what users and
// tools said; a terminal or a pasted bug report should not).

func newSessionsTailCmd(a *app) *cobra.Command {
	var (
		g          *gatewayFlags
		agent, key string
		tail       int
		follow     bool
		allAgents  bool
	)
	c := &cobra.Command{
		Use:   "tail",
		Short: "Tail human-readable session progress",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			agentID, err := optionalAgent(agent)
			if err != nil {
				return err
			}
			if tail < 0 {
				return usageErrorf("--tail must be 0 or more, got %d", tail)
			}
			if cmd.Flags().Changed("session-key") && strings.TrimSpace(key) == "" {
				return usageErrorf("--session-key must not be blank")
			}
			return a.sessionsTail(cmd.Context(), g, agentID, strings.TrimSpace(key), tail, follow)
		},
	}
	f := c.Flags()
	f.StringVar(&agent, "agent", "", "agent `id` whose latest session to tail")
	f.BoolVar(&allAgents, "all-agents", false, "pick the latest session of any agent")
	f.StringVar(&key, "session-key", "", "session `key` to tail (default: the latest session)")
	f.IntVar(&tail, "tail", 80, "number of existing entries to show (`count`)")
	f.BoolVar(&follow, "follow", false, "keep following new entries")
	g = addGatewayFlags(f, a)
	return c
}

// historyAnswer is the part of chat.history tail reads.
type historyAnswer struct {
	Messages []json.RawMessage `json:"messages"`
}

// tailMessage is one chat.history message, as much as tail shows.
type tailMessage struct {
	Role       string `json:"role"`
	ToolName   string `json:"toolName"`
	IsError    bool   `json:"isError"`
	Provider   string `json:"provider"`
	Model      string `json:"model"`
	StopReason string `json:"stopReason"`
	Timestamp  int64  `json:"timestamp"`
	Content    []struct {
		Type string `json:"type"`
		Text string `json:"text"`
		Name string `json:"name"`
	} `json:"content"`
}

func (a *app) sessionsTail(ctx context.Context, g *gatewayFlags, agent, key string, tail int, follow bool) error {
	dialCtx, cancel := context.WithTimeout(ctx, g.timeout())
	defer cancel()
	s, err := a.connect(dialCtx, g, scopesFor("chat.history"))
	if err != nil {
		return err
	}
	defer s.Close()
	if key == "" {
		params := map[string]any{"limit": 1, "includeGlobal": true}
		if agent != "" {
			params["agentId"] = agent
		}
		var list sessionsListAnswer
		if err := s.call(dialCtx, "sessions.list", params, &list, false); err != nil {
			return err
		}
		if len(list.Sessions) == 0 {
			return errors.New("sessions tail: no sessions yet; start one with `openclaw agent --message ...`")
		}
		key, _ = list.Sessions[0]["key"].(string)
	}
	fetch := func(ctx context.Context) ([]json.RawMessage, error) {
		var h historyAnswer
		err := s.call(ctx, "chat.history", map[string]any{"sessionKey": key, "limit": 1000}, &h, false)
		return h.Messages, err
	}
	msgs, err := fetch(dialCtx)
	if err != nil {
		return err
	}
	start := max(len(msgs)-tail, 0)
	for _, m := range msgs[start:] {
		printTailLine(a.stdout, key, m)
	}
	if !follow {
		return nil
	}
	last := lastOf(msgs)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.Done():
			return s.Err()
		case ev, ok := <-s.Events():
			if !ok {
				return s.Err()
			}
			if !endsTurnOf(ev, key) {
				continue
			}
			callCtx, cancel := context.WithTimeout(ctx, g.timeout())
			msgs, err := fetch(callCtx)
			cancel()
			if err != nil {
				return err
			}
			for _, m := range newSince(msgs, last) {
				printTailLine(a.stdout, key, m)
			}
			last = lastOf(msgs)
		}
	}
}

// endsTurnOf reports whether ev is a chat event that ends a turn of key:
// then the transcript has new messages.
func endsTurnOf(ev protocol.Inbound, key string) bool {
	if ev.Event != "chat" {
		return false
	}
	var p struct {
		SessionKey string `json:"sessionKey"`
		State      string `json:"state"`
	}
	if json.Unmarshal(ev.Payload, &p) != nil || p.SessionKey != key {
		return false
	}
	return p.State == "final" || p.State == "error" || p.State == "aborted"
}

func lastOf(msgs []json.RawMessage) json.RawMessage {
	if len(msgs) == 0 {
		return nil
	}
	return msgs[len(msgs)-1]
}

// newSince returns the messages after last (the newest one printed
// before). History has no sequence numbers on the wire, so the message
// itself (with its timestamp) marks the place.
func newSince(msgs []json.RawMessage, last json.RawMessage) []json.RawMessage {
	if last == nil {
		return msgs
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if string(msgs[i]) == string(last) {
			return msgs[i+1:]
		}
	}
	return msgs // the place scrolled out of the window: show what there is
}

// printTailLine prints one message as a progress line, without its text.
func printTailLine(w io.Writer, key string, raw json.RawMessage) {
	var m tailMessage
	if json.Unmarshal(raw, &m) != nil {
		return
	}
	ts := "--:--:--"
	if m.Timestamp > 0 {
		ts = time.UnixMilli(m.Timestamp).Format("15:04:05")
	}
	line := func(kind, detail string) { fmt.Fprintf(w, "%s  %-28s  %-9s %s\n", ts, clipKey(key, 28), kind, detail) }
	switch m.Role {
	case "user":
		n := 0
		for _, c := range m.Content {
			n += len([]rune(c.Text))
		}
		line("user", fmt.Sprintf("message (%d chars)", n))
	case "system":
		line("system", "compaction summary")
	case "toolResult":
		status := "ok"
		if m.IsError {
			status = "error"
		}
		line("result", m.ToolName+" "+status)
	case "assistant":
		for _, c := range m.Content {
			if c.Type == "toolCall" {
				line("tool", c.Name+" {...redacted...}")
			}
		}
		model := strings.Trim(m.Provider+"/"+m.Model, "/")
		line("model", orDash(model)+" "+stopStatus(m.StopReason))
	}
}

// stopStatus is a completion's terminal status as the real tail shows it.
func stopStatus(reason string) string {
	switch reason {
	case "error":
		return "error"
	case "aborted", "cancelled":
		return "aborted"
	case "timeout":
		return "timeout"
	}
	return "done"
}

// clipKey shortens a key to n runes, keeping its start and end.
func clipKey(key string, n int) string {
	r := []rune(key)
	if len(r) <= n {
		return key
	}
	head := (n - 1) / 2
	return string(r[:head]) + "…" + string(r[len(r)-(n-1-head):])
}
