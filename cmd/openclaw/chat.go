package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/openclaw-go/openclaw/cmd/openclaw/internal/tui"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// runChat serves `openclaw chat --plain` as the older command table
// knows it (its flags parsed by flagSet); `openclaw chat` itself is the
// cobra command of newChatCmd, which comes here for plain mode too.
func runChat(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw chat --plain [--agent ID] [--session-key KEY] [flags]")
	var timeoutS int
	g := fs.agentGatewayFlags(&timeoutS)
	agentID := fs.String("agent", "", "agent `id` (default: the gateway's default agent)")
	sessionKey := fs.String("session-key", "", "session `key` (default: the agent's main session)")
	history := fs.Int("history", 20, "how many earlier messages to show")
	fs.Bool("plain", true, "line mode (this command is always line mode)")
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	return a.plainChat(ctx, g, plainChatOptions{agentID: *agentID, sessionKey: *sessionKey, history: *history})
}

// plainChatOptions are what line mode needs.
type plainChatOptions struct {
	agentID, sessionKey string
	session             string // a key of the agent ("main") or a full one
	history             int
	message             string // sent before the first line read
	deliver             bool
	thinking            string
	timeoutMs           int
}

// plainChat is `openclaw chat --plain` (and `openclaw chat` when stdin is
// no terminal): a conversation line by line. It shows the session's
// recent history, then sends each line typed and streams the answer.
// Commands: /new and /reset start a new session, /abort stops the answer
// being written, /model provider/model switches this session's model,
// /quit (or end of input) leaves.
func (a *app) plainChat(ctx context.Context, g *gatewayFlags, o plainChatOptions) error {
	g.timeoutMs = 15_000
	s, err := a.connect(ctx, g, chatScopes)
	if err != nil {
		return err
	}
	defer s.Close()
	key := o.sessionKey
	switch {
	case key == "" && (strings.HasPrefix(o.session, "agent:") || o.session == "global"):
		key = o.session
	case key == "":
		if key, err = a.mainSessionKey(ctx, s, o.agentID); err != nil {
			return err
		}
		if o.session != "" {
			// agent:<agent>:<main key> with the agent's own key in place
			// of the main key.
			key = key[:strings.LastIndex(key, ":")+1] + strings.ToLower(o.session)
		}
	}
	extra := map[string]any{}
	if o.timeoutMs > 0 {
		extra["timeoutMs"] = o.timeoutMs
	}
	if o.thinking != "" {
		// Sent with each turn as the protocol has it, and kept on the
		// session, where this gateway reads it.
		extra["thinking"] = o.thinking
		if err := s.call(ctx, "sessions.patch", map[string]any{"key": key, "thinkingLevel": o.thinking}, nil, false); err != nil {
			return fmt.Errorf("--thinking %s: %w", o.thinking, err)
		}
	}
	fmt.Fprintf(a.stderr, "Chatting in %s. /new starts afresh, /abort stops an answer, /model provider/model switches model, /approve <id> allow-once|allow-always|deny answers an approval, Ctrl-C aborts and leaves, /quit leaves.\n", key)
	if err := a.showHistory(ctx, s, key, o.history); err != nil {
		return err
	}
	events := s.Events()
	lines := make(chan string)
	go func() {
		defer close(lines)
		if o.message != "" {
			lines <- o.message
		}
		sc := bufio.NewScanner(a.stdin)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	// typedAhead keeps the lines that came while an answer streamed, in
	// order: a pasted or piped conversation is sent line after line, not
	// lost to the turn that was running.
	var typedAhead []string
	for {
		fmt.Fprint(a.stderr, "> ")
		var line string
		if len(typedAhead) > 0 {
			line, typedAhead = strings.TrimSpace(typedAhead[0]), typedAhead[1:]
		} else {
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
			if err := chatAbort(ctx, s, key, ""); err != nil {
				fmt.Fprintln(a.stderr, err)
			}
			continue
		case strings.HasPrefix(line, "/model"):
			model := strings.TrimSpace(strings.TrimPrefix(line, "/model"))
			if model == "" {
				fmt.Fprintln(a.stderr, "usage: /model provider/model")
				continue
			}
			if err := setSessionModel(ctx, s, key, model); err != nil {
				fmt.Fprintln(a.stderr, err)
			} else {
				fmt.Fprintf(a.stderr, "model for %s is now %s\n", key, model)
			}
			continue
		}
		if err := a.chatTurn(ctx, s, events, lines, &typedAhead, key, line, o.deliver, extra); err != nil {
			fmt.Fprintln(a.stderr, err)
		}
	}
}

// chatScopes are what a chat needs: read and write its session, answer
// approvals (exec.approval.resolve is operator.approvals) and reset a
// session (operator.admin).
var chatScopes = []string{string(protocol.ScopeRead), string(protocol.ScopeWrite), string(protocol.ScopeApprovals), string(protocol.ScopeAdmin)}

// The chat's gateway calls, shared by line mode and the TUI's backend.

// chatSend starts a turn: chat.send, or the agent method when the reply
// is to be delivered to a chat (chat.send does not deliver). extra adds
// protocol fields (thinking, timeoutMs).
func chatSend(ctx context.Context, s *session, key, text string, deliver bool, extra map[string]any) (string, error) {
	idem := uuid.NewString()
	params := map[string]any{"sessionKey": key, "message": text, "idempotencyKey": idem}
	for k, v := range extra {
		params[k] = v
	}
	method := "chat.send"
	if deliver && !strings.HasPrefix(strings.TrimSpace(text), "/") {
		method = "agent"
		params["deliver"] = true
		if ms, ok := extra["timeoutMs"].(int); ok {
			params["timeout"] = (ms + 999) / 1000
		}
	}
	var ack struct {
		RunID string `json:"runId"`
	}
	if err := s.call(ctx, method, params, &ack, false); err != nil {
		return "", err
	}
	if ack.RunID == "" {
		ack.RunID = idem
	}
	return ack.RunID, nil
}

// chatAbort stops the session's run (runID "" for whatever runs).
func chatAbort(ctx context.Context, s *session, key, runID string) error {
	params := map[string]any{"sessionKey": key}
	if runID != "" {
		params["runId"] = runID
	}
	var out map[string]any
	return s.call(ctx, "chat.abort", params, &out, false)
}

// setSessionModel sets the session's model override; "" clears it.
func setSessionModel(ctx context.Context, s *session, key, model string) error {
	var m any = model
	if model == "" {
		m = nil
	}
	return s.call(ctx, "sessions.patch", map[string]any{"key": key, "model": m}, nil, false)
}

// resolveApproval answers a pending approval with exec.approval.resolve,
// which needs operator.approvals: the gateway refuses anyone else.
func resolveApproval(ctx context.Context, s *session, id, decision string) error {
	var out struct {
		ID string `json:"id"`
	}
	return s.call(ctx, "exec.approval.resolve", map[string]any{"id": id, "decision": decision}, &out, false)
}

// historyMessage is one user or assistant message of chat.history.
type historyMessage struct {
	Role, Text string
}

// chatHistory returns the session's last n user and assistant messages
// that have text.
func chatHistory(ctx context.Context, s *session, key string, n int) ([]historyMessage, error) {
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
		return nil, err
	}
	var out []historyMessage
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
		if len(text) > 0 {
			out = append(out, historyMessage{Role: m.Role, Text: strings.Join(text, "\n")})
		}
	}
	return out, nil
}

