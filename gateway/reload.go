package gateway

import (
	"reflect"
	"slices"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// applyConfig swaps in a reloaded config as one transaction: the root
// checks it (startable, auth, tool policy), every part prepares it, and
// only when all agree does the live state switch and every part commit;
// any refusal keeps the running config everywhere. The watcher only
// calls it with a snapshot that loaded cleanly. Fields that need a
// restart are reported, not applied. Reloads run one at a time (the
// watcher and config.apply may race).
func (s *System) applyConfig(snap *config.Snapshot) error {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	old := s.current()
	if snap.Hash == old.snap.Hash {
		return nil // our own write, already applied
	}
	s.resolveSecrets(s.bg, snap)
	if err := s.checkStartable(snap); err != nil {
		s.log.Error("config reload refused; keeping the running config", "err", err)
		return err
	}
	next, err := s.liveFrom(snap)
	if err != nil {
		s.log.Error("config reload refused; keeping the running config", "err", err)
		return err
	}
	commit, err := s.prepareParts(snap)
	if err != nil {
		s.log.Error("config reload refused; keeping the running config", "err", err)
		return err
	}
	restart := config.Diff(old.snap.Config, snap.Config)
	s.state.Store(next)
	s.applyEnvVars(snap)
	commit()
	s.setLevels(snap.Config.Logging)
	for _, w := range snap.Warnings {
		s.log.Warn("config: " + w.String())
	}
	if len(restart) > 0 {
		s.log.Warn("config changed fields that apply after a restart (send SIGUSR1 or restart the gateway)", "fields", restart)
	}
	secretChanged := old.auth.Mode != next.auth.Mode || old.auth.Token != next.auth.Token || old.auth.Password != next.auth.Password ||
		(next.auth.Mode == "trusted-proxy" && (!reflect.DeepEqual(old.auth.TrustedProxy, next.auth.TrustedProxy) ||
			!slices.Equal(old.auth.TrustedProxies, next.auth.TrustedProxies)))
	if secretChanged {
		// Clients that proved the old secret must prove the new one.
		n := s.srv.DisconnectSharedSecret("gateway credentials changed")
		s.log.Info("gateway credentials changed; disconnected shared-secret clients", "count", n)
	}
	s.admin.ReloadApplied()
	s.log.Info("config reloaded", "path", snap.Path, "hash", snap.Hash)
	s.srv.Broadcast(protocol.EventConfigChanged, map[string]any{
		"path": snap.Path, "hash": snap.Hash, "ts": time.Now().UnixMilli(), "restartRequired": nonNilStrings(restart),
	})
	return nil
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
