// Package execapprovals keeps the exec approvals file: per-agent exec
// security (deny, allowlist, full), when to ask, and the allowlist of
// executables, in OpenClaw's file shape, served by exec.approvals.get|set.
// PolicyFor turns it into the execpolicy.Policy the exec tool decides with.
//
// The file lives at <state dir>/exec-approvals.json (mode 0600). Writes
// are compare-and-swap on the file's hash, so two editors never silently
// overwrite each other. A Store is safe for concurrent use.
package execapprovals

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/openclaw-go/openclaw/policy/execpolicy"
)

// File is the exec approvals document.
type File struct {
	Version  int                  `json:"version"`
	Socket   *Socket              `json:"socket,omitempty"`
	Defaults Settings             `json:"defaults,omitzero"`
	Agents   map[string]AgentFile `json:"agents,omitempty"`
}

// Socket is the optional approvals socket of node hosts.
type Socket struct {
	Path  string `json:"path,omitempty"`
	Token string `json:"token,omitempty"`
}

// Settings are the policy knobs, for the defaults or one agent ("*" = all).
type Settings struct {
	Security        string `json:"security,omitempty"`
	Ask             string `json:"ask,omitempty"`
	AskFallback     string `json:"askFallback,omitempty"`
	AutoAllowSkills *bool  `json:"autoAllowSkills,omitempty"`
}

// AgentFile is one agents entry.
type AgentFile struct {
	Settings
	Allowlist []AllowEntry `json:"allowlist,omitempty"`
}

// AllowEntry is one allowlisted executable.
type AllowEntry struct {
	ID               string  `json:"id,omitempty"`
	Pattern          string  `json:"pattern"`
	Source           string  `json:"source,omitempty"`
	CommandText      string  `json:"commandText,omitempty"`
	ArgPattern       string  `json:"argPattern,omitempty"`
	LastUsedAt       float64 `json:"lastUsedAt,omitempty"`
	LastUsedCommand  string  `json:"lastUsedCommand,omitempty"`
	LastResolvedPath string  `json:"lastResolvedPath,omitempty"`
}

// Snapshot is what exec.approvals.get answers.
type Snapshot struct {
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
	Hash   string `json:"hash"`
	File   File   `json:"file"`
}

// ErrStale means the file changed since the caller read it.
var ErrStale = errors.New("exec approvals changed since they were read; get them again")

// Store reads and writes the file.
type Store struct {
	path string
	mu   sync.Mutex
}

// New makes a store for the file at path.
func New(path string) *Store { return &Store{path: path} }

// Get reads the file; a missing file is version 1 with OpenClaw's
// defaults (allowlist, ask on a miss, deny when nobody can be asked).
func (s *Store) Get() (Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.read()
}

func (s *Store) read() (Snapshot, error) {
	snap := Snapshot{Path: s.path, File: File{Version: 1}}
	data, err := os.ReadFile(s.path)
	if errors.Is(err, os.ErrNotExist) {
		snap.Hash = hash(nil)
		return snap, nil
	}
	if err != nil {
		return snap, fmt.Errorf("read exec approvals: %w", err)
	}
	snap.Exists, snap.Hash = true, hash(data)
	if err := json.Unmarshal(data, &snap.File); err != nil {
		return snap, fmt.Errorf("read exec approvals %s: %w", s.path, err)
	}
	return snap, nil
}