// parseApproval reads an exec.approval.requested payload.
func parseApproval(payload []byte) (tools.Pending, bool) {
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
	if json.Unmarshal(payload, &ev) != nil || ev.ID == "" {
		return tools.Pending{}, false
	}
	return tools.Pending{ID: ev.ID, Tool: ev.Request.Tool, Args: ev.Request.Args, Reason: ev.Request.Reason,
		AgentID: ev.Request.AgentID, SessionKey: ev.Request.SessionKey, CreatedAt: ev.CreatedAtMs, ExpiresAt: ev.ExpiresAtMs}, true
}

// chatTurn sends one line and prints the streamed answer until the run
// ends. A line typed meanwhile that says /abort stops it.
// Lines typed meanwhile are answered at once when they are /abort or
// /approve, and otherwise queued on typedAhead for after the turn.
func (a *app) chatTurn(ctx context.Context, s *session, events <-chan protocol.Inbound, lines <-chan string, typedAhead *[]string,
	key, text string, deliver bool, extra map[string]any) error {
	runID, err := chatSend(ctx, s, key, text, deliver, extra)
	if err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			// Ctrl-C: leaving would not stop the run on the gateway.
			abortCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			err := chatAbort(abortCtx, s, key, runID)
			cancel()
			if err != nil {
				return fmt.Errorf("interrupted; could not abort run %s: %w", runID, err)
			}
			fmt.Fprintln(a.stdout, "\n[aborted]")
			return nil
		case l, ok := <-lines:
			if !ok {
				// End of input mid-answer: the answer is still shown; a
				// closed channel would otherwise be ready forever.
				lines = nil
				continue
			}
			l = strings.TrimSpace(l)
			switch {
			case l == "/abort":
				chatAbort(ctx, s, key, runID)
			case strings.HasPrefix(l, "/approve"):
				a.approve(ctx, s, l)
			case l != "":
				*typedAhead = append(*typedAhead, l)
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
			if json.Unmarshal(ev.Payload, &ce) != nil || ce.RunID != runID {
				continue
			}
			switch ce.State {
			case "delta":
				if ce.Replace {
					fmt.Fprintln(a.stdout, "\n[retrying with another model]")
				}
				fmt.Fprint(a.stdout, tui.Sanitize(ce.DeltaText))
			case "final":
				fmt.Fprintln(a.stdout)
				return nil
			case "aborted":
				fmt.Fprintln(a.stdout, "\n[aborted]")
				return nil
			case "error":
				fmt.Fprintln(a.stdout)
				return fmt.Errorf("error: %s", tui.Sanitize(ce.ErrorMessage))
			}
		}
	}
}

