package gateway

import (
	"context"
	"net/http"

	"github.com/openclaw-go/openclaw/agents"
	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/devices"
	"github.com/openclaw-go/openclaw/gateway/rpc"
)

// buildDevices builds the paired-device registry the bus checks every
// handshake against; it serves device.*.
func (s *System) buildDevices() {
	s.devices = devices.New(s.store.DB, s.log.With("component", "devices"), func() devices.Policy { return s.current().pairing }, s.srv)
	s.srv.SetPairing(s.devices, s.devices.RecordAuthFailure)
	s.addPart(methodsPart{name: "devices", register: s.devices.Register})
}

// buildAgents builds the session store and the agents service over it.
// The tools are handed to it once built (buildToolhost); the skill
// directory is the plugin wing's, looked up at each turn.
func (s *System) buildAgents(snap *config.Snapshot) {
	s.sessions = sessions.New(s.store.DB, s.log)
	s.agents = agents.New(snap.Config, agents.Options{
		Store: s.sessions, Emit: s.srv, Log: s.log.With("component", "agents"), StateDir: s.opts.StateDir,
		PromptInjections: func() []string { return s.current().hooks.Injections() },
		SkillDirectory:   func(ctx context.Context, agentID string) string { return s.plugins.SkillDirectory(ctx, agentID) },
		SkillCommands: func(ctx context.Context, agentID string) []agents.SkillCommand {
			var out []agents.SkillCommand
			for _, c := range s.plugins.SkillCommands(ctx, agentID, agents.BuiltinCommandNames()) {
				out = append(out, agents.SkillCommand{Name: c.Name, Skill: c.Skill, Description: c.Description})
			}
			return out
		},
		AfterLLM: func() (func(string) string, bool) {
			h := s.current().hooks
			return h.AfterLLM, h.HasAfterLLM()
		},
	})
	s.agents.SeedWorkspaces()
	s.addPart(agentsPart{s.agents})
}

// agentsPart makes the agents service a part: it serves chat.*, agent*
// and sessions.*, takes a reloaded config at commit, and, built before
// the wings, closes after them, once nothing can start a turn.
type agentsPart struct{ svc *agents.Service }

func (agentsPart) Name() string { return "agents" }

func (p agentsPart) Register(srv *rpc.Server, _ *http.ServeMux) { p.svc.Register(srv) }

func (p agentsPart) Prepare(snap *config.Snapshot) (func(), error) {
	return func() { p.svc.SetConfig(snap.Config) }, nil
}

func (p agentsPart) Close(context.Context) error {
	p.svc.Close()
	return nil
}
