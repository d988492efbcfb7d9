package gateway

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/openclaw-go/openclaw/gateway/admin"
	"github.com/openclaw-go/openclaw/gateway/automation"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/cron"
	"github.com/openclaw-go/openclaw/gateway/openaihttp"
	"github.com/openclaw-go/openclaw/gateway/pluginhost"
	"github.com/openclaw-go/openclaw/gateway/rpc"
	"github.com/openclaw-go/openclaw/gateway/store"
	"github.com/openclaw-go/openclaw/gateway/toolhost"
	"github.com/openclaw-go/openclaw/nodes"
	"github.com/openclaw-go/openclaw/tools"
)

// buildToolhost builds the tool wing over the store and the agents, hands
// the runner and the approvals to the agents, and records the wing as a
// part.
func (s *System) buildToolhost(ctx context.Context, st *store.Store) error {
	opts := toolhost.Options{
		Log: s.log, StateDir: s.opts.StateDir, DB: st.DB,
		Live: func() toolhost.Live {
			l := s.current()
			return toolhost.Live{Snap: l.snap, Policy: l.toolPolicy, Guard: l.guard}
		},
		LoadOptions:    s.loadOptions,
		Auth:           func() rpc.AuthConfig { return s.current().auth },
		Addr:           func() net.Addr { return s.addr },
		Agents:         s.agents,
		Sessions:       s.sessions,
		Nodes:          func() *nodes.Registry { return s.nodes },
		Messenger:      s.channels.Messenger(),
		Speaker:        s.channels.Speaker(),
		Scheduler:      automation.NewScheduler(func() *automation.Wing { return s.automator }),
		ApprovalEvents: s.channels.ApprovalNotifier(),
		Wake:           func(agentID, sessionKey, text string) { s.automator.Wake(agentID, sessionKey, cron.WakeNow, text) },
		Hooks:          s.plugins.Hooks(),
		Extra: func(workspace func(tools.Who) (string, error)) []tools.Tool {
			out := s.plugins.SkillTools(workspace)
			if t, ok := s.plugins.LLMTaskTool(); ok {
				out = append(out, t)
			}
			return out
		},
		Config:      toolConfigWriter{s.admin},
		Restart:     s.requestRestart,
		SkillsDir:   pluginhost.WorkspaceSkills,
		AuditMaxAge: func() time.Duration { return keptFor(s.current().snap.Config.Gateway.Retention.ToolAudit) },
		IsChatOwner: isChatOwner,
		Getenv:      s.opts.Getenv,
	}
	if s.opts.toolhost != nil {
		s.opts.toolhost(&opts)
	}
	h, err := toolhost.New(ctx, opts)
	if err != nil {
		return err
	}
	s.toolhost = h
	s.agents.UseApprovals(h.Approvals())
	s.agents.UseGatewayStatus(func() []string {
		return []string{fmt.Sprintf("OpenClaw gateway %s · up %s", s.version, time.Since(s.started).Round(time.Second))}
	})
	s.agents.UseTools(h.TurnTools())
	s.addPart(h)
	return nil
}

// toolConfigWriter is the gateway tool's config writer: the admin wing's,
// which config.apply uses too, with the redaction the tool's reads show.
type toolConfigWriter struct{ admin *admin.Wing }

func (w toolConfigWriter) WriteConfig(method string, raw []byte, baseHash string, apply bool) (any, error) {
	return w.admin.WriteConfig(method, raw, baseHash, apply)
}

func (w toolConfigWriter) RestoreRedacted(raw []byte, cur *config.Snapshot) []byte {
	raw, _ = config.RestoreRedacted(raw, cur.Raw, cur.Tree)
	return raw
}

// isChatOwner is the owner check of commands.ownerAllowFrom.
func isChatOwner(cfg *config.Config, channel, senderID string) bool {
	return cfg.Commands.IsOwner(channel, senderID)
}

// buildOpenAIHTTP adds the OpenAI-compatible endpoints
// (gateway.http.endpoints.chatCompletions), behind the same bearer check
// as the tools REST API.
func (s *System) buildOpenAIHTTP() {
	s.addPart(openaihttp.New(openaihttp.Options{
		Config: func() *config.Config { return s.current().snap.Config },
		Agents: s.agents,
		Auth:   s.toolhost.BearerAuth(s.srv.SharedSecretThrottle()),
		Log:    s.log.With("component", "openai-http"),
	}))
}