// showApproval prints a pending approval of this session: what waits,
// why, its id and how to answer, as OpenClaw's approval notice does.
func (a *app) showApproval(payload []byte, key string) {
	p, ok := parseApproval(payload)
	if !ok || p.SessionKey != key {
		return
	}
	fmt.Fprintf(a.stdout, "\n[%s]\n", tui.Sanitize(p.Notice()))
}

// approve answers "/approve <id> <decision>".
func (a *app) approve(ctx context.Context, s *session, line string) {
	f := strings.Fields(line)
	if len(f) != 3 {
		fmt.Fprintln(a.stderr, "usage: /approve <id> allow-once|allow-always|deny")
		return
	}
	if err := resolveApproval(ctx, s, f[1], f[2]); err != nil {
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
	msgs, err := chatHistory(ctx, s, key, n)
	if err != nil {
		return err
	}
	for _, m := range msgs {
		who := "you"
		if m.Role == "assistant" {
			who = "agent"
		}
		fmt.Fprintf(a.stdout, "%s: %s\n", who, tui.Sanitize(m.Text))
	}
	return nil
}

func init() { registerCommand("", newChatCmd) }

// newChatCmd is `openclaw chat`: as in OpenClaw, the terminal UI (here
// against the gateway this machine runs, since there is no embedded
// runtime). --plain, or a stdin that is no terminal (a pipe, a script),
// is line mode instead.
func newChatCmd(a *app) *cobra.Command {
	var (
		t                   *tuiFlags
		plain               bool
		agentID, sessionKey string
		history             int
	)
	c := &cobra.Command{
		Use:   "chat [target]",
		Short: "chat with an agent in the terminal (the TUI; --plain for line mode)",
		Long: "Chat with an agent session of the gateway in the terminal UI (as `openclaw tui`).\n" +
			"With --plain, or when stdin is not a terminal, chat line by line instead:\n" +
			"each line is sent and the answer streamed; /abort, /model, /approve, /quit work there too.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			target := ""
			if len(args) == 1 {
				target = args[0]
			}
			if err := t.check(c.Flags(), target, a.stderr); err != nil {
				return err
			}
			if plain || !isTTY(a.stdin) {
				n := history
				if c.Flags().Changed("history-limit") {
					n = t.historyLimit
				}
				return a.plainChat(c.Context(), t.g, plainChatOptions{agentID: agentID, sessionKey: sessionKey, session: t.session, history: n, message: t.message,
					deliver: t.deliver, thinking: t.thinking, timeoutMs: t.timeoutMs})
			}
			return a.runTUI(c.Context(), t)
		},
	}
	f := c.Flags()
	t = addTUIFlags(f, a)
	f.BoolVar(&plain, "plain", false, "line mode: read lines from stdin, print answers as they stream")
	f.StringVar(&agentID, "agent", "", "line mode: agent `id` (default: the gateway's default agent)")
	f.StringVar(&sessionKey, "session-key", "", "line mode: full session `key` (as --session)")
	f.IntVar(&history, "history", 20, "line mode: how many earlier messages to show")
	return c
}
