// Package statelock is one gateway's claim on its state directory: a second
// gateway on the same state refuses to start, and the CLI finds the one
// that runs.
package statelock

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Lock is one gateway's claim on its state directory, so that a
// second gateway on the same state (which would poll the same Telegram bot
// and run every cron job twice) refuses to start. The claim is an OS file
// lock (flock, LockFileEx) that the kernel drops when the process ends, so
// a gateway killed with SIGKILL leaves nothing stale behind. The file holds
// OpenClaw's lock payload (pid, createdAt, configPath, stateDir, port) for
// the refusal message and for the CLI, which uses it to find a gateway
// still running on a port the config no longer names.
//
// The file sits where OpenClaw keeps its own, under
// <stateDir>/tmp/openclaw-<uid>/gateway.state.lock. Release removes it,
// so OpenClaw's own gateway, started on this state later, finds no file
// (it would otherwise wait out its staleness window on an empty one). A
// process that opened the file just before the removal and then gets its
// flock holds a file no longer at the path; Acquire checks that
// the file it locked is still the one the path names, and starts over if
// not.
type Lock struct {
	f       *os.File
	Path    string
	payload Owner
}

// Owner is the lock file's payload, in OpenClaw's field names.
type Owner struct {
	PID        int    `json:"pid"`
	CreatedAt  string `json:"createdAt"`
	ConfigPath string `json:"configPath"`
	StateDir   string `json:"stateDir,omitempty"`
	// Port is the port the gateway listens on; 0 while it is starting.
	Port int `json:"port,omitempty"`
}

// String names the owner as the refusal and the CLI show it.
func (o Owner) String() string {
	port := "port not yet open"
	if o.Port != 0 {
		port = "port " + strconv.Itoa(o.Port)
	}
	return fmt.Sprintf("pid %d, %s", o.PID, port)
}

// ErrGatewayRunning is returned by Acquire when another live
// process holds the state directory. The caller stops: starting anyway
// would run a second gateway on the same state.
var ErrGatewayRunning = errors.New("gateway already running")

// Path is the lock file of a state directory.
func Path(stateDir string) string {
	dir := "openclaw"
	if uid := os.Getuid(); uid >= 0 {
		dir = "openclaw-" + strconv.Itoa(uid)
	}
	return filepath.Join(stateDir, "tmp", dir, "gateway.state.lock")
}

// lockAttempts × lockRetry is how long a start waits for the lock: long
// enough to ride out a CLI probing the lock (Read holds it shared
// for an instant) or a gateway that is just exiting, short enough that a
// second start refuses quickly.
const (
	lockAttempts = 20
	lockRetry    = 50 * time.Millisecond
)

// Acquire claims stateDir for this process. When a live process
// holds it, the error wraps ErrGatewayRunning and names its pid and port.
func Acquire(stateDir, configPath string) (*Lock, error) {
	path := Path(stateDir)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create gateway lock folder: %w", err)
	}
	var f *os.File
	for attempt := 1; ; attempt++ {
		if f == nil {
			var err error
			if f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600); err != nil {
				return nil, fmt.Errorf("open gateway lock %s: %w", path, err)
			}
		}
		held, err := tryLockFile(f, true)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if held {
			if lockedFileIsAtPath(f, path) {
				break
			}
			// The holder we waited for removed the file as it exited:
			// this lock is on a file nobody else will open again.
			unlockFile(f)
			f.Close()
			f = nil
			continue
		}
		if attempt >= lockAttempts {
			f.Close()
			owner, ok := readOwner(path)
			if !ok {
				return nil, fmt.Errorf("%w (state %s; lock %s)", ErrGatewayRunning, stateDir, path)
			}
			return nil, fmt.Errorf("%w (%s; state %s): stop it first, or give this one its own OPENCLAW_STATE_DIR", ErrGatewayRunning, owner, stateDir)
		}
		time.Sleep(lockRetry)
	}
	abs, _ := filepath.Abs(configPath)
	l := &Lock{f: f, Path: path, payload: Owner{
		PID: os.Getpid(), CreatedAt: time.Now().UTC().Format(time.RFC3339Nano), ConfigPath: abs, StateDir: stateDir,
	}}
	if err := l.write(); err != nil {
		l.Release()
		return nil, err
	}
	return l, nil
}

// SetPort records the port the gateway now listens on.
func (l *Lock) SetPort(port int) error {
	l.payload.Port = port
	return l.write()
}

func (l *Lock) write() error {
	b, _ := json.Marshal(l.payload)
	if err := l.f.Truncate(0); err != nil {
		return fmt.Errorf("write gateway lock %s: %w", l.Path, err)
	}
	if _, err := l.f.WriteAt(append(b, '\n'), 0); err != nil {
		return fmt.Errorf("write gateway lock %s: %w", l.Path, err)
	}
	return nil
}

// Release removes the file (or, where an open file cannot be removed,
// empties it) and drops the lock.
func (l *Lock) Release() {
	if l == nil || l.f == nil {
		return
	}
	l.f.Truncate(0)
	os.Remove(l.Path)
	unlockFile(l.f)
	l.f.Close()
	l.f = nil
}

// Read reports the gateway holding stateDir, if one does. It
// takes the lock shared for an instant to learn whether its holder is
// alive, so a payload left by a killed process is never reported.
func Read(stateDir string) (Owner, bool) {
	path := Path(stateDir)
	f, err := os.Open(path)
	if err != nil {
		return Owner{}, false
	}
	defer f.Close()
	free, err := tryLockFile(f, false)
	if err != nil {
		return Owner{}, false
	}
	if free {
		unlockFile(f)
		return Owner{}, false
	}
	return readOwner(path)
}

// lockedFileIsAtPath reports whether f is still the file path names.
func lockedFileIsAtPath(f *os.File, path string) bool {
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	pi, err := os.Stat(path)
	return err == nil && os.SameFile(fi, pi)
}

// readOwner reads the payload; a gateway rewriting it may be caught
// between truncate and write, so an empty read is tried again.
func readOwner(path string) (Owner, bool) {
	for range 3 {
		b, err := os.ReadFile(path)
		if err != nil {
			return Owner{}, false
		}
		var o Owner
		if json.Unmarshal(b, &o) == nil && o.PID > 0 {
			return o, true
		}
		time.Sleep(lockRetry)
	}
	return Owner{}, false
}
