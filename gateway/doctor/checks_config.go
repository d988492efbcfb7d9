package doctor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// maxListed bounds the lines a check lists.
const maxListed = 20

func listIssues(issues []config.Issue) []string {
	var out []string
	for i, is := range issues {
		if i == maxListed {
			out = append(out, fmt.Sprintf("... and %d more", len(issues)-maxListed))
			break
		}
		out = append(out, "- "+is.String())
	}
	return out
}

// legacyWarning reports whether a load warning is one of the legacy
// rewrites, which checkLegacyConfig reports on its own.
func legacyWarning(is config.Issue) bool {
	return strings.Contains(is.Message, " is from an older OpenClaw; ")
}

// checkConfig: the config file reads, parses and validates.
func checkConfig(_ context.Context, r *run) Check {
	c := Check{ID: "core/doctor/gateway-config", Title: "Config", Path: r.in.Paths.ConfigPath}
	in := r.in
	le := in.loadError()
	switch {
	case in.Snap == nil:
		c.Status, c.Detail = StatusFail, fmt.Sprintf("cannot read %s: %v", in.Paths.ConfigPath, in.LoadErr)
		c.FixHint = "Check the file's owner and mode, or point OPENCLAW_CONFIG_PATH at the right file."
		return c
	case !in.Snap.Exists:
		c.Status = StatusWarn
		c.Detail = fmt.Sprintf("no config file at %s; the gateway runs on defaults", in.Paths.ConfigPath)
		c.FixHint = "Run `openclaw gateway` once: it writes a config with a random gateway token."
		return c
	case le != nil:
		c.Status = StatusFail
		lines := []string{fmt.Sprintf("%s does not load (%d problems); the gateway will not start with it:", in.Paths.ConfigPath, len(le.Issues))}
		c.Detail = joinLines(append(lines, listIssues(le.Issues)...))
		c.FixHint = "Edit the keys named above; `openclaw config validate` shows the same list."
		return c
	}
	var warns []config.Issue
	for _, w := range in.Snap.Warnings {
		if !legacyWarning(w) {
			warns = append(warns, w)
		}
	}
	if len(warns) > 0 {
		c.Status = StatusWarn
		lines := []string{fmt.Sprintf("%s loads, with %d warnings:", in.Paths.ConfigPath, len(warns))}
		c.Detail = joinLines(append(lines, listIssues(warns)...))
		return c
	}
	c.Status, c.Detail = StatusOK, fmt.Sprintf("%s parses and validates", in.Paths.ConfigPath)
	if last := in.Snap.Config.Wizard.LastRun(); last != "" {
		c.Detail += "; last set up with " + last
	}
	return c
}

// checkLegacyConfig: keys older OpenClaw versions wrote. The gateway reads
// them where they live now; --fix rewrites the file the same way, as
// `openclaw doctor --fix` does, after keeping a backup.
func checkLegacyConfig(_ context.Context, r *run) Check {
	c := Check{ID: "core/doctor/legacy-config", Title: "Legacy config keys", Path: r.in.Paths.ConfigPath}
	in := r.in
	if in.Snap == nil || !in.Snap.Exists {
		c.Status, c.Detail = StatusSkip, "no config file"
		return c
	}
	migrated, applied, err := config.MigrateLegacy(in.Snap.Raw)
	if err != nil {
		c.Status, c.Detail = StatusWarn, err.Error()
		return c
	}
	if len(applied) == 0 {
		c.Status, c.Detail = StatusOK, "no legacy keys"
		return c
	}
	lines := []string{fmt.Sprintf("%d keys are from an older OpenClaw; the gateway reads them where they live now:", len(applied))}
	for i, a := range applied {
		if i == maxListed {
			lines = append(lines, fmt.Sprintf("... and %d more", len(applied)-maxListed))
			break
		}
		lines = append(lines, "- "+a.String())
	}
	c.Status, c.Detail = StatusWarn, joinLines(lines)
	c.FixHint = "Run `openclaw doctor --fix` to rewrite them in the file (a backup is kept as " + in.Paths.ConfigPath + ".bak)."
	if !r.Fix {
		return c
	}
	if recorded, err := config.RecordSetupRun(migrated, config.SetupRun{Command: "doctor", Version: r.Version, Commit: r.Commit, At: r.now()}); err == nil {
		migrated = recorded
	}
	bak, err := writeMigrated(in.Paths.ConfigPath, in.Snap.Raw, migrated)
	if err != nil {
		c.Fix = &Fix{Error: err.Error()}
		return c
	}
	*r.in = *Load(in.Paths, in.Getenv)
	c.Fix = &Fix{Applied: true, Detail: fmt.Sprintf("rewrote %d legacy keys in %s; the old file is %s", len(applied), in.Paths.ConfigPath, bak)}
	c.Status = StatusOK
	c.Detail = fmt.Sprintf("%d legacy keys rewritten", len(applied))
	c.FixHint = ""
	return c
}

// writeMigrated replaces the config with its migrated text, after a
// backup, unless someone changed the file since it was read. It returns
// the backup's path.
func writeMigrated(path string, read, migrated []byte) (string, error) {
	now, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reread config: %w", err)
	}
	if hashOf(now) != hashOf(read) {
		return "", errors.New("the config changed while the doctor read it; nothing was written, run it again")
	}
	bak, err := backupConfig(path, now)
	if err != nil {
		return "", err
	}
	if err := config.WriteFile(path, migrated); err != nil {
		return "", err
	}
	return bak, nil
}

// backupConfig keeps data as <path>.bak, moving older backups along a
// ring of .bak.1 to .bak.4, as OpenClaw's config writes do. A backup holds
// the same secrets as the config, so it is created 0600.
func backupConfig(path string, data []byte) (string, error) {
	bak := path + ".bak"
	for i := 3; i >= 1; i-- {
		renameIfExists(fmt.Sprintf("%s.%d", bak, i), fmt.Sprintf("%s.%d", bak, i+1))
	}
	renameIfExists(bak, bak+".1")
	f, err := os.OpenFile(bak, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("back up config: %w", err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(bak)
		return "", fmt.Errorf("back up config: %w", err)
	}
	return bak, nil
}

func renameIfExists(from, to string) {
	if _, err := os.Lstat(from); errors.Is(err, fs.ErrNotExist) {
		return
	}
	os.Rename(from, to)
}

func hashOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