// Set validates and replaces the file. baseHash, when given, must be the
// hash of the file as the caller last read it.
func (s *Store) Set(f File, baseHash string) (Snapshot, error) {
	if err := f.Validate(); err != nil {
		return Snapshot{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, err := s.read()
	if err != nil {
		return cur, err
	}
	if baseHash != "" && baseHash != cur.Hash {
		return cur, ErrStale
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return cur, err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return cur, fmt.Errorf("write exec approvals: %w", err)
	}
	tmp := s.path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return cur, fmt.Errorf("write exec approvals: %w", err)
	}
	if err := os.Rename(tmp, s.path); err != nil {
		return cur, fmt.Errorf("write exec approvals: %w", err)
	}
	return s.read()
}

// Validate checks the version and every security, ask and askFallback value.
func (f File) Validate() error {
	var errs []error
	if f.Version != 1 {
		errs = append(errs, fmt.Errorf("version must be 1, got %d", f.Version))
	}
	check := func(where string, st Settings) {
		if st.Security != "" && !slices.Contains([]string{"deny", "allowlist", "full"}, st.Security) {
			errs = append(errs, fmt.Errorf("%s.security %q: want deny, allowlist or full", where, st.Security))
		}
		if st.Ask != "" && !slices.Contains([]string{"off", "on-miss", "always"}, st.Ask) {
			errs = append(errs, fmt.Errorf("%s.ask %q: want off, on-miss or always", where, st.Ask))
		}
		if st.AskFallback != "" && !slices.Contains([]string{"deny", "allowlist", "full"}, st.AskFallback) {
			errs = append(errs, fmt.Errorf("%s.askFallback %q: want deny, allowlist or full", where, st.AskFallback))
		}
	}
	check("defaults", f.Defaults)
	for id, a := range f.Agents {
		check("agents."+id, a.Settings)
		for i, e := range a.Allowlist {
			if e.Pattern == "" {
				errs = append(errs, fmt.Errorf("agents.%s.allowlist[%d]: pattern is required", id, i))
			}
		}
	}
	return errors.Join(errs...)
}

// PolicyFor is the exec policy of one agent: OpenClaw's defaults, then
// the file's defaults, then its "*" entry, then the agent's own entry;
// allowlists of "*" and the agent add up.
func (f File) PolicyFor(agentID string) execpolicy.Policy {
	return f.PolicyWith(agentID, Configured{})
}

// Configured is what the gateway config (tools.exec) says about exec
// policy; "" and nil mean "not configured".
type Configured struct {
	// Security and Ask from tools.exec.mode, or tools.exec.security/ask.
	Security, Ask string
	// SafeBins replaces the default list when not nil.
	SafeBins []string
	// TrustedDirs are added to the default trusted directories.
	TrustedDirs []string
	// Profiles replace the built-in profile of the bins they name.
	Profiles map[string]execpolicy.BinProfile
}

// PolicyWith is PolicyFor over the config's exec settings, with
// OpenClaw's layering: where both the config and the file set security,
// the lower wins, and for ask the stricter; what only one sets is taken
// from it; what neither sets is our default (allowlist, asking on a
// miss). The file can thus only tighten what the config allows, and a
// config of security "full" with ask "off" (mode "full") runs commands
// unasked unless the file says otherwise.
func (f File) PolicyWith(agentID string, c Configured) execpolicy.Policy {
	p := execpolicy.DefaultPolicy()
	var fileSec, fileAsk string
	apply := func(st Settings) {
		if st.Security != "" {
			fileSec = st.Security
		}
		if st.Ask != "" {
			fileAsk = st.Ask
		}
		if st.AskFallback != "" {
			p.AskFallback = execpolicy.Security(st.AskFallback)
		}
	}
	apply(f.Defaults)
	for _, id := range []string{"*", agentID} {
		a, ok := f.Agents[id]
		if !ok {
			continue
		}
		apply(a.Settings)
		for _, e := range a.Allowlist {
			p.Allowlist = append(p.Allowlist, execpolicy.Entry{Pattern: e.Pattern})
		}
	}
	secRank := map[string]int{"deny": 0, "allowlist": 1, "full": 2}
	askRank := map[string]int{"off": 0, "on-miss": 1, "always": 2}
	switch sec := c.Security; {
	case sec != "" && fileSec != "":
		if secRank[fileSec] < secRank[sec] {
			sec = fileSec
		}
		p.Security = execpolicy.Security(sec)
	case sec != "":
		p.Security = execpolicy.Security(sec)
	case fileSec != "":
		p.Security = execpolicy.Security(fileSec)
	}
	switch ask := c.Ask; {
	case ask != "" && fileAsk != "":
		if askRank[fileAsk] > askRank[ask] {
			ask = fileAsk
		}
		p.Ask = execpolicy.Ask(ask)
	case ask != "":
		p.Ask = execpolicy.Ask(ask)
	case fileAsk != "":
		p.Ask = execpolicy.Ask(fileAsk)
	}
	if c.SafeBins != nil {
		p.SafeBins = slices.Clone(c.SafeBins)
	}
	if len(c.TrustedDirs) > 0 {
		p.SafeBinTrustedDirs = append(slices.Clone(execpolicy.DefaultTrustedDirs), c.TrustedDirs...)
	}
	if len(c.Profiles) > 0 {
		p.SafeBinProfiles = maps.Clone(c.Profiles)
	}
	return p
}

func hash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
