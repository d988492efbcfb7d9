package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

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
	fs := newFlagSet(a, "openclaw agent --message TEXT [--agent ID] [--session-key KEY] [flags]")
	var timeoutS int
	g := fs.agentGatewayFlags(&timeoutS)
	agentID := fs.String("agent", "", "agent `id` (default: the gateway's default agent)")
	message := fs.StringP("message", "m", "", "the message to send")
	sessionKey := fs.String("session-key", "", "session `key` (default: the agent's main session)")
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	if strings.TrimSpace(*message) == "" {
		return usageErrorf("agent: --message is required")
	}
	if timeoutS <= 0 {
		return usageErrorf("agent: --timeout must be a positive number of seconds")
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
		} `json:"result"`
	}
	var raw json.RawMessage
	params := map[string]any{"message": *message, "agentId": *agentID, "deliver": false, "timeout": timeoutS, "idempotencyKey": runID}
	if *sessionKey != "" {
		params["sessionKey"] = *sessionKey
	}
	if err := s.call(ctx, "agent", params, &raw, true); err != nil {
		if interrupted.Err() != nil {
			// Leaving would not stop the run on the gateway: abort it.
			return a.abortRun(s, *sessionKey, *agentID, runID)
		}
		return err
	}
	if g.json {
		return writeJSON(a.stdout, raw)
	}
	json.Unmarshal(raw, &out)
	s.Close() // ends the event stream
	if !<-streamed {
		for _, p := range out.Result.Payloads {
			fmt.Fprint(a.stdout, p.Text)
		}
	}
	fmt.Fprintln(a.stdout)
	if out.Status != "ok" {
		return fmt.Errorf("agent run %s: %s", out.Status, out.Summary)
	}
	return nil
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
