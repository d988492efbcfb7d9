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
	p := execpolicy.DefaultPolicy()
	apply := func(st Settings) {
		if st.Security != "" {
			p.Security = execpolicy.Security(st.Security)
		}
		if st.Ask != "" {
			p.Ask = execpolicy.Ask(st.Ask)
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
	return p
}

func hash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
