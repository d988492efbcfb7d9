package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/gateway/protocol"
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
		var agents struct {
			DefaultID string `json:"defaultId"`
			MainKey   string `json:"mainKey"`
		}
		if err := s.call(ctx, "agents.list", map[string]any{}, &agents, false); err != nil {
			return err
		}
		id := *agentID
		if id == "" {
			id = agents.DefaultID
		}
		key = "agent:" + strings.ToLower(id) + ":" + agents.MainKey
	}
	fmt.Fprintf(a.stderr, "Chatting in %s. /new starts afresh, /abort stops an answer, /model provider/model switches model, /quit leaves.\n", key)
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
			return nil
		case l, ok := <-lines:
			if ok && strings.TrimSpace(l) == "/abort" {
				s.call(ctx, "chat.abort", map[string]any{"sessionKey": key, "runId": runID}, nil, false)
			}
		case ev, ok := <-events:
			if !ok {
				return fmt.Errorf("connection to the gateway closed")
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
