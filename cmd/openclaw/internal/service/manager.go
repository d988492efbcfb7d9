package service

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Runner runs one service-manager command and returns its standard
// output. An exit status other than 0 is an error that carries the
// command's standard error.
type Runner interface {
	Run(ctx context.Context, name string, args ...string) (string, error)
}

// ExecRunner runs the commands for real.
type ExecRunner struct{}

// Run runs name with args.
func (ExecRunner) Run(ctx context.Context, name string, args ...string) (string, error) {
	var out, errb bytes.Buffer
	c := exec.CommandContext(ctx, name, args...)
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = strings.TrimSpace(out.String())
		}
		return out.String(), &RunError{Cmd: name + " " + strings.Join(args, " "), Msg: msg, Err: err}
	}
	return out.String(), nil
}

// RunError is a service-manager command that failed.
type RunError struct {
	Cmd string
	Msg string
	Err error
}

func (e *RunError) Error() string {
	if e.Msg == "" {
		return fmt.Sprintf("%s: %v", e.Cmd, e.Err)
	}
	return fmt.Sprintf("%s: %v: %s", e.Cmd, e.Err, e.Msg)
}

func (e *RunError) Unwrap() error { return e.Err }

// Status is what the service manager knows of a service.
type Status struct {
	// Manager is "systemd" or "launchd".
	Manager string `json:"manager"`
	// Name is the unit name or launchd label.
	Name string `json:"name"`
	// Path is the unit file or plist.
	Path string `json:"path"`
	// Installed: the unit file or plist exists.
	Installed bool `json:"installed"`
	// Loaded: systemd knows the unit (enabled) or launchd has the agent
	// bootstrapped.
	Loaded bool `json:"loaded"`
	// Active: the service's process runs.
	Active bool `json:"active"`
	// State is the manager's own word (systemd ActiveState/SubState,
	// launchd state).
	State string `json:"state,omitempty"`
	PID   int    `json:"pid,omitempty"`
}

// Manager installs and drives services.
type Manager interface {
	// Name is "systemd" or "launchd".
	Name() string
	// Path is where s's definition lives.
	Path(s Spec) string
	// Render is the definition Install would write.
	Render(s Spec) (string, error)
	// RenderEnvFile is the secrets file Install would write ("" with none).
	RenderEnvFile(s Spec) (string, error)
	// Install writes the definition (and env file) and starts the service.
	Install(ctx context.Context, s Spec) error
	// Uninstall stops the service and removes its files. An absent
	// service is not an error.
	Uninstall(ctx context.Context, s Spec) error
	Start(ctx context.Context, s Spec) error
	// Stop stops the service; disable also keeps launchd from starting
	// it again at login (systemd: disable).
	Stop(ctx context.Context, s Spec, disable bool) error
	Restart(ctx context.Context, s Spec) error
	Status(ctx context.Context, s Spec) (Status, error)
}

// ErrUnsupported is returned for a platform without a supported service
// manager.
var ErrUnsupported = errors.New("no supported service manager on this platform (systemd user services on Linux, launchd on macOS)")

// For picks the manager for goos. home is the user's home, uid the
// user's id (launchd's gui/<uid> domain).
func For(goos, home string, uid int, r Runner) (Manager, error) {
	switch goos {
	case "linux":
		return &Systemd{Home: home, Run: r}, nil
	case "darwin":
		return &Launchd{Home: home, UID: uid, Run: r}, nil
	}
	return nil, ErrUnsupported
}

