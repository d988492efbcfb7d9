// Package plugintest holds what the tests of the tool-provider packages
// (plugins/extproc, plugins/mcp, plugins/supervisor) share: building the
// child program a test supervises, waiting for a condition, and finding
// a provider's tools.
package plugintest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// Main builds the Go package pkg (e.g. "./testdata/plugin") once into a
// temporary directory, sets *bin to the program, runs the tests and exits
// with their status. Call it from TestMain.
func Main(m *testing.M, pkg string, bin *string) {
	dir, err := os.MkdirTemp("", "plugintest")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*bin = filepath.Join(dir, filepath.Base(pkg))
	out, err := exec.Command("go", "build", "-o", *bin, pkg).CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build %s: %v\n%s", pkg, err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// WaitFor polls cond until it holds, failing the test after 15 s:
// children start and restart on their own time, so tests wait for a state
// rather than sleep.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Source is a provider under test: a Manager.
type Source interface {
	Tools() []tools.Tool
}

// ToolNames lists the names of src's tools, in its order.
func ToolNames(src Source) []string {
	var out []string
	for _, t := range src.Tools() {
		out = append(out, t.Spec().Name)
	}
	return out
}

// FindTool returns src's tool called name, failing the test without one.
func FindTool(t testing.TB, src Source, name string) tools.Tool {
	t.Helper()
	for _, tl := range src.Tools() {
		if tl.Spec().Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %s in %v", name, ToolNames(src))
	return nil
}
