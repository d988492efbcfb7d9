package main

import (
	"os"
	"runtime/debug"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// setupClock is the clock of wizard.lastRunAt and
// securityAcknowledgedAt; a var so that golden tests get a fixed one.
var setupClock = time.Now

// setupTime is now as the wizard keys write it.
func setupTime() string { return setupClock().UTC().Format("2006-01-02T15:04:05.000Z") }

// buildCommit is the short source revision the binary was built from, or
// "" when it was built without one.
func buildCommit() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 7 {
			return s.Value[:7]
		}
	}
	return ""
}

// setupRun is this CLI's run of a setup command, for wizard.lastRun*.
func setupRun(command, mode string) config.SetupRun {
	return config.SetupRun{Command: command, Mode: mode, Version: version, Commit: buildCommit(), At: setupClock()}
}

// priorWizard reads the wizard section of the config at path, if any
// (nothing when it is missing or does not parse).
func priorWizard(path string) config.Wizard {
	src, err := os.ReadFile(path)
	if err != nil {
		return config.Wizard{}
	}
	tree, err := fileTree(src)
	if err != nil {
		return config.Wizard{}
	}
	return config.Wizard{
		AccessMode:             treeString(tree, "wizard", "accessMode"),
		SecurityAcknowledgedAt: treeString(tree, "wizard", "securityAcknowledgedAt"),
	}
}
