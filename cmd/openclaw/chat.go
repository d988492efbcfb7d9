package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// runChat serves `openclaw chat`: a conversation in the terminal. It shows
// the session's recent history, then sends each line typed and streams
// the answer. Commands: /new and /reset start a new session, /abort stops
// the answer being written, /model provider/model switches this session's
// model, /quit (or end of input) leaves.
func runChat(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw chat [--agent ID] [--session-key KEY] [flags]")
	var timeoutS int
	g := fs.agentGatewayFlags(&timeoutS)
	agentID := fs.String("agent", "", "agent `id` (default: the gateway's default agent)")
	sessionKey := fs.String("session-key", "", "session `key` (default: the agent's main session)")
	history := fs.Int("history", 20, "how many earlier messages to show")
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	g.timeoutMs = 15_000
	s, err := a.connect(ctx, g, []string{string(protocol.ScopeWrite), string(protocol.ScopeAdmin)})
	if err != nil {
		return err
	}
	defer s.Close()
	key := *sessionKey
	if key == "" {
		if key, err = a.mainSessionKey(ctx, s, *agentID); err != nil {
			return err
		}
	}
	fmt.Fprintf(a.stderr, "Chatting in %s. /new starts afresh, /abort stops an answer, /model provider/model switches model, /approve <id> allow-once|allow-always|deny answers an approval, Ctrl-C aborts and leaves, /quit leaves.\n", key)
	if err := a.showHistory(ctx, s, key, *history); err != nil {
		return err
	}
	events := s.Events()
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(a.stdin)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	for {
		fmt.Fprint(a.stderr, "> ")
		var line string
		select {
		case <-ctx.Done():
			return nil
		case l, ok := <-lines:
			if !ok {
				fmt.Fprintln(a.stderr)
				return nil
			}
			line = strings.TrimSpace(l)
		}
		switch {
		case line == "":
			continue
		case line == "/quit" || line == "/exit":
			return nil
		case strings.HasPrefix(line, "/approve"):
			a.approve(ctx, s, line)
			continue
		case line == "/abort":
			var out map[string]any
			if err := s.call(ctx, "chat.abort", map[string]any{"sessionKey": key}, &out, false); err != nil {
				fmt.Fprintln(a.stderr, err)
			}
			continue
		case strings.HasPrefix(line, "/model"):
			model := strings.TrimSpace(strings.TrimPrefix(line, "/model"))
			if model == "" {
				fmt.Fprintln(a.stderr, "usage: /model provider/model")
				continue
			}
			if err := s.call(ctx, "sessions.patch", map[string]any{"key": key, "model": model}, nil, false); err != nil {
				fmt.Fprintln(a.stderr, err)
			} else {
				fmt.Fprintf(a.stderr, "model for %s is now %s\n", key, model)
			}
			continue
		}
		if err := a.chatTurn(ctx, s, events, lines, key, line); err != nil {
			fmt.Fprintln(a.stderr, err)
		}
	}
}

