package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// agentFlags are the gateway flags of the agent and chat commands, whose
// --timeout counts seconds of the whole run, as in OpenClaw's CLI.
func (fs *flagSet) agentGatewayFlags(timeoutSeconds *int) *gatewayFlags {
	g := &gatewayFlags{}
	fs.StringVar(&g.url, "url", "", "gateway WebSocket `url` (ws:// or wss://)")
	fs.StringVar(&g.token, "token", "", "gateway shared `token`")
	fs.StringVar(&g.password, "password", "", "gateway shared `password`")
	fs.IntVar(timeoutSeconds, "timeout", 600, "run timeout in `seconds`")
	fs.BoolVar(&g.dev, "dev", fs.app.dev, "use the dev profile (~/.openclaw-dev, port 19001)")
	fs.BoolVar(&g.json, "json", false, "print machine-readable JSON")
	return g
}

// chatEvent is the part of a chat event the terminal shows.
type chatEvent struct {
	RunID        string `json:"runId"`
	State        string `json:"state"`
	DeltaText    string `json:"deltaText"`
	Replace      bool   `json:"replace"`
	ErrorMessage string `json:"errorMessage"`
}

// runAgent serves `openclaw agent --agent ID --message TEXT`: one turn,
// streamed to the terminal (or the final result with --json).
func runAgent(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw agent --message TEXT [--agent ID] [--session-key KEY] [--deliver --reply-channel C --reply-to T] [flags]")
	var timeoutS int
	g := fs.agentGatewayFlags(&timeoutS)
	agentID := fs.String("agent", "", "agent `id` (default: the gateway's default agent)")
	message := fs.StringP("message", "m", "", "the message to send")
	messageFile := fs.String("message-file", "", "read the message from a UTF-8 `file` (at most 4 MiB; - for stdin)")
	sessionKey := fs.String("session-key", "", "session `key` (default: the agent's main session)")
	sessionID := fs.String("session-id", "", "use the session with this `id`")
	model := fs.String("model", "", "model for this run only (provider/model or an alias the allowlist admits)")
	thinking := fs.String("thinking", "", "persist this thinking `level` for the session (off|minimal|low|medium|high|xhigh)")
	verbose := fs.String("verbose", "", "persist the session's verbose `level` (on|full|off)")
	deliver := fs.Bool("deliver", false, "send the reply to a chat: --reply-channel/--reply-to, else --channel/--to, else the agent's last chat")
	to := fs.StringP("to", "t", "", "delivery `target` (a chat id, or channel:id)")
	channel := fs.String("channel", "", "delivery `channel` (telegram, discord, slack, whatsapp; last = the agent's last chat)")
	replyTo := fs.String("reply-to", "", "delivery `target` override")
	replyChannel := fs.String("reply-channel", "", "delivery `channel` override")
	replyAccount := fs.String("reply-account", "", "delivery account `id` override")
	local := fs.Bool("local", false, "run without the gateway (not available: turns run in the gateway)")
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	if *local {
		return usageErrorf("agent: --local is not available; this binary's agents run in the gateway (start it with `openclaw gateway`)")
	}
	for name, v := range map[string]*string{"--agent": agentID, "--session-key": sessionKey, "--session-id": sessionID, "--to": to} {
		if fs.Changed(strings.TrimPrefix(name, "--")) && strings.TrimSpace(*v) == "" {
			return usageErrorf("agent: %s is empty; leave it out instead", name)
		}
	}
	if *messageFile != "" {
		if *message != "" {
			return usageErrorf("agent: pass --message or --message-file, not both")
		}
		text, err := readMessageFile(a, *messageFile)
		if err != nil {
			return err
		}
		*message = text
	}
	if strings.TrimSpace(*message) == "" {
		return usageErrorf("agent: --message is required")
	}
	if timeoutS <= 0 {
		return usageErrorf("agent: --timeout must be a positive number of seconds")
	}
	if *thinking != "" && !slices.Contains([]string{"off", "minimal", "low", "medium", "high", "xhigh"}, *thinking) {
		return usageErrorf("agent: --thinking %q: one of off, minimal, low, medium, high, xhigh", *thinking)
	}
	if *verbose != "" && !slices.Contains([]string{"on", "full", "off"}, *verbose) {
		return usageErrorf("agent: --verbose %q: one of on, full, off", *verbose)
	}
	if !*deliver && (*replyTo != "" || *replyChannel != "" || *replyAccount != "") {
		return usageErrorf("agent: --reply-to, --reply-channel and --reply-account take effect with --deliver")
	}
	g.timeoutMs = (timeoutS + 30) * 1000
	interrupted := ctx // cancelled by Ctrl-C (SIGINT) or SIGTERM
	ctx, cancel := context.WithTimeout(ctx, g.timeout())
	defer cancel()
	// The operator's turn is the owner's: its tools run with admin's
	// rights (see actsAsOwner), and a reset needs admin anyway.
	s, err := a.connect(ctx, g, []string{string(protocol.ScopeWrite), string(protocol.ScopeAdmin)})
	if err != nil {
		return err
	}
	defer s.Close()

	runID := uuid.NewString()
	streamed := make(chan bool, 1)
	if !g.json {
		go func() {
			any := false
			for ev := range s.Events() {
				if ev.Event != "chat" {
					continue
				}
				var ce chatEvent
				if json.Unmarshal(ev.Payload, &ce) != nil || ce.RunID != runID {
					continue
				}
				if ce.State == "delta" && ce.DeltaText != "" {
					fmt.Fprint(a.stdout, ce.DeltaText)
					any = true
				}
			}
			streamed <- any
		}()
	}
	var out struct {
		RunID   string `json:"runId"`
		Status  string `json:"status"`
		Summary string `json:"summary"`
		Result  struct {
			Payloads []struct {
				Text string `json:"text"`
			} `json:"payloads"`
			Meta struct {
				AgentMeta struct {
					SessionKey string `json:"sessionKey"`
				} `json:"agentMeta"`
			} `json:"meta"`
			DeliveryStatus *struct {
				Status string `json:"status"`
				Reason string `json:"reason"`
				Error  string `json:"error"`
			} `json:"deliveryStatus"`
		} `json:"result"`
	}
	var raw json.RawMessage
	if *sessionID != "" {
		var res struct {
			Key string `json:"key"`
		}
		if err := s.call(ctx, "sessions.resolve", map[string]any{"sessionId": *sessionID, "agentId": *agentID}, &res, false); err != nil {
			return err
		}
		if *sessionKey != "" && *sessionKey != res.Key {
			return usageErrorf("agent: --session-id %s is session %s, not --session-key %s", *sessionID, res.Key, *sessionKey)
		}
		*sessionKey = res.Key
	}
	params := map[string]any{"message": *message, "agentId": *agentID, "deliver": *deliver, "timeout": timeoutS, "idempotencyKey": runID}
	for k, v := range map[string]string{"sessionKey": *sessionKey, "model": *model, "to": *to, "channel": *channel,
		"replyTo": *replyTo, "replyChannel": *replyChannel, "replyAccountId": *replyAccount} {
		if v != "" {
			params[k] = v
		}
	}
	if err := s.call(ctx, "agent", params, &raw, true); err != nil {
		if interrupted.Err() != nil {
			// Leaving would not stop the run on the gateway: abort it.
			return a.abortRun(s, *sessionKey, *agentID, runID)
		}
		return err
	}
	json.Unmarshal(raw, &out)
	if *thinking != "" || *verbose != "" {
		// As in the real CLI, these persist into the session the run used.
		patch := map[string]any{"key": out.Result.Meta.AgentMeta.SessionKey}
		if *thinking != "" {
			patch["thinkingLevel"] = *thinking
		}
		if *verbose != "" {
			patch["verboseLevel"] = *verbose
		}
		if err := s.call(ctx, "sessions.patch", patch, nil, false); err != nil {
			return fmt.Errorf("agent: the run ended but --thinking/--verbose were not saved: %w", err)
		}
	}
	if g.json {
		if err := writeJSON(a.stdout, raw); err != nil {
			return err
		}
	} else {
		s.Close() // ends the event stream
		if !<-streamed {
			for _, p := range out.Result.Payloads {
				fmt.Fprint(a.stdout, p.Text)
			}
		}
		fmt.Fprintln(a.stdout)
	}
	if out.Status != "ok" {
		return quietIf(g.json, fmt.Errorf("agent run %s: %s", out.Status, out.Summary))
	}
	if d := out.Result.DeliveryStatus; d != nil && d.Status == "failed" {
		return quietIf(g.json, fmt.Errorf("agent: the reply was not delivered: %s", d.Error))
	}
	if d := out.Result.DeliveryStatus; d != nil && d.Status == "suppressed" && !g.json {
		fmt.Fprintf(a.stderr, "Not delivered (%s).\n", d.Reason)
	}
	return nil
}

