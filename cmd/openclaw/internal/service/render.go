package service

import (
	"fmt"
	"strings"
)

// Fixed policy of OpenClaw's generated unit: restart on failure with a
// start limit, 78 (EX_CONFIG) means "do not restart", 143 (SIGTERM) is a
// clean stop, and the gateway gets the time its shutdown budget needs.
var systemdUnitPolicy = []string{
	"After=network-online.target",
	"Wants=network-online.target",
	"StartLimitBurst=10",
	"StartLimitIntervalSec=300",
}

var systemdServicePolicy = []string{
	"Restart=always",
	"RestartSec=5",
	"RestartPreventExitStatus=78",
	"TimeoutStopSec=330",
	"TimeoutStartSec=30",
	"SuccessExitStatus=0 143",
	"OOMPolicy=continue",
	"KillMode=mixed",
}

// RenderSystemdUnit is the unit file for s. Every value is escaped for
// the unit-file syntax (quotes, backslashes, % specifiers, $ expansion),
// and Validate has already refused the line breaks that would let a
// value start a directive of its own.
func RenderSystemdUnit(s Spec) (string, error) {
	if err := s.Validate(); err != nil {
		return "", err
	}
	args := make([]string, len(s.Program))
	for i, a := range s.Program {
		if a == ";" {
			// A lone ";" separates commands in ExecStart.
			return "", fmt.Errorf("program argument %d is a lone ';'", i)
		}
		args[i] = systemdQuote(strings.ReplaceAll(a, "$", "$$"))
	}
	desc := strings.TrimSpace(s.Description)
	if desc == "" {
		desc = DefaultDescription(s.Kind, s.Profile)
	}
	var b strings.Builder
	line := func(l string) { b.WriteString(l + "\n") }
	line("[Unit]")
	line("Description=" + specifier(desc))
	for _, l := range systemdUnitPolicy {
		line(l)
	}
	line("")
	line("[Service]")
	line("ExecStart=" + strings.Join(args, " "))
	for _, l := range systemdServicePolicy {
		line(l)
	}
	if s.WorkingDir != "" {
		line("WorkingDirectory=" + specifier(s.WorkingDir))
	}
	if len(s.Secrets) > 0 {
		// "-": a missing file is not an error (the service then fails
		// to authenticate rather than to start, which says more).
		line("EnvironmentFile=-" + specifier(s.EnvFile))
	}
	for _, v := range s.Env {
		line("Environment=" + systemdQuote(v.Key+"="+v.Value))
	}
	line("")
	line("[Install]")
	line("WantedBy=default.target")
	return b.String(), nil
}

// specifier escapes systemd's % specifiers.
func specifier(s string) string { return strings.ReplaceAll(s, "%", "%%") }

// systemdQuote quotes one word of a unit-file value when it needs it.
func systemdQuote(s string) string {
	s = specifier(s)
	if s != "" && !strings.ContainsAny(s, " \t\"\\'") {
		return s
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

// RenderSystemdEnvFile is the EnvironmentFile holding the secrets.
// systemd expands $ references and backslash escapes in these files, so
// a value with either is refused rather than written into something that
// would read back differently.
func RenderSystemdEnvFile(vars []Var) (string, error) {
	var b strings.Builder
	for _, v := range vars {
		if !envKeyRE().MatchString(v.Key) {
			return "", fmt.Errorf("environment variable name %q is not a plain name", v.Key)
		}
		if strings.ContainsAny(v.Value, "$\\\"`\r\n\x00") {
			return "", fmt.Errorf("%s contains a character a systemd environment file would change ($, \\, \", ` or a line break); put it in the config file instead", v.Key)
		}
		fmt.Fprintf(&b, "%s=\"%s\"\n", v.Key, v.Value)
	}
	return b.String(), nil
}

// RenderShellEnvFile is the environment file the launchd agent's /bin/sh
// wrapper sources: every value single-quoted, so the shell expands
// nothing in it.
func RenderShellEnvFile(vars []Var) (string, error) {
	var b strings.Builder
	for _, v := range vars {
		if !envKeyRE().MatchString(v.Key) {
			return "", fmt.Errorf("environment variable name %q is not a plain name", v.Key)
		}
		if strings.ContainsAny(v.Value, "\r\n\x00") {
			return "", fmt.Errorf("%s contains a line break", v.Key)
		}
		fmt.Fprintf(&b, "%s='%s'\n", v.Key, strings.ReplaceAll(v.Value, "'", `'\''`))
	}
	return b.String(), nil
}

// launchdEnvWrapper loads the env file named by $0 and runs the program
// in "$@", so the secrets stay out of the plist (which other processes
// of the user can read through launchctl print).
const launchdEnvWrapper = `set -a; . "$0"; set +a; exec "$@"`

// RenderLaunchdPlist is the LaunchAgent plist for s.
func RenderLaunchdPlist(s Spec) (string, error) {
	if err := s.Validate(); err != nil {
		return "", err
	}
	program := s.Program
	if len(s.Secrets) > 0 {
		program = append([]string{"/bin/sh", "-c", launchdEnvWrapper, s.EnvFile}, s.Program...)
	}
	desc := strings.TrimSpace(s.Description)
	if desc == "" {
		desc = DefaultDescription(s.Kind, s.Profile)
	}
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	w("<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n")
	w("<plist version=\"1.0\">\n  <dict>\n")
	w("    <key>Label</key>\n    <string>%s</string>\n", xmlEscape(Label(s.Kind, s.Profile)))
	w("    <key>Comment</key>\n    <string>%s</string>\n", xmlEscape(desc))
	w("    <key>RunAtLoad</key>\n    <true/>\n")
	w("    <key>KeepAlive</key>\n    <true/>\n")
	w("    <key>ExitTimeOut</key>\n    <integer>20</integer>\n")
	w("    <key>ProcessType</key>\n    <string>Interactive</string>\n")
	w("    <key>ThrottleInterval</key>\n    <integer>10</integer>\n")
	w("    <key>Umask</key>\n    <integer>63</integer>\n")
	w("    <key>StandardInPath</key>\n    <string>/dev/null</string>\n")
	w("    <key>ProgramArguments</key>\n    <array>\n")
	for _, a := range program {
		w("      <string>%s</string>\n", xmlEscape(a))
	}
	w("    </array>\n")
	if s.WorkingDir != "" {
		w("    <key>WorkingDirectory</key>\n    <string>%s</string>\n", xmlEscape(s.WorkingDir))
	}
	if s.LogPath != "" {
		w("    <key>StandardOutPath</key>\n    <string>%s</string>\n", xmlEscape(s.LogPath))
		w("    <key>StandardErrorPath</key>\n    <string>%s</string>\n", xmlEscape(s.LogPath))
	}
	if len(s.Env) > 0 {
		w("    <key>EnvironmentVariables</key>\n    <dict>\n")
		for _, v := range s.Env {
			w("      <key>%s</key>\n      <string>%s</string>\n", xmlEscape(v.Key), xmlEscape(v.Value))
		}
		w("    </dict>\n")
	}
	w("  </dict>\n</plist>\n")
	return b.String(), nil
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;").Replace(s)
}
