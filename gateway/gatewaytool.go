package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/tools"
)

// gatewayToolArgs are the gateway tool's arguments.
type gatewayToolArgs struct {
	Action  string `json:"action" jsonschema:"enum=restart,enum=config.get,enum=config.schema,enum=config.apply,enum=config.patch"`
	Raw     string `json:"raw,omitempty" jsonschema:"description=JSON5 config (config.apply) or merge patch (config.patch)"`
	DelayMs int    `json:"delayMs,omitempty" jsonschema:"description=Milliseconds before a restart (default 2000)"`
}

// gatewayTool lets an agent read and change the gateway's config and
// restart it (only with commands.restart). Writes go through the same
// validation as the config RPCs; secrets are never shown.
func (s *System) gatewayTool() tools.Tool {
	return tools.NewTyped(tools.Spec{
		Name: "gateway", Description: "Read or change this gateway's config (config.get, config.schema, config.apply, config.patch) or restart it.",
		Source: tools.SourceCore, Groups: []string{"group:openclaw"}, Dangerous: true, Timeout: tools.TimeoutFast,
	}, func(ctx context.Context, c tools.Call, a gatewayToolArgs) (tools.Result, error) {
		out, err := s.gatewayAction(a)
		if err != nil {
			return tools.Result{}, err
		}
		if text, ok := out.(string); ok {
			return tools.Result{Text: text}, nil
		}
		b, _ := json.Marshal(out)
		return tools.Result{Text: string(b)}, nil
	})
}

func (s *System) gatewayAction(a gatewayToolArgs) (any, error) {
	snap := s.current().snap
	switch a.Action {
	case "config.get":
		return map[string]any{"path": snap.Path, "hash": snap.Hash, "config": config.Redact(snap.Tree)}, nil
	case "config.schema":
		return json.RawMessage(config.Schema()), nil
	case "config.apply":
		if a.Raw == "" {
			return nil, errors.New("config.apply needs raw")
		}
		return s.writeConfig("config.apply", []byte(a.Raw), "", true)
	case "config.patch":
		obj, err := config.ParseObject([]byte(a.Raw))
		if err != nil {
			return nil, fmt.Errorf("raw: %w", err)
		}
		next, err := config.MergePatch(snap.Raw, obj)
		if err != nil {
			return nil, err
		}
		return s.writeConfig("config.patch", next, "", true)
	case "restart":
		if !snap.Config.Commands.Restart {
			return nil, errors.New("restarting is off: set commands.restart to true to allow it")
		}
		delay := time.Duration(a.DelayMs) * time.Millisecond
		if a.DelayMs <= 0 {
			delay = 2 * time.Second
		}
		time.AfterFunc(delay, s.requestRestart)
		return fmt.Sprintf("restarting in %s", delay), nil
	}
	return nil, fmt.Errorf("unknown action %q", a.Action)
}
