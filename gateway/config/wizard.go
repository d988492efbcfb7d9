package config

import (
	"fmt"
	"time"
)

// SetupRun is one run of a setup command, as wizard.lastRun* records it.
type SetupRun struct {
	Command, Mode, Version, Commit string
	At                             time.Time
}

// RecordSetupRun writes run into wizard.lastRun* of the config text src,
// keeping its comments and every other key. An empty Mode or Commit
// leaves that key as it was.
func RecordSetupRun(src []byte, run SetupRun) ([]byte, error) {
	set := []struct {
		key, value string
	}{
		{"wizard.lastRunAt", run.At.UTC().Format("2006-01-02T15:04:05.000Z")},
		{"wizard.lastRunVersion", run.Version},
		{"wizard.lastRunCommand", run.Command},
		{"wizard.lastRunMode", run.Mode},
		{"wizard.lastRunCommit", run.Commit},
	}
	for _, kv := range set {
		if kv.value == "" {
			continue
		}
		next, err := Set(src, kv.key, kv.value)
		if err != nil {
			return nil, fmt.Errorf("record the setup run in %s: %w", kv.key, err)
		}
		src = next
	}
	return src, nil
}

// LastRun describes wizard.lastRun* in a line ("" when nothing is
// recorded), e.g. `openclaw onboard 2026.3.13 (local) at 2026-03-21T19:16:33.528Z`.
func (w Wizard) LastRun() string {
	if w.LastRunAt == "" && w.LastRunCommand == "" {
		return ""
	}
	s := "openclaw " + orDash(w.LastRunCommand)
	if w.LastRunVersion != "" {
		s += " " + w.LastRunVersion
	}
	if w.LastRunCommit != "" {
		s += " (" + w.LastRunCommit + ")"
	}
	if w.LastRunMode != "" {
		s += ", " + w.LastRunMode
	}
	if w.LastRunAt != "" {
		s += ", at " + w.LastRunAt
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
