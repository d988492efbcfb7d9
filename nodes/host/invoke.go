package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// Command names.
const (
	CmdSystemRun            = "system.run"
	CmdSystemRunPrepare     = "system.run.prepare"
	CmdSystemWhich          = "system.which"
	CmdSystemNotify         = "system.notify"
	CmdExecApprovalsGet     = "system.execApprovals.get"
	CmdExecApprovalsSet     = "system.execApprovals.set"
	maxWhichBins            = 256
	notifyTimeout           = 10 * time.Second
	invokeResultSendTimeout = 15 * time.Second
)

// hostUnsupported are commands of desktop and mobile nodes that a
// headless host never declares.
var hostUnsupported = []string{"camera.list", "camera.snap", "camera.clip", "screen.record", "screen.snapshot", "location.get"}

// handler serves one command. timeout is the invoke request's (0 = none).
type handler func(ctx context.Context, params json.RawMessage, timeout time.Duration) (any, *protocol.Error)

// handlers is the command table of this host, with what each needs.
func (h *Host) handlers() map[string]handler {
	m := map[string]handler{
		CmdSystemRunPrepare: h.prepare,
		CmdSystemRun:        h.run,
		CmdSystemWhich:      h.which,
		CmdExecApprovalsGet: h.approvalsGet,
		CmdExecApprovalsSet: h.approvalsSet,
		CmdFsListDir:        h.listDir,
	}
	if _, err := h.lookPath("notify-send"); err == nil {
		m[CmdSystemNotify] = h.notify
	}
	return m
}

// SupportedCommands lists what this host can serve, sorted.
func (h *Host) SupportedCommands() []string {
	out := make([]string, 0, len(h.all))
	for name := range h.all {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// invokeRequest is the payload of a node.invoke.request event.
type invokeRequest struct {
	ID             string          `json:"id"`
	NodeID         string          `json:"nodeId"`
	Command        string          `json:"command"`
	ParamsJSON     *string         `json:"paramsJSON,omitempty"`
	Params         json.RawMessage `json:"params,omitempty"`
	TimeoutMs      int64           `json:"timeoutMs,omitempty"`
	IdempotencyKey string          `json:"idempotencyKey,omitempty"`
}

// invokeResult is the params of the node.invoke.result request.
type invokeResult struct {
	ID          string       `json:"id"`
	NodeID      string       `json:"nodeId"`
	OK          bool         `json:"ok"`
	PayloadJSON string       `json:"payloadJSON,omitempty"`
	Error       *resultError `json:"error,omitempty"`
}

type resultError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// invoke runs one request and builds its result.
func (h *Host) invoke(ctx context.Context, req invokeRequest) invokeResult {
	res := invokeResult{ID: req.ID, NodeID: req.NodeID}
	if res.NodeID == "" {
		res.NodeID = h.identity.ID
	}
	params := req.Params
	if req.ParamsJSON != nil {
		params = json.RawMessage(*req.ParamsJSON)
	}
	payload, perr := h.dispatch(ctx, req.Command, params, time.Duration(req.TimeoutMs)*time.Millisecond)
	if perr != nil {
		res.Error = &resultError{Code: perr.Code, Message: perr.Message}
		return res
	}
	data, err := json.Marshal(payload)
	if err != nil {
		res.Error = &resultError{Code: protocol.CodeUnavailable, Message: "node invocation failed: encode result: " + err.Error()}
		return res
	}
	res.OK, res.PayloadJSON = true, string(data)
	return res
}

// dispatch routes a command to its handler; only declared commands run.
func (h *Host) dispatch(ctx context.Context, command string, params json.RawMessage, timeout time.Duration) (any, *protocol.Error) {
	if slices.Contains(hostUnsupported, command) {
		return nil, unavailable("%s is unsupported on this host (headless node without camera, screen or location)", command)
	}
	fn, ok := h.declared[command]
	if !ok {
		return nil, unavailable("command not supported: %s", command)
	}
	if params != nil && !json.Valid(params) {
		return nil, invalid("paramsJSON is not valid JSON")
	}
	return fn(ctx, params, timeout)
}

// decodeParams decodes params strictly into v; absent params decode as {}.
func decodeParams(raw json.RawMessage, v any) *protocol.Error {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(v); err != nil {
		return invalid("%v", err)
	}
	return nil
}

// which serves system.which {bins[]}: the absolute path of each name
// found on the node's PATH; names not found are left out.
func (h *Host) which(_ context.Context, raw json.RawMessage, _ time.Duration) (any, *protocol.Error) {
	var p struct {
		Bins []string `json:"bins"`
	}
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if len(p.Bins) == 0 {
		return nil, invalid("bins required (a non-empty array of command names)")
	}
	if len(p.Bins) > maxWhichBins {
		return nil, invalid("bins has %d names, limit %d", len(p.Bins), maxWhichBins)
	}
	out := map[string]string{}
	for i, name := range p.Bins {
		name = strings.TrimSpace(name)
		if name == "" || strings.ContainsAny(name, "/\\\x00") {
			return nil, invalid("bins[%d] %q is not a command name", i, p.Bins[i])
		}
		if path, err := h.lookPath(name); err == nil {
			out[name] = path
		}
	}
	return map[string]any{"bins": out}, nil
}

// notify serves system.notify {title, body} with notify-send.
func (h *Host) notify(ctx context.Context, raw json.RawMessage, _ time.Duration) (any, *protocol.Error) {
	var p struct {
		Title    string `json:"title"`
		Body     string `json:"body"`
		Priority string `json:"priority,omitempty"`
		Delivery string `json:"delivery,omitempty"`
	}
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if strings.TrimSpace(p.Title) == "" && strings.TrimSpace(p.Body) == "" {
		return nil, invalid("title or body required")
	}
	bin, err := h.lookPath("notify-send")
	if err != nil {
		return nil, unavailable("system.notify is unavailable: notify-send is not installed on this node")
	}
	urgency := "normal"
	switch p.Priority {
	case "passive":
		urgency = "low"
	case "timeSensitive":
		urgency = "critical"
	}
	ctx, cancel := context.WithTimeout(ctx, notifyTimeout)
	defer cancel()
	// "--" ends options: a title starting with "-" is not read as one.
	out, err := exec.CommandContext(ctx, bin, "--urgency="+urgency, "--app-name=OpenClaw", "--", p.Title, p.Body).CombinedOutput()
	if err != nil {
		return nil, unavailable("system.notify failed: %v: %s", err, truncate(string(out), 500))
	}
	return map[string]any{"ok": true}, nil
}

func truncate(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// validateCommands checks a --commands list against what this host
// supports and returns the declared table.
func (h *Host) validateCommands(want []string) (map[string]handler, error) {
	if len(want) == 0 {
		return h.all, nil
	}
	out := map[string]handler{}
	for _, name := range want {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if slices.Contains(hostUnsupported, name) {
			return nil, fmt.Errorf("command %s is unsupported on this host (headless node without camera, screen or location)", name)
		}
		fn, ok := h.all[name]
		if !ok {
			return nil, fmt.Errorf("command %s is not supported by this node host (supported: %s)", name,
				strings.Join(h.SupportedCommands(), ", "))
		}
		out[name] = fn
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no commands to declare")
	}
	return out, nil
}
