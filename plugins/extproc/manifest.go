package extproc

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// ManifestFile is the name of a plugin folder's manifest.
const ManifestFile = "openclaw.plugin.json"

// Manifest describes one out-of-process plugin. Unknown keys are ignored
// so that manifests written for OpenClaw's own (TypeScript) plugins, which
// carry more, still load and fail only on what we need.
type Manifest struct {
	// ID names the plugin in config (plugins.entries.<id>), in tool names
	// (<id>__<tool>) and in logs: letters, digits, - and _, at most 64.
	ID          string `json:"id"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	// Command is the executable. A path with a slash is relative to the
	// plugin's folder unless absolute; a bare name is looked up in PATH
	// when the plugin starts, as a shell would.
	Command string            `json:"command"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`

	// Dir is the folder the manifest was read from; the plugin runs there.
	Dir string `json:"-"`
}

var idRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`) })

// LoadManifest reads and validates dir/openclaw.plugin.json.
func LoadManifest(dir string) (Manifest, error) {
	file := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(file)
	if err != nil {
		return Manifest{}, fmt.Errorf("read plugin manifest: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return Manifest{}, fmt.Errorf("plugin manifest %s: %w", file, err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Manifest{}, fmt.Errorf("plugin manifest %s: %w", file, err)
	}
	m.Dir = abs
	if err := m.Validate(); err != nil {
		return Manifest{}, fmt.Errorf("plugin manifest %s: %w", file, err)
	}
	return m, nil
}

// Validate reports every bad field at once, each error naming its field.
func (m Manifest) Validate() error {
	var errs []error
	switch {
	case m.ID == "":
		errs = append(errs, errors.New("id: required"))
	case !idRE().MatchString(m.ID):
		errs = append(errs, fmt.Errorf("id: %q must be 1 to 64 letters, digits, - or _", m.ID))
	}
	if strings.TrimSpace(m.Command) == "" {
		errs = append(errs, errors.New("command: required"))
	}
	for k := range m.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			errs = append(errs, fmt.Errorf("env: bad variable name %q", k))
		}
	}
	return errors.Join(errs...)
}

// commandPath resolves Command against the plugin's folder.
func (m Manifest) commandPath() string {
	if filepath.IsAbs(m.Command) || !strings.ContainsRune(m.Command, '/') && !strings.ContainsRune(m.Command, filepath.Separator) {
		return m.Command
	}
	return filepath.Join(m.Dir, m.Command)
}

// Discover finds plugins in dirs: a dir holding a manifest is one plugin,
// otherwise each of its subfolders holding one is. Problems (an unreadable
// dir, a bad manifest, an id seen twice) are all returned beside the
// plugins that did load, so one broken plugin does not hide the others.
// The result is sorted by id; of two plugins with one id the first found
// wins.
func Discover(dirs []string) ([]Manifest, []error) {
	var out []Manifest
	var errs []error
	seen := map[string]string{}
	add := func(dir string) {
		m, err := LoadManifest(dir)
		if err != nil {
			errs = append(errs, err)
			return
		}
		if other, dup := seen[m.ID]; dup {
			errs = append(errs, fmt.Errorf("plugin %q in %s: id already used by %s; skipped", m.ID, m.Dir, other))
			return
		}
		seen[m.ID] = m.Dir
		out = append(out, m)
	}
	for _, dir := range dirs {
		if _, err := os.Stat(filepath.Join(dir, ManifestFile)); err == nil {
			add(dir)
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			errs = append(errs, fmt.Errorf("scan plugin dir: %w", err))
			continue
		}
		for _, e := range entries {
			sub := filepath.Join(dir, e.Name())
			if !isDir(sub) {
				continue
			}
			if _, err := os.Stat(filepath.Join(sub, ManifestFile)); err == nil {
				add(sub)
			}
		}
	}
	slices.SortFunc(out, func(a, b Manifest) int { return strings.Compare(a.ID, b.ID) })
	return out, errs
}

// isDir follows symlinks, so a linked plugin folder counts.
func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
