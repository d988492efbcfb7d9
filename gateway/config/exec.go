package config

import (
	"path/filepath"
	"slices"
	"strings"
)

// ExecModePolicy is the security and ask one tools.exec.mode stands for,
// as OpenClaw maps them. auto is ask here: this gateway has no model
// reviewer, and OpenClaw itself sends a miss to a person when its reviewer
// cannot answer.
var ExecModePolicy = map[string][2]string{
	"deny":      {"deny", "off"},
	"allowlist": {"allowlist", "off"},
	"ask":       {"allowlist", "on-miss"},
	"auto":      {"allowlist", "on-miss"},
	"full":      {"full", "off"},
}

// Policy returns the configured exec security and ask: mode's when it is
// set (OpenClaw's rule: mode wins over the older pair), else security and
// ask as written; "" where nothing is configured.
func (e ToolExec) Policy() (security, ask string) {
	if p, ok := ExecModePolicy[e.Mode]; ok {
		return p[0], p[1]
	}
	return e.Security, e.Ask
}

// UnsafeSafeBins are commands that never count as safe bins, listed or
// not: their scripts can run commands, read the environment or write
// files, which no argument profile can rule out.
var UnsafeSafeBins = []string{"awk", "gawk", "mawk", "nawk", "sed", "gsed", "jq"}

func (d *decoder) validateExec(e *ToolExec) {
	if p, ok := ExecModePolicy[e.Mode]; ok && (e.Security != "" && e.Security != p[0] || e.Ask != "" && e.Ask != p[1]) {
		n, path := d.where("tools.exec.security", "tools.exec.ask")
		d.warnAtPath(n, path, "ignored: tools.exec.mode %q is set and decides (security %q, ask %q); remove security and ask, or mode", e.Mode, p[0], p[1])
	}
	for i, b := range e.SafeBins {
		if slices.Contains(UnsafeSafeBins, strings.ToLower(filepath.Base(b))) {
			path := indexPath("tools.exec.safeBins", i)
			n, _ := d.where(path, "tools.exec.safeBins")
			d.warnAtPath(n, path, "%q never runs as a safe bin (its scripts can run commands and write files); give it an allowlist entry in the exec approvals instead", b)
		}
	}
	for i, dir := range e.SafeBinTrustedDirs {
		if !filepath.IsAbs(dir) {
			path := indexPath("tools.exec.safeBinTrustedDirs", i)
			n, _ := d.where(path, "tools.exec.safeBinTrustedDirs")
			d.errorAtPath(n, path, "%q is not an absolute directory", dir)
		}
	}
	for name, p := range e.SafeBinProfiles {
		if p.MaxPositional.Set && p.MaxPositional.N < p.MinPositional {
			path := JoinPath(JoinPath("tools.exec.safeBinProfiles", name), "maxPositional")
			n, _ := d.where(path)
			d.errorAtPath(n, path, "maxPositional %d is below minPositional %d", p.MaxPositional.N, p.MinPositional)
		}
	}
	for i, dir := range e.PathPrepend {
		if !filepath.IsAbs(dir) && dir != "~" && !strings.HasPrefix(dir, "~/") {
			path := indexPath("tools.exec.pathPrepend", i)
			n, _ := d.where(path, "tools.exec.pathPrepend")
			d.errorAtPath(n, path, "%q is not an absolute directory (or one under ~/)", dir)
		}
	}
	if wo := e.ApplyPatch.WorkspaceOnly; wo != nil && !*wo {
		n, path := d.where("tools.exec.applyPatch.workspaceOnly")
		d.warnAtPath(n, path, "false has no effect here: this gateway's file tools, apply_patch among them, never write outside the workspace")
	}
}