// quietIf is err, already reported when the JSON result said it (so
// stdout holds one JSON document and the exit code says it failed).
func quietIf(printed bool, err error) error {
	if printed {
		return reported(err)
	}
	return err
}

// readMessageFile reads --message-file: at most 4 MiB of UTF-8, "-" for
// stdin, without a leading byte-order mark.
func readMessageFile(a *app, path string) (string, error) {
	const max = 4 << 20
	var r io.Reader = a.stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return "", usageErrorf("agent: --message-file: %v", err)
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return "", fmt.Errorf("agent: read --message-file: %w", err)
	}
	if len(b) > max {
		return "", usageErrorf("agent: --message-file %s is larger than 4 MiB", path)
	}
	if !utf8.Valid(b) {
		return "", usageErrorf("agent: --message-file %s is not UTF-8 text", path)
	}
	return strings.TrimPrefix(string(b), "\ufeff"), nil
}

// abortRun stops a run the user interrupted, on a context of its own
// (the command's is cancelled), and reports the interruption as an error
// so the command exits non-zero.
func (a *app) abortRun(s *session, sessionKey, agentID, runID string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if sessionKey == "" {
		key, err := a.mainSessionKey(ctx, s, agentID)
		if err != nil {
			return fmt.Errorf("interrupted; could not abort run %s: %w", runID, err)
		}
		sessionKey = key
	}
	var out struct {
		Aborted bool `json:"aborted"`
	}
	if err := s.call(ctx, "chat.abort", map[string]any{"sessionKey": sessionKey, "runId": runID}, &out, false); err != nil {
		return fmt.Errorf("interrupted; could not abort run %s: %w", runID, err)
	}
	fmt.Fprintln(a.stdout)
	if !out.Aborted {
		return fmt.Errorf("interrupted; run %s had already ended", runID)
	}
	return fmt.Errorf("interrupted: run %s aborted", runID)
}

// mainSessionKey is an agent's main session ("" = the default agent).
func (a *app) mainSessionKey(ctx context.Context, s *session, agentID string) (string, error) {
	var agents struct {
		DefaultID string `json:"defaultId"`
		MainKey   string `json:"mainKey"`
	}
	if err := s.call(ctx, "agents.list", map[string]any{}, &agents, false); err != nil {
		return "", err
	}
	if agentID == "" {
		agentID = agents.DefaultID
	}
	return "agent:" + strings.ToLower(agentID) + ":" + agents.MainKey, nil
}

func isResetCommand(msg string) bool {
	first, _, _ := strings.Cut(strings.TrimSpace(msg), " ")
	first = strings.ToLower(first)
	return first == "/new" || first == "/reset"
}
