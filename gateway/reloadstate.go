package gateway

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// reloadState is what health reports about config hot reload: whether the
// watcher runs, and the last reload that kept the running config, until a
// later one applies.
type reloadState struct {
	watching atomic.Bool

	mu      sync.Mutex
	failAt  time.Time
	failErr string
}

// reloadOutcome records how the watcher's last reload ended.
func (s *System) reloadOutcome(err error) {
	if err == nil {
		s.reloadApplied()
		return
	}
	s.reload.mu.Lock()
	s.reload.failAt, s.reload.failErr = time.Now(), reloadFailureText(err)
	s.reload.mu.Unlock()
	s.health.invalidate()
}

// reloadApplied clears a recorded failure: the running config is the file's again.
func (s *System) reloadApplied() {
	s.reload.mu.Lock()
	s.reload.failAt, s.reload.failErr = time.Time{}, ""
	s.reload.mu.Unlock()
	s.health.invalidate()
}

// reloadFailureText says why a reload failed without quoting the file:
// health answers every connection, so it names the keys at fault and
// leaves the messages (which may quote values) to the gateway's log.
func reloadFailureText(err error) string {
	var le *config.LoadError
	if !errors.As(err, &le) {
		return err.Error()
	}
	var where []string
	for _, is := range le.Issues {
		switch {
		case is.Path != "":
			where = append(where, is.Path)
		case is.Line > 0:
			where = append(where, fmt.Sprintf("line %d", is.Line))
		}
	}
	n := len(le.Issues)
	text := fmt.Sprintf("the config file has %d problem", n)
	if n != 1 {
		text += "s"
	}
	if len(where) > 0 {
		text += " (" + strings.Join(where, ", ") + ")"
	}
	return text + "; see the gateway log"
}

// configReload is health's configReload: OpenClaw's hotReloadStatus
// ("active" while edits to the file are watched, else "disabled"), and ours:
// the reload mode when it is off, and lastFailure while the running config
// is not the file's because its last edit did not load.
func (s *System) configReload(l *live) map[string]any {
	status := "active"
	out := map[string]any{}
	if l.reloadStatus == "off" {
		status, out["mode"] = "disabled", "off"
	} else if !s.reload.watching.Load() {
		status = "disabled"
	}
	out["hotReloadStatus"] = status
	s.reload.mu.Lock()
	defer s.reload.mu.Unlock()
	if s.reload.failErr != "" {
		out["lastFailure"] = map[string]any{"at": s.reload.failAt.UnixMilli(), "error": s.reload.failErr}
	}
	return out
}
