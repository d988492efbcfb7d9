// Package channelstest holds what the channel adapters' tests and their
// fake networks share: waking a test when a fake's state changes, so
// waits are conditions with a deadline, never sleeps; a recording Sink
// that can play a store that is down; and golden-file cases.
package channelstest

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Changes is a fake's "something happened" signal. The fake calls Notify
// and Chan with its own lock held.
type Changes struct{ ch chan struct{} }

// Notify wakes everyone waiting on the current channel.
func (c *Changes) Notify() {
	if c.ch != nil {
		close(c.ch)
	}
	c.ch = make(chan struct{})
}

// Chan is closed at the next Notify.
func (c *Changes) Chan() <-chan struct{} {
	if c.ch == nil {
		c.ch = make(chan struct{})
	}
	return c.ch
}

// WaitFor waits until cond holds, checking it with mu held after every
// change, and fails t after d; name says which fake timed out.
func WaitFor(t testing.TB, name string, mu sync.Locker, c *Changes, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		mu.Lock()
		ok := cond()
		ch := c.Chan()
		mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("%s: timed out after %s waiting for %s", name, d, what)
			return
		}
	}
}

// Golden compares got (plus a final newline) with the file at path, or
// writes it there when update is set (then review the diff).
func Golden(t testing.TB, path, got string, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, []byte(got+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got+"\n" != string(want) {
		t.Errorf("%s differs\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// GoldenCases runs check as a subtest for each NAME.md in dir, passing
// the path without ".md" (where NAME's expected outputs sit beside it) and
// the file's text; fewer than atLeast cases fail t, so a moved testdata
// folder is not a silent pass. The cases run in parallel, so that -race
// checks a renderer shared between calls is safe.
func GoldenCases(t *testing.T, dir string, atLeast int, check func(t *testing.T, base, src string)) {
	t.Helper()
	inputs, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) < atLeast {
		t.Fatalf("found %d golden inputs in %s, want at least %d", len(inputs), dir, atLeast)
	}
	for _, in := range inputs {
		base := strings.TrimSuffix(in, ".md")
		t.Run(filepath.Base(base), func(t *testing.T) {
			t.Parallel()
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			check(t, base, string(src))
		})
	}
}
