package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/google/uuid"
	"github.com/spf13/cobra"
	flag "github.com/spf13/pflag"

	"github.com/openclaw-go/openclaw/cmd/openclaw/internal/tui"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

func init() { registerCommand("", newTUICmd) }

// tuiFlags are the flags of `openclaw tui` (and of `openclaw chat`), as
// OpenClaw names them.
type tuiFlags struct {
	g            *gatewayFlags
	local        bool
	session      string
	deliver      bool
	thinking     string
	message      string
	timeoutMs    int
	historyLimit int
	pickSession  bool // open on the session picker (resume)
}

func addTUIFlags(f *flag.FlagSet, a *app) *tuiFlags {
	t := &tuiFlags{g: addGatewayFlags(f, a)}
	f.BoolVar(&t.local, "local", false, "run against the local embedded agent runtime (not available here: use the gateway)")
	f.StringVar(&t.session, "session", "", "session `key` (default: the agent's main session; \"main\" means agent:<agent>:main)")
	f.BoolVar(&t.deliver, "deliver", false, "deliver assistant replies through the agent's chat channel")
	f.StringVar(&t.thinking, "thinking", "", "thinking `level` override for this session's turns")
	f.StringVar(&t.message, "message", "", "send this `text` after connecting")
	f.IntVar(&t.timeoutMs, "timeout-ms", 0, "agent timeout in `ms` (default: the agent's)")
	f.IntVar(&t.historyLimit, "history-limit", 200, "history entries to load on attach")
	return t
}

// check refuses what OpenClaw refuses, and what this gateway client
// cannot do; target is the positional session reference, if any.
func (t *tuiFlags) check(f *flag.FlagSet, target string, stderr io.Writer) error {
	if t.local {
		return usageErrorf("--local (the embedded agent runtime) is not available in this build; start the gateway (openclaw gateway) and run without --local")
	}
	if target != "" {
		if strings.Contains(target, "://") {
			return usageErrorf("a URL target is not supported; pass --url and --session")
		}
		if f.Changed("session") {
			return usageErrorf("a target cannot combine with --session")
		}
		t.session = target
	}
	if t.thinking != "" && !slices.Contains(thinkingLevels, strings.ToLower(t.thinking)) {
		return usageErrorf("--thinking %q: one of %s", t.thinking, strings.Join(thinkingLevels, ", "))
	}
	if t.historyLimit < 0 {
		return usageErrorf("--history-limit must be a number of entries, not %d", t.historyLimit)
	}
	if t.timeoutMs < 0 {
		fmt.Fprintf(stderr, "warning: --timeout-ms %d is not a timeout; ignored\n", t.timeoutMs)
		t.timeoutMs = 0
	}
	return nil
}

// thinkingLevels are the levels --thinking takes (a model may offer
// fewer; the gateway says so on the first send).
var thinkingLevels = []string{"off", "minimal", "low", "medium", "high", "xhigh", "max"}

func newTUICmd(a *app) *cobra.Command {
	var t *tuiFlags
	c := &cobra.Command{
		Use:     "tui [target]",
		Aliases: []string{"terminal"},
		Short:   "open a terminal UI connected to the gateway",
		Long: "Open a full-screen chat with an agent session of the gateway.\n\n" +
			"target is a session key (agent:<id>:<key>, or a key of the default agent).\n" +
			"Inside, /help lists the commands; Ctrl+C twice or Ctrl+D leaves.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			target := ""
			if len(args) == 1 {
				target = args[0]
			}
			if err := t.check(c.Flags(), target, a.stderr); err != nil {
				return err
			}
			return a.runTUI(c.Context(), t)
		},
	}
	t = addTUIFlags(c.Flags(), a)
	return c
}

// runTUI connects and runs the full-screen chat until the user leaves.
func (a *app) runTUI(ctx context.Context, t *tuiFlags) error {
	in, inOK := a.stdin.(*os.File)
	out, outOK := a.stdout.(*os.File)
	if !inOK || !outOK || !isTerminal(in) || !isTerminal(out) {
		return usageErrorf("the terminal UI needs a terminal; use `openclaw chat --plain` for line mode")
	}
	s, err := a.connect(ctx, t.g, chatScopes)
	if err != nil {
		return err
	}
	defer s.Close()
	b := newGatewayBackend(s, t)
	err = tui.Run(ctx, b, tui.Options{
		URL:            s.target.url,
		SessionKey:     t.session,
		HistoryLimit:   t.historyLimit,
		InitialMessage: t.message,
		Deliver:        t.deliver,
		Thinking:       t.thinking,
		NewID:          func() string { return uuid.NewString()[:8] },
		PickSession:    t.pickSession,
	}, tea.WithAltScreen(), tea.WithInput(in), tea.WithOutput(out))
	if err != nil {
		return fmt.Errorf("tui: %w", err)
	}
	return nil
}

