package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

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
	message := fs.String("message", "", "the message to send")
	fs.StringVar(message, "m", "", "the message to send (short for --message)")
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

func isResetCommand(msg string) bool {
	first, _, _ := strings.Cut(strings.TrimSpace(msg), " ")
	first = strings.ToLower(first)
	return first == "/new" || first == "/reset"
}
