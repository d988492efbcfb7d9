package gateway

import (
	"context"

	"github.com/openclaw-go/openclaw/gateway/automation"
	"github.com/openclaw-go/openclaw/gateway/config"
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
		Go:           s.inBackground,
		HookThrottle: s.srv.WebhookThrottle("hooks"),
	})
	if err != nil {
		return err
	}
	s.automator = w
	s.agents.UseDelivery(w)
	s.addPart(w)
	return nil
}

// inBackground runs fn under the gateway's background context; the stop
// waits for it.
func (s *System) inBackground(fn func(ctx context.Context)) {
	s.bgMu.Lock()
	if s.bgClosed {
		s.bgMu.Unlock()
		return // stopping: nothing new starts
	}
	s.bgWG.Add(1)
	s.bgMu.Unlock()
	go func() {
		defer s.bgWG.Done()
		fn(s.bg)
	}()
}
