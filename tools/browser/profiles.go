package browser

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"time"
)

// The range profiles' DevTools ports are taken from, as in OpenClaw.
const (
	firstCDPPort = 18800
	lastCDPPort  = 18899
)

// Profile is one named browser: its own user-data dir and DevTools port,
// or a remote browser reached at CDPURL that the gateway only attaches to.
type Profile struct {
	Name string `json:"name"`
	// CDPPort is the local DevTools port, from 18800–18899.
	CDPPort int `json:"cdpPort,omitempty"`
	// CDPURL makes the profile attach-only: start, stop and reset do not
	// manage a process, and delete refuses.
	CDPURL    string    `json:"cdpUrl,omitempty"`
	CreatedAt time.Time `json:"createdAt,omitzero"`
	// configured profiles come from the operator's config, not the file,
	// and the tool cannot delete them.
	configured bool
	// wrap, for a sandbox's browser, puts Chromium's command line inside
	// the sandbox (Config.Sandbox).
	wrap func([]string) ([]string, error)
}

// Remote reports whether the profile attaches to a browser it does not run.
func (p Profile) Remote() bool { return p.CDPURL != "" }

var profileName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`) })

func validName(name string) error {
	if !profileName().MatchString(name) {
		return fmt.Errorf("profile name %q: use up to 64 lowercase letters, digits and hyphens", name)
	}
	return nil
}

// profileFile is the shape of StateDir/browser/profiles.json.
type profileFile struct {
	Profiles []Profile `json:"profiles"`
}

func (m *Manager) profilesPath() string {
	return filepath.Join(m.cfg.StateDir, "browser", "profiles.json")
}

// userDataDir is where a local profile's Chromium keeps its state.
func (m *Manager) userDataDir(name string) string {
	return filepath.Join(m.cfg.StateDir, "browser", name)
}

// loadProfiles reads the saved profiles; a missing file is no profiles.
// Callers hold m.mu.
func (m *Manager) loadProfiles() ([]Profile, error) {
	b, err := os.ReadFile(m.profilesPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read browser profiles: %w", err)
	}
	var f profileFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("parse %s: %w", m.profilesPath(), err)
	}
	return f.Profiles, nil
}

// saveProfiles writes the file atomically (temp file and rename) so a
// crash never leaves half a list. Callers hold m.mu.
func (m *Manager) saveProfiles(list []Profile) error {
	dir := filepath.Dir(m.profilesPath())
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("save browser profiles: %w", err)
	}
	b, err := json.MarshalIndent(profileFile{Profiles: list}, "", "  ")
	if err != nil {
		return fmt.Errorf("save browser profiles: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "profiles-*.json")
	if err != nil {
		return fmt.Errorf("save browser profiles: %w", err)
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), m.profilesPath())
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("save browser profiles: %w", err)
	}
	return nil
}

// profiles lists every profile: configured ones, saved ones and the
// default, which exists even when nothing mentions it. Callers hold m.mu.
func (m *Manager) profiles() ([]Profile, error) {
	saved, err := m.loadProfiles()
	if err != nil {
		return nil, err
	}
	set := m.settings()
	var out []Profile
	seen := map[string]bool{}
	for _, name := range sortedKeys(set.Profiles) {
		p := set.Profiles[name]
		p.Name, p.configured = name, true
		out = append(out, p)
		seen[name] = true
	}
	for _, p := range saved {
		if !seen[p.Name] {
			out = append(out, p)
			seen[p.Name] = true
		}
	}
	if !seen[set.DefaultProfile] {
		out = append([]Profile{{Name: set.DefaultProfile}}, out...)
	}
	return out, nil
}

// profile finds one profile by name. Callers hold m.mu.
func (m *Manager) profile(name string) (Profile, error) {
	list, err := m.profiles()
	if err != nil {
		return Profile{}, err
	}
	for _, p := range list {
		if p.Name == name {
			return p, nil
		}
	}
	return Profile{}, fmt.Errorf("no browser profile %q (see action profiles)", name)
}

// createProfile saves a new profile, giving a local one the first free
// port of the range. Callers hold m.mu.
func (m *Manager) createProfile(name, cdpURL string) (Profile, error) {
	if err := validName(name); err != nil {
		return Profile{}, err
	}
	list, err := m.profiles()
	if err != nil {
		return Profile{}, err
	}
	for _, p := range list {
		if p.Name == name {
			return Profile{}, fmt.Errorf("browser profile %q exists", name)
		}
	}
	p := Profile{Name: name, CreatedAt: m.now().UTC()}
	if cdpURL != "" {
		u, err := url.Parse(cdpURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
			return Profile{}, fmt.Errorf("cdpUrl %q: want an http(s) or ws(s) URL of a DevTools endpoint", cdpURL)
		}
		p.CDPURL = cdpURL
	} else {
		port, err := freePort(usedPorts(list))
		if err != nil {
			return Profile{}, err
		}
		p.CDPPort = port
	}
	saved, err := m.loadProfiles()
	if err != nil {
		return Profile{}, err
	}
	if err := m.saveProfiles(append(saved, p)); err != nil {
		return Profile{}, err
	}
	return p, nil
}

// forgetProfile removes a saved profile from the file. Callers hold m.mu.
func (m *Manager) forgetProfile(name string) error {
	saved, err := m.loadProfiles()
	if err != nil {
		return err
	}
	saved = slices.DeleteFunc(saved, func(p Profile) bool { return p.Name == name })
	return m.saveProfiles(saved)
}

func usedPorts(list []Profile) map[int]bool {
	used := map[int]bool{}
	for _, p := range list {
		if p.CDPPort != 0 {
			used[p.CDPPort] = true
		}
	}
	return used
}

// freePort returns the first port of the range that no profile claims and
// that can be listened on right now.
func freePort(used map[int]bool) (int, error) {
	for port := firstCDPPort; port <= lastCDPPort; port++ {
		if used[port] {
			continue
		}
		if portFree(port) {
			return port, nil
		}
	}
	return 0, fmt.Errorf("no free DevTools port in %d-%d", firstCDPPort, lastCDPPort)
}

// portFree checks both loopback families: Chromium may bind its DevTools
// port on ::1 as well as (or instead of) 127.0.0.1.
func portFree(port int) bool {
	for _, host := range []string{"127.0.0.1", "::1"} {
		l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			if host == "::1" && !ipv6Loopback() {
				continue
			}
			return false
		}
		l.Close()
	}
	return true
}

// ipv6Loopback reports whether this host has ::1 at all.
func ipv6Loopback() bool {
	l, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		return false
	}
	l.Close()
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
