package gateway

import (
	"context"

	"github.com/openclaw-go/openclaw/gateway/admin"
	"github.com/openclaw-go/openclaw/gateway/config"
)

// buildAdmin builds the admin wing (health, status, presence, config.*,
// diagnostics, logs.tail) once the store and the session store are open.
func (s *System) buildAdmin(ctx context.Context) error {
	w, err := admin.New(ctx, admin.Options{
		Log:            s.log,
		Config:         func() *config.Snapshot { return s.current().snap },
		LoadOptions:    s.loadOptions(),
		CheckStartable: s.checkStartable,
		Apply:          s.applyConfig,
		Restart:        s.requestRestart,
		AuthMode:       func() string { return s.current().auth.Mode },
		ListenHost:     s.listenHost,
		Sessions:       s.sessions,
		ChannelStatus: func() map[string]any {
			if s.channels == nil {
				return nil // not built yet
			}
			return s.channels.Status()
		},
		DB:        s.store.DB,
		Heartbeat: admin.HeartbeatDefaults{Prompt: defaultHeartbeatPrompt, AckMaxChars: heartbeatAckMaxChars},
		Version:   s.version,
		Started:   s.started,
		StateDir:  s.opts.StateDir,
		StorePath: s.storePath,
		LogFile:   s.logFile,
	})
	if err != nil {
		return err
	}
	s.admin = w
	s.addPart(w)
	return nil
}

// sampleMemoryLoop runs the admin wing's memory sampler for as long as the
// gateway serves.
func (s *System) sampleMemoryLoop() {
	s.bgWG.Add(1)
	go func() {
		defer s.bgWG.Done()
		s.admin.SampleMemory(s.bg)
	}()
}

// The config writer and the owner check, for the parts not yet moved out
// of the root (the gateway tool, pairing approval, the turn's owner flag).

func (s *System) writeConfig(method string, raw []byte, baseHash string, apply bool) (any, error) {
	return s.admin.WriteConfig(method, raw, baseHash, apply)
}

func (s *System) bootstrapOwner(ctx context.Context, channel, senderID string) (string, error) {
	return s.admin.BootstrapOwner(ctx, channel, senderID)
}

func restoreRedacted(raw, curRaw []byte, curTree map[string]any) ([]byte, []string) {
	return config.RestoreRedacted(raw, curRaw, curTree)
}

func isChatOwner(cfg *config.Config, channel, senderID string) bool {
	return cfg.Commands.IsOwner(channel, senderID)
}