// chatTurn sends one line and prints the streamed answer until the run
// ends. A line typed meanwhile that says /abort stops it.
func (a *app) chatTurn(ctx context.Context, s *session, events <-chan protocol.Inbound, lines <-chan string, key, text string) error {
	runID := uuid.NewString()
	var ack struct {
		RunID string `json:"runId"`
	}
	if err := s.call(ctx, "chat.send", map[string]any{"sessionKey": key, "message": text, "idempotencyKey": runID}, &ack, false); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			// Ctrl-C: leaving would not stop the run on the gateway.
			abortCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			err := s.call(abortCtx, "chat.abort", map[string]any{"sessionKey": key, "runId": ack.RunID}, nil, false)
			cancel()
			if err != nil {
				return fmt.Errorf("interrupted; could not abort run %s: %w", ack.RunID, err)
			}
			fmt.Fprintln(a.stdout, "\n[aborted]")
			return nil
		case l, ok := <-lines:
			l = strings.TrimSpace(l)
			switch {
			case ok && l == "/abort":
				s.call(ctx, "chat.abort", map[string]any{"sessionKey": key, "runId": ack.RunID}, nil, false)
			case ok && strings.HasPrefix(l, "/approve"):
				a.approve(ctx, s, l)
			}
		case ev, ok := <-events:
			if !ok {
				return fmt.Errorf("connection to the gateway closed")
			}
			if ev.Event == tools.EventApprovalRequested {
				a.showApproval(ev.Payload, key)
				continue
			}
			if ev.Event != "chat" {
				continue
			}
			var ce chatEvent
			if json.Unmarshal(ev.Payload, &ce) != nil || ce.RunID != ack.RunID {
				continue
			}
			switch ce.State {
			case "delta":
				if ce.Replace {
					fmt.Fprintln(a.stdout, "\n[retrying with another model]")
				}
				fmt.Fprint(a.stdout, ce.DeltaText)
			case "final":
				fmt.Fprintln(a.stdout)
				return nil
			case "aborted":
				fmt.Fprintln(a.stdout, "\n[aborted]")
				return nil
			case "error":
				fmt.Fprintln(a.stdout)
				return fmt.Errorf("error: %s", ce.ErrorMessage)
			}
		}
	}
}

// showApproval prints a pending approval of this session: what waits,
// why, its id and how to answer, as OpenClaw's approval notice does.
func (a *app) showApproval(payload []byte, key string) {
	var ev struct {
		ID          string `json:"id"`
		CreatedAtMs int64  `json:"createdAtMs"`
		ExpiresAtMs int64  `json:"expiresAtMs"`
		Request     struct {
			Tool       string `json:"tool"`
			Args       string `json:"args"`
			Reason     string `json:"reason"`
			AgentID    string `json:"agentId"`
			SessionKey string `json:"sessionKey"`
		} `json:"request"`
	}
	if json.Unmarshal(payload, &ev) != nil || ev.ID == "" || ev.Request.SessionKey != key {
		return
	}
	p := tools.Pending{ID: ev.ID, Tool: ev.Request.Tool, Args: ev.Request.Args, Reason: ev.Request.Reason,
		AgentID: ev.Request.AgentID, SessionKey: ev.Request.SessionKey, CreatedAt: ev.CreatedAtMs, ExpiresAt: ev.ExpiresAtMs}
	fmt.Fprintf(a.stdout, "\n[%s]\n", p.Notice())
}

// approve answers "/approve <id> <decision>" with exec.approval.resolve,
// which needs operator.approvals: the gateway refuses anyone else.
func (a *app) approve(ctx context.Context, s *session, line string) {
	f := strings.Fields(line)
	if len(f) != 3 {
		fmt.Fprintln(a.stderr, "usage: /approve <id> allow-once|allow-always|deny")
		return
	}
	var out struct {
		ID string `json:"id"`
	}
	if err := s.call(ctx, "exec.approval.resolve", map[string]any{"id": f[1], "decision": f[2]}, &out, false); err != nil {
		fmt.Fprintln(a.stderr, err)
		return
	}
	fmt.Fprintf(a.stderr, "approval %s: %s\n", f[1], f[2])
}

// showHistory prints the last n messages of the session.
func (a *app) showHistory(ctx context.Context, s *session, key string, n int) error {
	if n <= 0 {
		return nil
	}
	var h struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := s.call(ctx, "chat.history", map[string]any{"sessionKey": key, "limit": n}, &h, false); err != nil {
		return err
	}
	for _, m := range h.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			continue
		}
		var text []string
		for _, c := range m.Content {
			if c.Type == "text" && c.Text != "" {
				text = append(text, c.Text)
			}
		}
		if len(text) == 0 {
			continue
		}
		who := "you"
		if m.Role == "assistant" {
			who = "agent"
		}
		fmt.Fprintf(a.stdout, "%s: %s\n", who, strings.Join(text, "\n"))
	}
	return nil
}
