package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

// TestMemoryCLI: `openclaw memory search` finds a note in the agent's
// workspace through the gateway's memory tool and `memory status` then
// counts it; a memory file that is a symlink out of the workspace is not
// read (the attack: a note planted as a link to a secret elsewhere).
func TestMemoryCLI(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	ws, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(ws, "MEMORY.md"), []byte("# Notes\n\nThe deploy window is Tuesday 14:00 UTC.\n"), 0o600)
	os.MkdirAll(filepath.Join(ws, "memory"), 0o700)
	secret := filepath.Join(outside, "secret.md")
	os.WriteFile(secret, []byte("zebracorn launch code 0000\n"), 0o600)
	if err := os.Symlink(secret, filepath.Join(ws, "memory", "linked.md")); err != nil {
		t.Fatal(err)
	}
	model := fakemodel.New(t)
	g := startGateway(t, gatewayOpts{Config: `{
  gateway: { mode: "local" },
  models: { providers: { fake: { baseUrl: "` + model.URL() + `/v1", api: "openai-completions", models: [{ id: "echo-1" }] } } },
  agents: { defaults: { model: "fake/echo-1", workspace: "` + ws + `" } },
}`})
	c := ourClient(t, g)

	found := c.run(t, "memory", "search", "deploy window", "--json")
	found.mustSucceed(t)
	if !strings.Contains(found.Stdout, "MEMORY.md") || !strings.Contains(found.Stdout, "Tuesday") {
		t.Fatalf("memory search found no note:\n%s", found)
	}
	leak := c.run(t, "memory", "search", "zebracorn")
	leak.mustSucceed(t)
	if strings.Contains(leak.Stdout, "launch code") || !strings.Contains(leak.Stdout, "No matches") {
		t.Fatalf("memory search read a file outside the workspace:\n%s", leak)
	}
	st := c.run(t, "memory", "status")
	st.mustSucceed(t)
	if !regexp.MustCompile(`Indexed: [1-9]\d* files`).MatchString(st.Stdout) {
		t.Fatalf("memory status:\n%s", st)
	}
	if bad := c.run(t, "memory", "search"); bad.Code == 0 || !strings.Contains(bad.Stderr, "needs a query") {
		t.Fatalf("search without a query:\n%s", bad)
	}
}
