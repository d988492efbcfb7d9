package admin

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

// ReloadOutcome records how the config watcher's last reload ended (the
// watcher's Outcome).
func (w *Wing) ReloadOutcome(err error) {
	if err == nil {
		w.ReloadApplied()
		return
	}
	w.reload.mu.Lock()
	w.reload.failAt, w.reload.failErr = time.Now(), reloadFailureText(err)
	w.reload.mu.Unlock()
	w.health.invalidate()
}

// ReloadApplied clears a recorded failure: the running config is the
// file's again.
func (w *Wing) ReloadApplied() {
	w.reload.mu.Lock()
	w.reload.failAt, w.reload.failErr = time.Time{}, ""
	w.reload.mu.Unlock()
	w.health.invalidate()
}

// SetWatching records whether the config watcher runs: health reports
// hot reload "active" only while it does.
func (w *Wing) SetWatching(on bool) {
	w.reload.watching.Store(on)
	w.health.invalidate()
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
func (w *Wing) configReload(snap *config.Snapshot) map[string]any {
	status := "active"
	out := map[string]any{}
	if snap.Config.Gateway.Reload.Mode == "off" {
		status, out["mode"] = "disabled", "off"
	} else if !w.reload.watching.Load() {
		status = "disabled"
	}
	out["hotReloadStatus"] = status
	w.reload.mu.Lock()
	defer w.reload.mu.Unlock()
	if w.reload.failErr != "" {
		out["lastFailure"] = map[string]any{"at": w.reload.failAt.UnixMilli(), "error": w.reload.failErr}
	}
	return out
}
