package gateway

import (
	"context"

	"github.com/openclaw-go/openclaw/gateway/automation"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/automations"
)

// Health reports the heartbeat defaults the automation wing runs with.
const (
	defaultHeartbeatPrompt = automation.DefaultHeartbeatPrompt
	heartbeatAckMaxChars   = automation.HeartbeatAckMaxChars
)

// buildAutomation builds the automation wing (the scheduler, heartbeats,
// failure alerts) over the agents and the channels. It runs once the
// channels and the background context exist; serve starts it after the
// channels do.
func (s *System) buildAutomation() error {
	var chats automation.Chats
	if s.channels != nil {
		chats = s.channels
	}
	w, err := automation.New(automation.Options{
		Config: func() *config.Config { return s.current().snap.Config },
		Agents: s.agents, Chats: chats, Events: s.srv,
		DB: s.store.DB, StorePath: s.storePath, Log: s.log,
		Go: s.inBackground,
	})
	if err != nil {
		return err
	}
	s.automator = w
	s.addPart(w)
	return nil
}

// inBackground runs fn under the gateway's background context; the stop
// waits for it.
func (s *System) inBackground(fn func(ctx context.Context)) {
	s.bgWG.Add(1)
	go func() {
		defer s.bgWG.Done()
		fn(s.bg)
	}()
}

// wake queues a system event for a session and, with mode "now", runs a
// heartbeat turn at once (the exec tool's exit notices).
func (s *System) wake(agentID, sessionKey, mode, text string) {
	s.automator.Wake(agentID, sessionKey, mode, text)
}

// automationsTool builds the agents' automations (cron) tool. The wing is
// built after the tools, so the tool looks it up at call time.
func (s *System) automationsTool() tools.Tool {
	return automations.New(automation.NewScheduler(func() *automation.Wing { return s.automator }))
}
