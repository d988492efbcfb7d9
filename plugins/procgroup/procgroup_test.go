//go:build unix

package procgroup

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestStopEndsGroup starts a shell that leaves a grandchild ignoring
// SIGTERM, as a careless wrapper script does: Stop must end both, the
// grandchild with SIGKILL once the grace is over.
func TestStopEndsGroup(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pid")
	cmd := exec.Command("sh", "-c", `trap "" TERM; sleep 300 & echo $! > "$0"; wait`, file)
	Own(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var child int
	for i := 0; i < 500 && child == 0; i++ {
		b, _ := os.ReadFile(file)
		child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		time.Sleep(10 * time.Millisecond)
	}
	if child == 0 {
		t.Fatal("the shell wrote no child pid")
	}
	t.Cleanup(func() {
		if p, err := os.FindProcess(child); err == nil {
			p.Kill()
		}
	})
	Stop(cmd.Process.Pid, 200*time.Millisecond)
	<-waited
	if groupAlive(cmd.Process.Pid) {
		t.Fatalf("group %d still has members after Stop", cmd.Process.Pid)
	}
	// A group that is gone is left alone.
	Stop(cmd.Process.Pid, time.Hour)
}
