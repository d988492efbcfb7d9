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
		DB:          s.store.DB,
		StoreStatus: s.storeStatus,
		Heartbeat:   admin.HeartbeatDefaults{Prompt: defaultHeartbeatPrompt, AckMaxChars: heartbeatAckMaxChars},
		Version:     s.version,
		Started:     s.started,
		StateDir:    s.opts.StateDir,
		StorePath:   s.storePath,
		LogFile:     s.logFile,
	})
	if err != nil {
		return err
	}
	s.admin = w
	s.addPart(w)
	return nil
}
