package statelock

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestStateLockRefusesSecondHolder(t *testing.T) {
	dir := t.TempDir()
	first, err := Acquire(dir, filepath.Join(dir, "openclaw.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer first.Release()
	if err := first.SetPort(18789); err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(dir, filepath.Join(dir, "openclaw.json"))
	if !errors.Is(err, ErrGatewayRunning) {
		t.Fatalf("second Acquire: %v, want ErrGatewayRunning", err)
	}
	for _, want := range []string{"pid " + strconv.Itoa(os.Getpid()), "port 18789"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not name %q", err, want)
		}
	}
	owner, ok := Read(dir)
	if !ok || owner.PID != os.Getpid() || owner.Port != 18789 {
		t.Fatalf("Read = %+v, %v; want this pid on 18789", owner, ok)
	}
	// Reading does not disturb the holder's claim.
	if _, err := Acquire(dir, ""); !errors.Is(err, ErrGatewayRunning) {
		t.Fatalf("after Read, Acquire: %v", err)
	}
	first.Release()
	if _, ok := Read(dir); ok {
		t.Fatal("Read reports a released lock")
	}
	again, err := Acquire(dir, "")
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	again.Release()
}

// A payload left by a process that died (kill -9 cannot clean up) names a
// pid but nobody holds the lock: the next start takes it over.
func TestStateLockTakesOverStalePayload(t *testing.T) {
	dir := t.TempDir()
	path := Path(dir)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"pid":999999,"createdAt":"2020-01-01T00:00:00Z","configPath":"/x","port":18789}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if owner, ok := Read(dir); ok {
		t.Fatalf("Read reports the dead owner %+v as running", owner)
	}
	l, err := Acquire(dir, "")
	if err != nil {
		t.Fatalf("stale lock not taken over: %v", err)
	}
	defer l.Release()
	owner, ok := Read(dir)
	if !ok || owner.PID != os.Getpid() || owner.Port != 0 {
		t.Fatalf("payload after take-over = %+v, %v", owner, ok)
	}
}

// A clean stop leaves no lock file behind, so OpenClaw's own gateway
// started on this state later does not wait out its staleness window on
// an empty one; and a start that was waiting on the file as it was
// removed must not end up holding a lock on a file nobody else can see.
func TestStateLockReleaseRemovesFile(t *testing.T) {
	dir := t.TempDir()
	first, err := Acquire(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	// A second start has the old file open and waits for its flock.
	waiting, err := os.OpenFile(Path(dir), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer waiting.Close()
	first.Release()
	if _, err := os.Stat(Path(dir)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("lock file after Release: %v, want it gone", err)
	}
	if held, err := tryLockFile(waiting, true); err != nil || !held {
		t.Fatalf("flock on the removed file: held=%v err=%v", held, err)
	}
	if lockedFileIsAtPath(waiting, Path(dir)) {
		t.Fatal("a lock on the removed file counts as the state's lock")
	}
	unlockFile(waiting)
	// The real next start opens the path anew and holds what others see.
	next, err := Acquire(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	defer next.Release()
	if owner, ok := Read(dir); !ok || owner.PID != os.Getpid() {
		t.Fatalf("Read after the next start = %+v, %v", owner, ok)
	}
}