// gatewayBackend is the TUI's Backend over one gateway connection.
type gatewayBackend struct {
	s        *session
	deliver  bool
	thinking string
	timeout  int
	events   chan tui.Event
	thought  map[string]bool // sessions whose thinking level was set
}

func newGatewayBackend(s *session, t *tuiFlags) *gatewayBackend {
	b := &gatewayBackend{s: s, deliver: t.deliver, thinking: t.thinking, timeout: t.timeoutMs,
		events: make(chan tui.Event, 256), thought: map[string]bool{}}
	go b.translate(s.Events())
	return b
}

func (b *gatewayBackend) Events() <-chan tui.Event { return b.events }

func (b *gatewayBackend) Send(ctx context.Context, key, text string) (string, error) {
	extra := map[string]any{}
	if b.timeout > 0 {
		extra["timeoutMs"] = b.timeout
	}
	if b.thinking != "" {
		extra["thinking"] = b.thinking
		if !b.thought[key] {
			// This gateway takes the level from the session, not from
			// chat.send: keep it there too, as `openclaw agent
			// --thinking` does.
			if err := b.s.call(ctx, "sessions.patch", map[string]any{"key": key, "thinkingLevel": b.thinking}, nil, false); err != nil {
				return "", fmt.Errorf("--thinking %s: %w", b.thinking, err)
			}
			b.thought[key] = true
		}
	}
	return chatSend(ctx, b.s, key, text, b.deliver, extra)
}

func (b *gatewayBackend) Abort(ctx context.Context, key, runID string) error {
	return chatAbort(ctx, b.s, key, runID)
}

func (b *gatewayBackend) History(ctx context.Context, key string, n int) ([]tui.Message, error) {
	msgs, err := chatHistory(ctx, b.s, key, n)
	if err != nil {
		return nil, err
	}
	out := make([]tui.Message, len(msgs))
	for i, m := range msgs {
		out[i] = tui.Message{Role: m.Role, Text: m.Text}
	}
	return out, nil
}

func (b *gatewayBackend) Sessions(ctx context.Context, agentID string) ([]tui.Session, error) {
	var res struct {
		Sessions []struct {
			Key         string `json:"key"`
			Label       string `json:"label"`
			DisplayName string `json:"displayName"`
			UpdatedAt   int64  `json:"updatedAt"`
		} `json:"sessions"`
	}
	// As OpenClaw's picker: up to 50 of the agent's sessions of the last
	// 7 days.
	params := map[string]any{"limit": 50, "activeMinutes": 7 * 24 * 60}
	if agentID != "" {
		params["agentId"] = agentID
	}
	if err := b.s.call(ctx, "sessions.list", params, &res, false); err != nil {
		return nil, err
	}
	out := make([]tui.Session, 0, len(res.Sessions))
	for _, r := range res.Sessions {
		label := r.Label
		if label == "" {
			label = r.DisplayName
		}
		out = append(out, tui.Session{Key: r.Key, Label: label, UpdatedAt: r.UpdatedAt})
	}
	return out, nil
}

