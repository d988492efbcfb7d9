// Package service writes and drives the native user service that keeps
// the gateway (or a node host) running: a systemd user unit on Linux, a
// launchd agent on macOS. It follows OpenClaw's names (openclaw-gateway
// [-<profile>].service, ai.openclaw.gateway / ai.openclaw.<profile>) and
// environment conventions, so a service installed by either CLI is found
// and managed by the other.
//
// Only the CLI installs services: the gateway never manages its own, so
// the package lives under cmd/openclaw. The service manager's commands
// (systemctl --user, launchctl) run through Runner, which tests replace
// with a fake that records the calls.
package service

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Kind is what the service runs.
type Kind string

const (
	Gateway Kind = "gateway"
	Node    Kind = "node"
)

// Var is one environment variable of the service.
type Var struct{ Key, Value string }

// Spec is one service definition, independent of the service manager.
type Spec struct {
	Kind Kind
	// Profile is the OpenClaw profile ("" for the default one).
	Profile string
	// Description is the unit's Description / the plist's Comment.
	Description string
	// Program is the absolute executable and its arguments.
	Program []string
	// WorkingDir is where the service starts ("" for the manager's default).
	WorkingDir string
	// Env is written into the unit or plist: nothing secret.
	Env []Var
	// Secrets (gateway token, password) go only into EnvFile, owner-only,
	// which the unit references; they never appear in the unit itself.
	Secrets []Var
	// EnvFile is where Secrets are written (required when there are any).
	EnvFile string
	// LogPath receives launchd's stdout and stderr (systemd uses the journal).
	LogPath string
}

// UnitName is the systemd unit's name without ".service", as OpenClaw
// names it: openclaw-gateway, openclaw-gateway-<profile>, openclaw-node.
func UnitName(kind Kind, profile string) string {
	if kind == Node {
		return "openclaw-node"
	}
	if p := normProfile(profile); p != "" {
		return "openclaw-gateway-" + p
	}
	return "openclaw-gateway"
}

// Label is the launchd label: ai.openclaw.gateway, ai.openclaw.<profile>,
// ai.openclaw.node.
func Label(kind Kind, profile string) string {
	if kind == Node {
		return "ai.openclaw.node"
	}
	if p := normProfile(profile); p != "" {
		return "ai.openclaw." + p
	}
	return "ai.openclaw.gateway"
}

// DefaultDescription is OpenClaw's description of the service.
func DefaultDescription(kind Kind, profile string) string {
	if kind == Node {
		return "OpenClaw Node Host"
	}
	if p := normProfile(profile); p != "" {
		return "OpenClaw Gateway (profile: " + p + ")"
	}
	return "OpenClaw Gateway"
}

// EnvFileName is the owner-only environment file OpenClaw keeps in the
// state directory for the service's secrets.
func EnvFileName(kind Kind) string {
	if kind == Node {
		return "node.systemd.env"
	}
	return "gateway.systemd.env"
}

func normProfile(p string) string {
	p = strings.TrimSpace(p)
	if strings.EqualFold(p, "default") {
		return ""
	}
	return p
}

// profileRE is the profile rule the CLI enforces for --profile; the
// package checks again, because the name becomes part of a file name and
// a unit name.
var profileRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`) })

var envKeyRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// Validate refuses a spec that could not be written safely: a profile
// that is not a plain name, an empty program, a relative executable,
// control characters anywhere (a newline would start a new unit-file
// line or shell command), a malformed variable name, secrets without an
// env file.
func (s Spec) Validate() error {
	if s.Kind != Gateway && s.Kind != Node {
		return fmt.Errorf("service kind %q: want gateway or node", s.Kind)
	}
	if p := normProfile(s.Profile); p != "" && !profileRE().MatchString(p) {
		return fmt.Errorf("profile %q: a profile name is letters, digits, '-' and '_'", s.Profile)
	}
	if len(s.Program) == 0 || !strings.HasPrefix(s.Program[0], "/") {
		return fmt.Errorf("service program must start with an absolute executable path")
	}
	check := func(what, v string) error {
		for _, r := range v {
			if r < 0x20 || r == 0x7f {
				return fmt.Errorf("%s contains a control character (%q)", what, v)
			}
		}
		return nil
	}
	for i, a := range s.Program {
		if err := check(fmt.Sprintf("program argument %d", i), a); err != nil {
			return err
		}
	}
	for _, f := range []struct{ what, v string }{
		{"description", s.Description}, {"working directory", s.WorkingDir},
		{"env file path", s.EnvFile}, {"log path", s.LogPath},
	} {
		if err := check(f.what, f.v); err != nil {
			return err
		}
	}
	for _, v := range append(append([]Var(nil), s.Env...), s.Secrets...) {
		if !envKeyRE().MatchString(v.Key) {
			return fmt.Errorf("environment variable name %q is not a plain name", v.Key)
		}
		if err := check("environment variable "+v.Key, v.Value); err != nil {
			return err
		}
	}
	if len(s.Secrets) > 0 && !strings.HasPrefix(s.EnvFile, "/") {
		return fmt.Errorf("secrets need an absolute env file path")
	}
	return nil
}
