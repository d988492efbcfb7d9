package gateway

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/gateway/client"
)

// formPage is a small form the agent fills in and submits.
const formPage = `<!doctype html><html><head><title>Sign up</title></head><body>
<h1>Sign up</h1>
<form method="post" action="/signup">
<label>Email <input name="email" type="email"></label>
<label>Name <input name="name"></label>
<button type="submit">Create account</button>
</form></body></html>`

// formServer serves formPage on localhost and records the sign-ups.
type formServer struct {
	*httptest.Server
	mu   sync.Mutex
	got  []string
	seen chan string
}

func newFormServer(t *testing.T) *formServer {
	f := &formServer{seen: make(chan string, 4)}
	f.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			r.ParseForm()
			entry := r.Form.Get("email") + "|" + r.Form.Get("name")
			f.mu.Lock()
			f.got = append(f.got, entry)
			f.mu.Unlock()
			f.seen <- entry
			io.WriteString(w, "<!doctype html><title>Welcome</title><p>Welcome aboard</p>")
			return
		}
		io.WriteString(w, formPage)
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.Listener = ln
	f.Start()
	t.Cleanup(f.Close)
	return f
}

// pageURL is the page under a host name the test config allows (the
// default browser policy refuses loopback addresses).
func (f *formServer) pageURL() string {
	return strings.Replace(f.URL, "127.0.0.1", "localhost", 1) + "/"
}

const browserTestConfig = `browser: { ssrfPolicy: { allowedHostnames: ["localhost"] } },
  tools: { disclosure: { mode: "legacy" } },`

func browse(t *testing.T, c *client.Client, args map[string]any) (string, bool) {
	t.Helper()
	res := call[map[string]any](t, c, "tools.invoke", map[string]any{"name": "browser", "sessionKey": "agent:main:main", "args": args})
	return fmt.Sprint(res["output"]), res["ok"] == true
}

// ref finds the ref of the snapshot line with role and name.
func ref(t *testing.T, snapshot, role, name string) string {
	t.Helper()
	m := regexp.MustCompile(regexp.QuoteMeta(role+` "`+name+`"`) + `.*\[ref=(e\d+)\]`).FindStringSubmatch(snapshot)
	if m == nil {
		t.Fatalf("no %s %q in the snapshot:\n%s", role, name, snapshot)
	}
	return m[1]
}

func TestBrowserThroughToolsInvoke(t *testing.T) {
	needChromium(t)
	site := newFormServer(t)
	model := fakemodel.New(t)
	_, c := startWithConfig(t, model, browserTestConfig)

	if out, ok := browse(t, c, map[string]any{"action": "open", "url": site.pageURL()}); !ok {
		t.Fatalf("open: %s", out)
	}
	snap, ok := browse(t, c, map[string]any{"action": "snapshot", "interactive": true})
	if !ok {
		t.Fatalf("snapshot: %s", snap)
	}
	email, name, submit := ref(t, snap, "textbox", "Email"), ref(t, snap, "textbox", "Name"), ref(t, snap, "button", "Create account")
	out, ok := browse(t, c, map[string]any{"action": "act", "kind": "fill", "fields": []map[string]any{
		{"ref": email, "value": "ada@example.com"}, {"ref": name, "value": "Ada"}}})
	if !ok {
		t.Fatalf("fill: %s", out)
	}
	if out, ok := browse(t, c, map[string]any{"action": "act", "kind": "click", "ref": submit}); !ok {
		t.Fatalf("click: %s", out)
	}
	if got := <-site.seen; got != "ada@example.com|Ada" {
		t.Fatalf("the site got %q", got)
	}
	shot, ok := browse(t, c, map[string]any{"action": "screenshot"})
	m := regexp.MustCompile(`MEDIA:(\S+)`).FindStringSubmatch(shot)
	if !ok || m == nil {
		t.Fatalf("screenshot: %s", shot)
	}
	png, err := os.ReadFile(m[1])
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("screenshot file: %v", err)
	}

	// The same page by its address is a loopback page: refused.
	if out, ok := browse(t, c, map[string]any{"action": "navigate", "url": site.URL + "/"}); ok || !strings.Contains(strings.ToLower(out), "blocked") && !strings.Contains(strings.ToLower(out), "refus") {
		t.Fatalf("navigation to a loopback address: ok=%v %s", ok, out)
	}
	// MateClaw's name for the tool reaches it.
	res := call[map[string]any](t, c, "tools.invoke", map[string]any{"name": "BrowserUseTool", "sessionKey": "agent:main:main", "args": map[string]any{"action": "status"}})
	if res["ok"] != true {
		t.Fatalf("BrowserUseTool: %v", res)
	}
}