func (b *gatewayBackend) Agents(ctx context.Context) (tui.Agents, error) {
	var res struct {
		DefaultID string `json:"defaultId"`
		MainKey   string `json:"mainKey"`
		Scope     string `json:"scope"`
		Agents    []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"agents"`
	}
	if err := b.s.call(ctx, "agents.list", map[string]any{}, &res, false); err != nil {
		return tui.Agents{}, err
	}
	out := tui.Agents{DefaultID: strings.ToLower(res.DefaultID), MainKey: res.MainKey, Scope: res.Scope}
	for _, r := range res.Agents {
		out.List = append(out.List, tui.Agent{ID: r.ID, Name: r.Name})
	}
	return out, nil
}

func (b *gatewayBackend) Models(ctx context.Context) ([]string, error) {
	var res struct {
		Models []struct {
			ID       string `json:"id"`
			Provider string `json:"provider"`
		} `json:"models"`
	}
	if err := b.s.call(ctx, "models.list", map[string]any{}, &res, false); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(res.Models))
	for _, m := range res.Models {
		out = append(out, m.Provider+"/"+m.ID)
	}
	return out, nil
}

func (b *gatewayBackend) SetModel(ctx context.Context, key, model string) error {
	return setSessionModel(ctx, b.s, key, model)
}

func (b *gatewayBackend) Reset(ctx context.Context, key string) error {
	return b.s.call(ctx, "sessions.reset", map[string]any{"key": key}, nil, false)
}

func (b *gatewayBackend) ResolveApproval(ctx context.Context, id, decision string) error {
	return resolveApproval(ctx, b.s, id, decision)
}

// translate turns the connection's events into the TUI's until the
// connection ends.
func (b *gatewayBackend) translate(in <-chan protocol.Inbound) {
	defer close(b.events)
	for ev := range in {
		if e, ok := tuiEvent(ev.Event, ev.Payload); ok {
			b.events <- e
		}
	}
}

// tuiEvent reads one gateway event the TUI shows: chat streams, agent
// tool events and approvals.
func tuiEvent(name string, payload []byte) (tui.Event, bool) {
	switch name {
	case "chat":
		var ce struct {
			chatEvent
			SessionKey string `json:"sessionKey"`
			Message    struct {
				Content []struct {
					Type string `json:"type"`
					Text string `json:"text"`
				} `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(payload, &ce) != nil {
			return tui.Event{}, false
		}
		e := tui.Event{RunID: ce.RunID, SessionKey: ce.SessionKey}
		switch ce.State {
		case "delta":
			e.Kind, e.Text, e.Replace = tui.EventDelta, ce.DeltaText, ce.Replace
		case "final":
			e.Kind = tui.EventFinal
			var parts []string
			for _, c := range ce.Message.Content {
				if c.Type == "text" && c.Text != "" {
					parts = append(parts, c.Text)
				}
			}
			e.Text = strings.Join(parts, "\n")
		case "aborted":
			e.Kind = tui.EventAborted
		case "error":
			e.Kind, e.Text = tui.EventError, ce.ErrorMessage
		default:
			return tui.Event{}, false
		}
		return e, true
	case "agent":
		var ae struct {
			RunID      string `json:"runId"`
			Stream     string `json:"stream"`
			SessionKey string `json:"sessionKey"`
			Data       struct {
				Phase      string          `json:"phase"`
				Name       string          `json:"name"`
				ToolCallID string          `json:"toolCallId"`
				Args       json.RawMessage `json:"args"`
				IsError    bool            `json:"isError"`
				Result     json.RawMessage `json:"result"`
			} `json:"data"`
		}
		if json.Unmarshal(payload, &ae) != nil || ae.Stream != "tool" {
			return tui.Event{}, false
		}
		e := tui.Event{RunID: ae.RunID, SessionKey: ae.SessionKey, ToolID: ae.Data.ToolCallID, ToolName: ae.Data.Name,
			ToolArgs: rawText(ae.Data.Args), ToolError: ae.Data.IsError}
		switch ae.Data.Phase {
		case "start":
			e.Kind = tui.EventToolStart
		case "result", "end":
			e.Kind, e.Text = tui.EventToolResult, rawText(ae.Data.Result)
		default:
			return tui.Event{}, false
		}
		return e, true
	case tools.EventApprovalRequested:
		p, ok := parseApproval(payload)
		if !ok {
			return tui.Event{}, false
		}
		return tui.Event{Kind: tui.EventApproval, SessionKey: p.SessionKey, Approval: tui.Approval{
			ID: p.ID, SessionKey: p.SessionKey, Tool: p.Tool, Args: p.Args, Reason: p.Reason, ExpiresAtMs: p.ExpiresAt}}, true
	case tools.EventApprovalResolved:
		var r struct {
			ID       string `json:"id"`
			Decision string `json:"decision"`
		}
		if json.Unmarshal(payload, &r) != nil || r.ID == "" {
			return tui.Event{}, false
		}
		return tui.Event{Kind: tui.EventApprovalResolved, Text: r.Decision, Approval: tui.Approval{ID: r.ID}}, true
	}
	return tui.Event{}, false
}

// rawText is a JSON value as text: a string's contents, else the JSON.
func rawText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// isTTY reports whether r is a terminal.
func isTTY(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && isTerminal(f)
}
