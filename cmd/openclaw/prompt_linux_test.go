package main

import (
	"bufio"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// TestReadNoEchoOnTerminal types a secret into a real pseudo-terminal:
// the terminal must not echo it, and echo must be back afterwards.
func TestReadNoEchoOnTerminal(t *testing.T) {
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer master.Close()
	defer slave.Close()
	in := bufio.NewReader(slave)
	got, err := readNoEcho(slave, func() (string, error) {
		// Echo is off by now: type the secret.
		if _, err := master.Write([]byte("hunter2-secret\n")); err != nil {
			return "", err
		}
		return in.ReadString('\n')
	})
	if err != nil || strings.TrimSpace(got) != "hunter2-secret" {
		t.Fatalf("read %q, %v", got, err)
	}
	// Echo restored: this line comes back, after anything echoed before.
	if _, err := master.Write([]byte("after-marker\n")); err != nil {
		t.Fatal(err)
	}
	var seen strings.Builder
	buf := make([]byte, 256)
	for !strings.Contains(seen.String(), "after-marker") {
		n, err := master.Read(buf)
		if err != nil {
			t.Fatalf("read terminal output: %v (so far %q)", err, seen.String())
		}
		seen.Write(buf[:n])
	}
	if strings.Contains(seen.String(), "hunter2") {
		t.Errorf("the terminal echoed the secret: %q", seen.String())
	}
}
