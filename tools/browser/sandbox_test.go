package browser

import (
	"context"
	"encoding/json"
	"net"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/netguard"
	"github.com/openclaw-go/openclaw/tools/sandbox"
)

// boxedBrowser is a local sandbox around a fresh workspace, and the
// Config.Sandbox that puts a caller's browser in it.
func boxedBrowser(t *testing.T) (ws string, box func(tools.Who) (string, func([]string) ([]string, error), error)) {
	t.Helper()
	if _, err := osexec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap not installed")
	}
	ws = t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.md"), []byte("agent notes"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := sandbox.Resolve(sandbox.Settings{Mode: sandbox.ModeAll, WorkspaceAccess: sandbox.AccessRW},
		sandbox.Caller{AgentID: "main", SessionKey: "agent:main:x", AgentWorkspace: ws}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m := &sandbox.Manager{}
	return ws, func(tools.Who) (string, func([]string) ([]string, error), error) {
		return b.Key, func(argv []string) ([]string, error) { return m.BrowserCommand(b, argv) }, nil
	}
}

// TestSandboxedBrowserFiles: a browser started in the local sandbox
// reads the workspace through file: URLs but not the host's files, even
// with the request guard (which refuses file: on its own) out of the way:
// the box itself hides them.
func TestSandboxedBrowserFiles(t *testing.T) {
	exe := chromiumPath(t)
	_, box := boxedBrowser(t)
	hostname, err := os.ReadFile("/etc/hostname")
	if err != nil || strings.TrimSpace(string(hostname)) == "" {
		t.Skip("no /etc/hostname to hide")
	}
	secret := filepath.Join(t.TempDir(), "host-secret.txt")
	if err := os.WriteFile(secret, []byte("host-only-secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := NewManager(Config{StateDir: t.TempDir(), ExecPath: exe})
	t.Cleanup(func() { m.Close() })
	_, wrap, _ := box(tools.Who{})
	// open launches a browser, in the box or (the control) on the host,
	// with no guard, so only the box stands between a page and the host's
	// files; it returns a reader of file: URLs.
	open := func(t *testing.T, wrap func([]string) ([]string, error)) func(string) string {
		// An ephemeral port, not the first free one of the DevTools range:
		// browsers of other test processes start from the same first port
		// at the same moment.
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		inst := &instance{m: m, profile: Profile{Name: "sandbox-test", wrap: wrap}, port: port, tabs: map[target.ID]*tab{}, log: m.log}
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		t.Cleanup(cancel)
		if err := inst.launch(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(inst.kill)
		allocCtx, allocCancel := remote.NewAllocator(ctx, inst.wsURL)
		t.Cleanup(allocCancel)
		tabCtx, tabCancel := chromedp.NewContext(allocCtx)
		t.Cleanup(tabCancel)
		return func(url string) string {
			if _, err := chromedp.Run(tabCtx, chromedp.Navigate(url)); err != nil {
				return "error: " + err.Error()
			}
			text, err := chromedp.Run(tabCtx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
			if err != nil {
				return "error: " + err.Error()
			}
			return text
		}
	}
	host := map[string]string{
		"file:///etc/hostname": strings.TrimSpace(string(hostname)),
		"file://" + secret:     "host-only-secret",
	}
	t.Run("on the host, the control, it reads them", func(t *testing.T) {
		read := open(t, nil)
		for url, want := range host {
			if got := read(url); !strings.Contains(got, want) {
				t.Fatalf("the unboxed browser did not read %s (%q): the test proves nothing", url, got)
			}
		}
	})
	t.Run("in the box it does not", func(t *testing.T) {
		read := open(t, wrap)
		if got := read("file:///workspace/notes.md"); !strings.Contains(got, "agent notes") {
			t.Fatalf("the workspace through file: %q", got)
		}
		for url, leak := range host {
			if got := read(url); strings.Contains(got, leak) {
				t.Errorf("the sandboxed browser read %s: %q", url, got)
			}
		}
	})
}

// TestSandboxedBrowserTool: a sandboxed caller's browser tool runs its
// sandbox's browser, and cannot pick or manage the host's profiles.
func TestSandboxedBrowserTool(t *testing.T) {
	_, box := boxedBrowser(t)
	h := newHarnessWith(t, Config{Policy: func() netguard.Policy { return loopback }, Sandbox: box})
	try := func(args map[string]any) (string, bool) {
		raw, _ := json.Marshal(args)
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		res, err := h.tool.Call(ctx, tools.Call{Name: "browser", Args: raw, Who: tools.Who{AgentID: "main", SessionKey: "agent:main:x"}})
		if err != nil {
			return err.Error(), true
		}
		return res.Text, res.IsError
	}
	for _, args := range []map[string]any{
		{"action": "start", "profile": DefaultProfileName},
		{"action": "profiles"},
		{"action": "create-profile", "name": "mine"},
	} {
		if out, isErr := try(args); !isErr || !strings.Contains(out, "sandbox") {
			t.Errorf("%v: error %v, %q", args, isErr, out)
		}
	}
	out, isErr := try(map[string]any{"action": "start"})
	if isErr || !strings.Contains(out, `"sandboxed":true`) || !strings.Contains(out, `"running":true`) {
		t.Fatalf("start: error %v, %q", isErr, out)
	}
	if h.m.running(DefaultProfileName) != nil {
		t.Fatal("the host's default browser was started for a sandboxed caller")
	}
}
