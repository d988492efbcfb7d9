package host

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/google/uuid"
)

// Files in the node's state dir.
const (
	identityFile  = "device.json"
	stateFile     = "node.json"
	approvalsFile = "exec-approvals.json"
)

// nodeState is node.json: the node id and the device token a gateway
// issued. The token is kept with the gateway URL it came from and is only
// ever sent back there.
type nodeState struct {
	Version     int          `json:"version"`
	NodeID      string       `json:"nodeId"`
	DeviceToken *deviceToken `json:"deviceToken,omitempty"`
}

type deviceToken struct {
	Gateway    string   `json:"gateway"`
	Token      string   `json:"token"`
	Role       string   `json:"role"`
	Scopes     []string `json:"scopes"`
	IssuedAtMs int64    `json:"issuedAtMs,omitempty"`
}

// stateStore reads and writes node.json; safe for concurrent use.
type stateStore struct {
	path string
	mu   sync.Mutex
	cur  nodeState
}

// openState loads node.json, creating it with a fresh node id (or
// nodeID when given) if it is missing. A non-empty nodeID replaces the
// stored one.
func openState(dir, nodeID string) (*stateStore, error) {
	s := &stateStore{path: filepath.Join(dir, stateFile)}
	data, err := os.ReadFile(s.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		s.cur = nodeState{Version: 1}
	case err != nil:
		return nil, fmt.Errorf("load node state: %w", err)
	default:
		if err := json.Unmarshal(data, &s.cur); err != nil {
			return nil, fmt.Errorf("load node state %s: %w", s.path, err)
		}
	}
	changed := false
	if nodeID != "" && nodeID != s.cur.NodeID {
		s.cur.NodeID, changed = nodeID, true
	}
	if s.cur.NodeID == "" {
		s.cur.NodeID, changed = uuid.NewString(), true
	}
	if changed || s.cur.Version == 0 {
		s.cur.Version = 1
		if err := s.saveLocked(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *stateStore) nodeID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur.NodeID
}

// token returns the device token stored for gateway, or "".
func (s *stateStore) token(gateway string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.cur.DeviceToken; t != nil && t.Gateway == gateway {
		return t.Token
	}
	return ""
}

// setToken stores (or, with an empty token, forgets) the device token.
func (s *stateStore) setToken(t *deviceToken) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cur.DeviceToken = t
	return s.saveLocked()
}

// saveLocked writes node.json atomically with mode 0600.
func (s *stateStore) saveLocked() error {
	data, err := json.MarshalIndent(s.cur, "", "  ")
	if err != nil {
		return fmt.Errorf("save node state: %w", err)
	}
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("save node state: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".node-*.tmp")
	if err != nil {
		return fmt.Errorf("save node state: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("save node state: %w", err)
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("save node state: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save node state: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		return fmt.Errorf("save node state: %w", err)
	}
	return nil
}