// TestBrowserInATurn: a model opens the page, reads its snapshot, fills
// the form by ref, submits it and takes a screenshot, in one agent turn.
func TestBrowserInATurn(t *testing.T) {
	needChromium(t)
	site := newFormServer(t)
	model := fakemodel.New(t)
	_, c := startWithConfig(t, model, browserTestConfig)
	// Refs follow the page's order, so a first look tells the script
	// which refs the turn's snapshot will hand the model.
	browse(t, c, map[string]any{"action": "open", "url": site.pageURL()})
	snap, _ := browse(t, c, map[string]any{"action": "snapshot", "interactive": true})
	email, submit := ref(t, snap, "textbox", "Email"), ref(t, snap, "button", "Create account")
	browse(t, c, map[string]any{"action": "stop"})

	tc := func(id, args string) fakemodel.Reply {
		return fakemodel.Reply{ToolCalls: []fakemodel.ToolCall{{ID: id, Name: "browser", Arguments: args}}}
	}
	// The model writes some calls in OpenClaw's own argument shape
	// (targetUrl, act fields nested in request).
	model.Script(
		tc("b1", fmt.Sprintf(`{"action":"open","targetUrl":%q}`, site.pageURL())),
		tc("b2", `{"action":"snapshot","interactive":true}`),
		tc("b3", fmt.Sprintf(`{"action":"act","request":{"kind":"type","ref":%q,"text":"grace@example.com"}}`, email)),
		tc("b4", fmt.Sprintf(`{"action":"act","kind":"click","ref":%q}`, submit)),
		tc("b5", `{"action":"screenshot"}`),
		fakemodel.Reply{Text: "Signed up."},
	)
	var final map[string]any
	if err := c.CallFinal(context.Background(), "agent", map[string]any{"message": "sign me up", "idempotencyKey": "turn-1"}, &final); err != nil {
		t.Fatal(err)
	}
	if got := <-site.seen; got != "grace@example.com|" {
		t.Fatalf("the site got %q", got)
	}
	reqs := model.Requests()
	results := map[string]string{}
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "tool" {
			results[m.ToolCallID] = m.Text
		}
	}
	if !strings.Contains(results["b2"], "[ref="+email+"]") || !strings.Contains(results["b5"], "MEDIA:") {
		t.Fatalf("tool results the model saw: %v", results)
	}
	// The screenshot itself came along (OpenAI's API takes pictures from
	// a user message after the results).
	var pictures int
	for _, m := range reqs[len(reqs)-1].Messages {
		for _, img := range m.Images {
			if m.Role == "user" && bytes.HasPrefix(img.Data, []byte("\x89PNG")) {
				pictures++
			}
		}
	}
	if pictures != 1 {
		t.Fatalf("the model saw %d screenshots, want 1", pictures)
	}
	if fmt.Sprint(final["status"]) != "ok" {
		t.Fatalf("turn: %v", final)
	}
}

// TestBrowserOfANonOwner: the gateway's browser keeps the owner's logins
// in its profiles, and one browser serves every session. A caller who is
// not the owner (a write-scoped client here; a chat stranger's turn gets
// the same rule) asks for its tabs: the call waits for a person and,
// unanswered, never runs. The owner's call runs at once.
func TestBrowserOfANonOwner(t *testing.T) {
	r, admin := startWithConfig(t, fakemodel.New(t), `tools: { disclosure: { mode: "legacy" }, guard: { approvalTimeoutSeconds: 1 } },`)
	writer, err := r.dial(t, "t0k3n-automation", "operator.read", "operator.write")
	if err != nil {
		t.Fatal(err)
	}
	res := call[map[string]any](t, writer, "tools.invoke", map[string]any{"name": "browser", "args": map[string]any{"action": "status"}})
	if res["ok"] == true || !strings.Contains(fmt.Sprint(res["output"]), "not approved") {
		t.Fatalf("a non-owner's browser call: %v", res)
	}
	res = call[map[string]any](t, admin, "tools.invoke", map[string]any{"name": "browser", "args": map[string]any{"action": "status"}})
	if res["ok"] != true {
		t.Fatalf("the owner's browser call: %v", res)
	}
}