// writePrivate writes data to path with mode, through a temporary file
// renamed into place, so a reader never sees half a unit and a file that
// was wider before is narrowed.
func writePrivate(path string, data string, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.WriteString(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func removeIfExists(path string) error {
	if path == "" {
		return nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// Systemd manages systemd user units.
type Systemd struct {
	Home string
	Run  Runner
}

func (m *Systemd) Name() string { return "systemd" }

func (m *Systemd) unit(s Spec) string { return UnitName(s.Kind, s.Profile) + ".service" }

// Path is ~/.config/systemd/user/<unit>.service.
func (m *Systemd) Path(s Spec) string {
	return filepath.Join(m.Home, ".config", "systemd", "user", m.unit(s))
}

func (m *Systemd) Render(s Spec) (string, error) { return RenderSystemdUnit(s) }

func (m *Systemd) RenderEnvFile(s Spec) (string, error) {
	if len(s.Secrets) == 0 {
		return "", nil
	}
	return RenderSystemdEnvFile(s.Secrets)
}

func (m *Systemd) systemctl(ctx context.Context, args ...string) (string, error) {
	return m.Run.Run(ctx, "systemctl", append([]string{"--user"}, args...)...)
}

func (m *Systemd) Install(ctx context.Context, s Spec) error {
	unit, err := m.Render(s)
	if err != nil {
		return err
	}
	env, err := m.RenderEnvFile(s)
	if err != nil {
		return err
	}
	if err := writeEnvFile(s.EnvFile, env); err != nil {
		return err
	}
	if err := writePrivate(m.Path(s), unit, 0o600); err != nil {
		return err
	}
	for _, args := range [][]string{{"daemon-reload"}, {"enable", m.unit(s)}, {"restart", m.unit(s)}} {
		if _, err := m.systemctl(ctx, args...); err != nil {
			return err
		}
	}
	return nil
}

func (m *Systemd) Uninstall(ctx context.Context, s Spec) error {
	if exists(m.Path(s)) {
		// A unit systemd never loaded is no reason to keep the files.
		_, _ = m.systemctl(ctx, "disable", "--now", m.unit(s))
	}
	if err := removeIfExists(m.Path(s)); err != nil {
		return err
	}
	if err := removeIfExists(s.EnvFile); err != nil {
		return err
	}
	_, err := m.systemctl(ctx, "daemon-reload")
	return err
}

func (m *Systemd) Start(ctx context.Context, s Spec) error {
	_, err := m.systemctl(ctx, "start", m.unit(s))
	return err
}

func (m *Systemd) Stop(ctx context.Context, s Spec, disable bool) error {
	if disable {
		_, err := m.systemctl(ctx, "disable", "--now", m.unit(s))
		return err
	}
	_, err := m.systemctl(ctx, "stop", m.unit(s))
	return err
}

func (m *Systemd) Restart(ctx context.Context, s Spec) error {
	_, err := m.systemctl(ctx, "restart", m.unit(s))
	return err
}

func (m *Systemd) Status(ctx context.Context, s Spec) (Status, error) {
	st := Status{Manager: m.Name(), Name: m.unit(s), Path: m.Path(s), Installed: exists(m.Path(s))}
	out, err := m.systemctl(ctx, "show", m.unit(s), "--no-pager",
		"--property=LoadState,ActiveState,SubState,MainPID,UnitFileState")
	if err != nil {
		return st, err
	}
	props := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), "="); ok {
			props[k] = v
		}
	}
	st.Loaded = props["LoadState"] == "loaded" && (props["UnitFileState"] == "enabled" || props["UnitFileState"] == "enabled-runtime")
	st.Active = props["ActiveState"] == "active"
	if a := props["ActiveState"]; a != "" {
		st.State = a
		if sub := props["SubState"]; sub != "" {
			st.State += " (" + sub + ")"
		}
	}
	if pid, err := strconv.Atoi(props["MainPID"]); err == nil && pid > 0 {
		st.PID = pid
	}
	return st, nil
}

// Launchd manages launchd agents in the user's gui domain.
type Launchd struct {
	Home string
	UID  int
	Run  Runner
}

func (m *Launchd) Name() string { return "launchd" }

// Path is ~/Library/LaunchAgents/<label>.plist.
func (m *Launchd) Path(s Spec) string {
	return filepath.Join(m.Home, "Library", "LaunchAgents", Label(s.Kind, s.Profile)+".plist")
}

func (m *Launchd) Render(s Spec) (string, error) { return RenderLaunchdPlist(s) }

func (m *Launchd) RenderEnvFile(s Spec) (string, error) {
	if len(s.Secrets) == 0 {
		return "", nil
	}
	return RenderShellEnvFile(s.Secrets)
}

func (m *Launchd) domain() string { return "gui/" + strconv.Itoa(m.UID) }

func (m *Launchd) target(s Spec) string { return m.domain() + "/" + Label(s.Kind, s.Profile) }

func (m *Launchd) launchctl(ctx context.Context, args ...string) (string, error) {
	return m.Run.Run(ctx, "launchctl", args...)
}

func (m *Launchd) Install(ctx context.Context, s Spec) error {
	plist, err := m.Render(s)
	if err != nil {
		return err
	}
	env, err := m.RenderEnvFile(s)
	if err != nil {
		return err
	}
	if err := writeEnvFile(s.EnvFile, env); err != nil {
		return err
	}
	if s.LogPath != "" {
		if err := os.MkdirAll(filepath.Dir(s.LogPath), 0o700); err != nil {
			return fmt.Errorf("create log folder: %w", err)
		}
	}
	if err := writePrivate(m.Path(s), plist, 0o600); err != nil {
		return err
	}
	// A loaded older definition would keep running: unload it first
	// (not loaded is fine).
	_, _ = m.launchctl(ctx, "bootout", m.target(s))
	if _, err := m.launchctl(ctx, "enable", m.target(s)); err != nil {
		return err
	}
	_, err = m.launchctl(ctx, "bootstrap", m.domain(), m.Path(s))
	return err
}

func (m *Launchd) Uninstall(ctx context.Context, s Spec) error {
	_, _ = m.launchctl(ctx, "bootout", m.target(s))
	if err := removeIfExists(m.Path(s)); err != nil {
		return err
	}
	return removeIfExists(s.EnvFile)
}

func (m *Launchd) Start(ctx context.Context, s Spec) error {
	if _, err := m.launchctl(ctx, "enable", m.target(s)); err != nil {
		return err
	}
	if _, err := m.launchctl(ctx, "print", m.target(s)); err != nil {
		if _, err := m.launchctl(ctx, "bootstrap", m.domain(), m.Path(s)); err != nil {
			return err
		}
	}
	_, err := m.launchctl(ctx, "kickstart", m.target(s))
	return err
}

func (m *Launchd) Stop(ctx context.Context, s Spec, disable bool) error {
	if disable {
		if _, err := m.launchctl(ctx, "disable", m.target(s)); err != nil {
			return err
		}
	}
	if _, err := m.launchctl(ctx, "bootout", m.target(s)); err != nil {
		// Not loaded: already stopped.
		if _, perr := m.launchctl(ctx, "print", m.target(s)); perr != nil {
			return nil
		}
		return err
	}
	return nil
}

func (m *Launchd) Restart(ctx context.Context, s Spec) error {
	if _, err := m.launchctl(ctx, "print", m.target(s)); err != nil {
		return m.Start(ctx, s)
	}
	_, err := m.launchctl(ctx, "kickstart", "-k", m.target(s))
	return err
}

func (m *Launchd) Status(ctx context.Context, s Spec) (Status, error) {
	st := Status{Manager: m.Name(), Name: Label(s.Kind, s.Profile), Path: m.Path(s), Installed: exists(m.Path(s))}
	out, err := m.launchctl(ctx, "print", m.target(s))
	if err != nil {
		// launchctl print fails for a service that is not loaded.
		return st, nil
	}
	st.Loaded = true
	for _, l := range strings.Split(out, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(l), " = ")
		if !ok {
			continue
		}
		switch k {
		case "state":
			if st.State == "" {
				st.State = v
			}
		case "pid":
			if pid, err := strconv.Atoi(v); err == nil && st.PID == 0 {
				st.PID = pid
			}
		}
	}
	st.Active = st.State == "running"
	return st, nil
}

// writeEnvFile writes the service's owner-only secrets file, or removes
// a stale one when the service has no secrets any more.
func writeEnvFile(path, env string) error {
	if env == "" {
		return removeIfExists(path)
	}
	return writePrivate(path, env, 0o600)
}
