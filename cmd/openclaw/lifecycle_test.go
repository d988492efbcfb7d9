package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/statelock"
)

// The CLI says what is really wrong when it cannot use the local config
// or find the gateway, instead of a refusal that points elsewhere.
func TestCLINamesTheRealProblem(t *testing.T) {
	t.Run("config does not parse", func(t *testing.T) {
		home := isolate(t)
		writeConfig(t, filepath.Join(home, ".openclaw", "openclaw.json"), "{\n  gateway: { port: 18789,, },\n}\n")
		_, stderr, err := runCLI(t, "health")
		if err == nil || !strings.Contains(stderr, "openclaw.json:2:") || strings.Contains(stderr, "AUTH_TOKEN_MISSING") {
			t.Fatalf("err %v, stderr:\n%s\nwant the parse error's position, not AUTH_TOKEN_MISSING", err, stderr)
		}
	})
	t.Run("token names an unset variable", func(t *testing.T) {
		home := isolate(t)
		writeConfig(t, filepath.Join(home, ".openclaw", "openclaw.json"), "{\n  gateway: { auth: { token: '${MY_GW_TOKEN}' } },\n}\n")
		_, stderr, err := runCLI(t, "health")
		if err == nil || !strings.Contains(stderr, "MY_GW_TOKEN is not set") || strings.Contains(stderr, "AUTH_TOKEN_MISSING") {
			t.Fatalf("err %v, stderr:\n%s", err, stderr)
		}
	})
	t.Run("gateway still on the old port", func(t *testing.T) {
		home := isolate(t)
		state := filepath.Join(home, ".openclaw")
		newPort := freePort(t)
		writeConfig(t, filepath.Join(state, "openclaw.json"), fmt.Sprintf("{ gateway: { port: %d, auth: { token: 'tok' } } }\n", newPort))
		// A gateway of this state directory started before the edit.
		lock, err := statelock.Acquire(state, filepath.Join(state, "openclaw.json"))
		if err != nil {
			t.Fatal(err)
		}
		defer lock.Release()
		if err := lock.SetPort(18799); err != nil {
			t.Fatal(err)
		}
		_, stderr, err := runCLI(t, "health")
		if err == nil {
			t.Fatal("health succeeded with no gateway on the port")
		}
		for _, want := range []string{"gateway.port " + strconv.Itoa(newPort), "pid " + strconv.Itoa(os.Getpid()), "running on port 18799", "Restart it"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
		}
	})
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
