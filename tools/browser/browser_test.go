package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/netguard"
)

// loopback lets tests browse their own httptest servers.
var loopback = netguard.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}}

// chromiumPath finds a browser or skips the test.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p, err := FindChromium(); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	t.Skip("no chromium binary found (install chromium to run the browser tests)")
	return ""
}

type harness struct {
	m    *Manager
	tool tools.Tool
	ws   string
	srv  *site
}

func newHarness(t *testing.T, policy netguard.Policy) *harness {
	t.Helper()
	return newHarnessWith(t, Config{Policy: func() netguard.Policy { return policy }})
}

// newHarnessWith is newHarness for a Config with more set (its
// Workspace, StateDir and ExecPath are filled in).
func newHarnessWith(t *testing.T, cfg Config) *harness {
	t.Helper()
	exe := chromiumPath(t)
	ws := t.TempDir()
	cfg.Workspace = func(tools.Who) (string, error) { return ws, nil }
	cfg.StateDir, cfg.ExecPath = t.TempDir(), exe
	m := NewManager(cfg)
	t.Cleanup(func() { m.Close() })
	return &harness{m: m, tool: m.Tool(), ws: ws, srv: newSite(t)}
}

// call runs the tool and fails the test on an error result.
func (h *harness) call(t *testing.T, args map[string]any) string {
	t.Helper()
	text, err := h.try(t, args)
	if err != nil {
		t.Fatalf("browser %v: %v", args, err)
	}
	return text
}

// try runs the tool and returns an error result as an error.
func (h *harness) try(t *testing.T, args map[string]any) (string, error) {
	t.Helper()
	raw, _ := json.Marshal(args)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := h.tool.Call(ctx, tools.Call{Name: "browser", Args: raw})
	if err == nil && res.IsError {
		err = errString(res.Text)
	}
	return res.Text, err
}

type errString string

func (e errString) Error() string { return string(e) }

var refPattern = regexp.MustCompile(`\[ref=(e\d+)\]`)

// refOf finds the ref on the snapshot line that contains want.
func refOf(t *testing.T, snap, want string) string {
	t.Helper()
	for _, line := range strings.Split(snap, "\n") {
		if strings.Contains(line, want) {
			if m := refPattern.FindStringSubmatch(line); m != nil {
				return m[1]
			}
		}
	}
	t.Fatalf("no ref on a line with %q in snapshot:\n%s", want, snap)
	return ""
}

// eval returns the JSON of a JavaScript expression in the active tab.
func (h *harness) eval(t *testing.T, fn string) string {
	t.Helper()
	return h.call(t, map[string]any{"action": "act", "kind": "evaluate", "fn": fn})
}

// waitFor polls the page until fn returns true.
func (h *harness) waitFor(t *testing.T, fn string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for h.eval(t, fn) != "true" {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", fn)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// site is the httptest server the browser visits.
type site struct {
	*httptest.Server
	mu      sync.Mutex
	posts   []map[string][]string
	uploads map[string]string
	hits    map[string]int
}

func (s *site) hit(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

func newSite(t *testing.T) *site {
	s := &site{uploads: map[string]string{}, hits: map[string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, testPage)
	})
	mux.HandleFunc("/other", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<html><head><title>Other</title></head><body><h1>Other page</h1></body></html>`)
	})
	mux.HandleFunc("/pixel", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits["/pixel"]++
		s.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("/mixed", func(w http.ResponseWriter, r *http.Request) {
		// Reached as localhost; its image points at 127.0.0.1, which the
		// page-request guard must refuse when only localhost is allowed.
		port := r.Host[strings.LastIndex(r.Host, ":")+1:]
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<html><head><title>Mixed</title></head><body><h1>Mixed</h1><img src="http://127.0.0.1:`+port+`/pixel"><iframe src="http://127.0.0.1:`+port+`/pixel?frame=1"></iframe></body></html>`)
	})
	mux.HandleFunc("/file", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="report.txt"`)
		io.WriteString(w, "downloaded body")
	})
	mux.HandleFunc("/post", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		s.mu.Lock()
		s.posts = append(s.posts, r.PostForm)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<html><head><title>Thanks</title></head><body><h1>Thanks</h1></body></html>`)
	})
	mux.HandleFunc("/upload", func(w http.ResponseWriter, r *http.Request) {
		if f, hdr, err := r.FormFile("file"); err == nil {
			b, _ := io.ReadAll(f)
			s.mu.Lock()
			s.uploads[hdr.Filename] = string(b)
			s.mu.Unlock()
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<html><head><title>Uploaded</title></head><body><h1>Uploaded</h1></body></html>`)
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

const testPage = `<!doctype html>
<html><head><title>Test page</title>
<style>#hov:hover { background: rgb(255, 0, 0); } #dst { width: 80px; height: 80px; margin-left: 200px; background: green; } #src { width: 50px; height: 50px; background: blue; }</style>
</head><body>
<h1>Welcome</h1>
<form id="f" method="post" action="/post">
  <label>Email <input name="email" type="text"></label>
  <label>Full name <input name="name" type="text"></label>
  <select name="color" aria-label="Color"><option value="r">Red</option><option value="g">Green</option></select>
  <label><input type="checkbox" name="agree"> Agree</label>
  <button type="submit">Send</button>
</form>
<div id="side">
  <button id="inc" onclick="document.getElementById('out').textContent = 'clicked ' + (window.n = (window.n || 0) + 1)">Increment</button>
  <p id="out">none</p>
</div>
<button id="hov" onmouseover="document.getElementById('hovered').textContent = 'hovered yes'">Hover me</button>
<p id="hovered"></p>
<div id="src" role="button" aria-label="Drag source"></div>
<div id="dst" role="button" aria-label="Drop target"></div>
<p id="dragres"></p>
<button id="later" onclick="setTimeout(() => { document.getElementById('late').textContent = 'ready now' }, 300)">Later</button>
<p id="late"></p>
<button id="conf" onclick="document.getElementById('dres').textContent = 'confirm=' + confirm('sure?')">Confirm</button>
<p id="dres"></p>
<a href="/file">Get report</a>
<button id="log" onclick="console.log('hello from page', 42)">Log</button>
<form id="up" method="post" action="/upload" enctype="multipart/form-data">
  <input type="file" name="file" aria-label="File">
  <button type="submit">Upload</button>
</form>
<script>
  let dragging = false;
  const src = document.getElementById('src'), dst = document.getElementById('dst');
  src.addEventListener('mousedown', () => { dragging = true; });
  document.addEventListener('mouseup', (e) => {
    if (!dragging) return;
    dragging = false;
    const r = dst.getBoundingClientRect();
    if (e.clientX >= r.left && e.clientX <= r.right && e.clientY >= r.top && e.clientY <= r.bottom) {
      document.getElementById('dragres').textContent = 'dropped';
    }
  });
</script>
</body></html>`

func TestLifecycle(t *testing.T) {
	h := newHarness(t, loopback)
	if st := h.call(t, map[string]any{"action": "status"}); !strings.Contains(st, `"running":false`) {
		t.Fatalf("status before start: %s", st)
	}
	st := h.call(t, map[string]any{"action": "start"})
	if !strings.Contains(st, `"running":true`) || !strings.Contains(st, `"cdpPort":188`) {
		t.Fatalf("status after start: %s", st)
	}

	var tabs struct {
		Tabs []TabInfo `json:"tabs"`
	}
	list := func() []TabInfo {
		tabs.Tabs = nil
		if err := json.Unmarshal([]byte(h.call(t, map[string]any{"action": "tabs"})), &tabs); err != nil {
			t.Fatal(err)
		}
		return tabs.Tabs
	}
	before := list()
	opened := h.call(t, map[string]any{"action": "open", "url": h.srv.URL + "/other"})
	if !strings.Contains(opened, `"title":"Other"`) {
		t.Fatalf("open: %s", opened)
	}
	after := list()
	if len(after) != len(before)+1 {
		t.Fatalf("tabs: %d before, %d after open", len(before), len(after))
	}
	var active TabInfo
	for _, tb := range after {
		if tb.Active {
			active = tb
		}
	}
	if !strings.HasSuffix(active.URL, "/other") {
		t.Fatalf("active tab is %+v, want the opened one", active)
	}
	first := before[0].TargetID
	h.call(t, map[string]any{"action": "focus", "targetId": first})
	for _, tb := range list() {
		if tb.Active != (tb.TargetID == first) {
			t.Fatalf("after focus: %+v", tabs.Tabs)
		}
	}
	h.call(t, map[string]any{"action": "close", "targetId": active.TargetID})
	deadline := time.Now().Add(5 * time.Second)
	for len(list()) != len(before) {
		if time.Now().After(deadline) {
			t.Fatalf("tab not closed: %+v", tabs.Tabs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	h.call(t, map[string]any{"action": "stop"})
	if st := h.call(t, map[string]any{"action": "status"}); !strings.Contains(st, `"running":false`) {
		t.Fatalf("status after stop: %s", st)
	}
}

func TestPage(t *testing.T) {
	h := newHarness(t, loopback)
	load := func(t *testing.T) string {
		t.Helper()
		h.call(t, map[string]any{"action": "navigate", "url": h.srv.URL + "/"})
		return h.call(t, map[string]any{"action": "snapshot"})
	}

	t.Run("snapshot", func(t *testing.T) {
		snap := load(t)
		for _, want := range []string{`heading "Welcome"`, `textbox "Email" [ref=`, `button "Send" [ref=`, `combobox "Color"`, `checkbox "Agree"`} {
			if !strings.Contains(snap, want) {
				t.Errorf("snapshot lacks %q:\n%s", want, snap)
			}
		}
		inter := h.call(t, map[string]any{"action": "snapshot", "interactive": true})
		if strings.Contains(inter, "heading") || strings.Contains(inter, `- text "`) || !strings.Contains(inter, `button "Increment"`) {
			t.Errorf("interactive snapshot:\n%s", inter)
		}
		for _, line := range strings.Split(strings.TrimSpace(inter), "\n") {
			if !refPattern.MatchString(line) {
				t.Errorf("interactive line without ref: %q", line)
			}
		}
		sub := h.call(t, map[string]any{"action": "snapshot", "selector": "#side"})
		if !strings.Contains(sub, "Increment") || strings.Contains(sub, "Email") || strings.Contains(sub, "Welcome") {
			t.Errorf("selector snapshot:\n%s", sub)
		}
		if _, err := h.try(t, map[string]any{"action": "snapshot", "selector": "#nope"}); err == nil {
			t.Error("snapshot of a selector that matches nothing succeeded")
		}
	})

	t.Run("click", func(t *testing.T) {
		snap := load(t)
		h.call(t, map[string]any{"action": "act", "kind": "click", "ref": refOf(t, snap, `button "Increment"`)})
		again := h.call(t, map[string]any{"action": "snapshot", "selector": "#side"})
		if !strings.Contains(again, "clicked 1") {
			t.Fatalf("click did not change the page:\n%s", again)
		}
		// The numbered form of OpenClaw's "ai" snapshots names the same
		// element, and act fields may come nested in request.
		numbered := strings.TrimPrefix(refOf(t, again, `button "Increment"`), "e")
		h.call(t, map[string]any{"action": "act", "request": map[string]any{"kind": "click", "ref": numbered}})
		if again := h.call(t, map[string]any{"action": "snapshot", "selector": "#side"}); !strings.Contains(again, "clicked 2") {
			t.Fatalf("a numbered ref did not click:\n%s", again)
		}
	})

	t.Run("type fill select submit", func(t *testing.T) {
		snap := load(t)
		h.call(t, map[string]any{"action": "act", "kind": "type", "ref": refOf(t, snap, `textbox "Email"`), "text": "a@example.com"})
		h.call(t, map[string]any{"action": "act", "kind": "fill", "fields": []map[string]any{
			{"ref": refOf(t, snap, `textbox "Full name"`), "value": "Ada"},
			{"ref": refOf(t, snap, `checkbox "Agree"`), "value": "true"},
		}})
		h.call(t, map[string]any{"action": "act", "kind": "select", "ref": refOf(t, snap, `combobox "Color"`), "values": []string{"Green"}})
		h.call(t, map[string]any{"action": "act", "kind": "click", "ref": refOf(t, snap, `button "Send"`)})
		h.call(t, map[string]any{"action": "act", "kind": "wait", "text": "Thanks"})
		h.srv.mu.Lock()
		defer h.srv.mu.Unlock()
		if len(h.srv.posts) == 0 {
			t.Fatal("no form POST reached the server")
		}
		got := h.srv.posts[len(h.srv.posts)-1]
		want := map[string]string{"email": "a@example.com", "name": "Ada", "color": "g", "agree": "on"}
		for k, v := range want {
			if len(got[k]) != 1 || got[k][0] != v {
				t.Errorf("posted %s = %q, want %q (all: %v)", k, got[k], v, got)
			}
		}
	})

	t.Run("type submit with Enter", func(t *testing.T) {
		snap := load(t)
		h.srv.mu.Lock()
		n := len(h.srv.posts)
		h.srv.mu.Unlock()
		h.call(t, map[string]any{"action": "act", "kind": "type", "ref": refOf(t, snap, `textbox "Email"`), "text": "b@example.com"})
		h.call(t, map[string]any{"action": "act", "kind": "press", "key": "Enter"})
		h.call(t, map[string]any{"action": "act", "kind": "wait", "text": "Thanks"})
		h.srv.mu.Lock()
		defer h.srv.mu.Unlock()
		if len(h.srv.posts) != n+1 || h.srv.posts[n]["email"][0] != "b@example.com" {
			t.Fatalf("press Enter did not submit: %v", h.srv.posts)
		}
	})

	t.Run("hover", func(t *testing.T) {
		snap := load(t)
		h.call(t, map[string]any{"action": "act", "kind": "hover", "ref": refOf(t, snap, `button "Hover me"`)})
		h.waitFor(t, `() => document.getElementById('hovered').textContent === 'hovered yes'`)
		if bg := h.eval(t, `() => getComputedStyle(document.getElementById('hov')).backgroundColor`); bg != `"rgb(255, 0, 0)"` {
			t.Errorf(":hover style not applied: %s", bg)
		}
	})

	t.Run("drag", func(t *testing.T) {
		snap := load(t)
		h.call(t, map[string]any{"action": "act", "kind": "drag",
			"startRef": refOf(t, snap, `button "Drag source"`), "endRef": refOf(t, snap, `button "Drop target"`)})
		h.waitFor(t, `() => document.getElementById('dragres').textContent === 'dropped'`)
	})

	t.Run("resize", func(t *testing.T) {
		load(t)
		h.call(t, map[string]any{"action": "act", "kind": "resize", "width": 640, "height": 480})
		if got := h.eval(t, `() => window.innerWidth + 'x' + window.innerHeight`); got != `"640x480"` {
			t.Errorf("viewport after resize: %s", got)
		}
	})

	t.Run("wait for text", func(t *testing.T) {
		snap := load(t)
		h.call(t, map[string]any{"action": "act", "kind": "click", "ref": refOf(t, snap, `button "Later"`)})
		h.call(t, map[string]any{"action": "act", "kind": "wait", "text": "ready now", "timeoutMs": 5000})
		if _, err := h.try(t, map[string]any{"action": "act", "kind": "wait", "text": "never there", "timeoutMs": 300}); err == nil {
			t.Error("wait for absent text succeeded")
		}
	})

	t.Run("stale ref", func(t *testing.T) {
		snap := load(t)
		ref := refOf(t, snap, `button "Increment"`)
		h.call(t, map[string]any{"action": "navigate", "url": h.srv.URL + "/other"})
		_, err := h.try(t, map[string]any{"action": "act", "kind": "click", "ref": ref})
		if err == nil || !strings.Contains(err.Error(), "new snapshot") {
			t.Fatalf("click on a stale ref: %v", err)
		}
		_, err = h.try(t, map[string]any{"action": "act", "kind": "click", "ref": "e9999"})
		if err == nil || !strings.Contains(err.Error(), "new snapshot") {
			t.Fatalf("click on an unknown ref: %v", err)
		}
	})

	t.Run("screenshot and pdf", func(t *testing.T) {
		snap := load(t)
		for _, c := range []struct {
			name   string
			args   map[string]any
			tag    string
			prefix []byte
		}{
			{"viewport", map[string]any{"action": "screenshot"}, "MEDIA:", []byte("\x89PNG\r\n\x1a\n")},
			{"full page", map[string]any{"action": "screenshot", "fullPage": true}, "MEDIA:", []byte("\x89PNG\r\n\x1a\n")},
			{"element", map[string]any{"action": "screenshot", "ref": refOf(t, snap, `button "Send"`)}, "MEDIA:", []byte("\x89PNG\r\n\x1a\n")},
			{"pdf", map[string]any{"action": "pdf"}, "FILE:", []byte("%PDF")},
		} {
			t.Run(c.name, func(t *testing.T) {
				out := h.call(t, c.args)
				i := strings.Index(out, c.tag)
				if i < 0 {
					t.Fatalf("no %s in %q", c.tag, out)
				}
				p := strings.TrimSpace(out[i+len(c.tag):])
				if !strings.HasPrefix(p, h.ws) {
					t.Fatalf("saved outside the workspace: %s", p)
				}
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.HasPrefix(b, c.prefix) {
					t.Fatalf("file starts with %q", b[:min(8, len(b))])
				}
				if c.tag == "MEDIA:" && !strings.Contains(out, `"width":`) {
					t.Errorf("no dimensions in %q", out)
				}
			})
		}
	})

	t.Run("console", func(t *testing.T) {
		snap := load(t)
		h.call(t, map[string]any{"action": "act", "kind": "click", "ref": refOf(t, snap, `button "Log"`)})
		deadline := time.Now().Add(5 * time.Second)
		for {
			out := h.call(t, map[string]any{"action": "console", "level": "log"})
			if strings.Contains(out, "hello from page 42") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("console: %s", out)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if out := h.call(t, map[string]any{"action": "console", "level": "error"}); strings.Contains(out, "hello from page") {
			t.Errorf("level filter let a log through: %s", out)
		}
	})

	t.Run("dialog", func(t *testing.T) {
		for _, c := range []struct {
			accept bool
			want   string
		}{{true, "confirm=true"}, {false, "confirm=false"}} {
			snap := load(t)
			h.call(t, map[string]any{"action": "dialog", "accept": c.accept})
			h.call(t, map[string]any{"action": "act", "kind": "click", "ref": refOf(t, snap, `button "Confirm"`)})
			h.call(t, map[string]any{"action": "act", "kind": "wait", "text": c.want, "timeoutMs": 5000})
		}
	})

	t.Run("upload", func(t *testing.T) {
		if err := os.WriteFile(filepath.Join(h.ws, "note.txt"), []byte("hello upload"), 0o600); err != nil {
			t.Fatal(err)
		}
		snap := load(t)
		for _, bad := range []string{"../etc/passwd", "/etc/passwd", "missing.txt"} {
			if _, err := h.try(t, map[string]any{"action": "upload", "paths": []string{bad}, "inputRef": refOf(t, snap, `button "File"`)}); err == nil {
				t.Errorf("upload of %s was accepted", bad)
			}
		}
		h.call(t, map[string]any{"action": "upload", "paths": []string{"note.txt"}, "element": "input[type=file]"})
		h.call(t, map[string]any{"action": "act", "kind": "click", "ref": refOf(t, snap, `button "Upload"`)})
		h.call(t, map[string]any{"action": "act", "kind": "wait", "text": "Uploaded"})
		// By clicking the input: the file chooser it opens is answered.
		if err := os.WriteFile(filepath.Join(h.ws, "second.txt"), []byte("via chooser"), 0o600); err != nil {
			t.Fatal(err)
		}
		snap = load(t)
		h.call(t, map[string]any{"action": "upload", "paths": []string{"second.txt"}, "ref": refOf(t, snap, `button "File"`)})
		h.call(t, map[string]any{"action": "act", "kind": "click", "ref": refOf(t, snap, `button "Upload"`)})
		h.call(t, map[string]any{"action": "act", "kind": "wait", "text": "Uploaded"})
		h.srv.mu.Lock()
		defer h.srv.mu.Unlock()
		if h.srv.uploads["note.txt"] != "hello upload" || h.srv.uploads["second.txt"] != "via chooser" {
			t.Fatalf("server got %v", h.srv.uploads)
		}
	})

	t.Run("download", func(t *testing.T) {
		snap := load(t)
		h.call(t, map[string]any{"action": "act", "kind": "click", "ref": refOf(t, snap, `link "Get report"`)})
		p := filepath.Join(h.ws, "browser", "downloads", "report.txt")
		deadline := time.Now().Add(10 * time.Second)
		for {
			if b, err := os.ReadFile(p); err == nil && string(b) == "downloaded body" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no download at %s", p)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})

	t.Run("evaluate off", func(t *testing.T) {
		h.m.cfg.EvaluateEnabled = func() bool { return false }
		defer func() { h.m.cfg.EvaluateEnabled = nil }()
		if _, err := h.try(t, map[string]any{"action": "act", "kind": "evaluate", "fn": "() => 1"}); err == nil {
			t.Fatal("evaluate ran while turned off")
		}
	})
}

func TestGuard(t *testing.T) {
	t.Run("navigation to loopback refused", func(t *testing.T) {
		h := newHarness(t, netguard.Policy{})
		for _, action := range []string{"navigate", "open"} {
			_, err := h.try(t, map[string]any{"action": action, "url": h.srv.URL + "/"})
			if err == nil || !strings.Contains(err.Error(), "blocked") {
				t.Errorf("%s to loopback: %v", action, err)
			}
		}
		for _, u := range []string{"file:///etc/passwd", "javascript:alert(1)", "http://169.254.169.254/latest/meta-data/"} {
			if _, err := h.try(t, map[string]any{"action": "navigate", "url": u}); err == nil {
				t.Errorf("navigate to %s accepted", u)
			}
		}
		if h.srv.hit("/") != 0 {
			t.Error("the blocked page was fetched")
		}
	})
	t.Run("page request to a blocked address failed", func(t *testing.T) {
		h := newHarness(t, netguard.Policy{AllowHosts: []string{"localhost"}})
		port := h.srv.URL[strings.LastIndex(h.srv.URL, ":")+1:]
		h.call(t, map[string]any{"action": "navigate", "url": "http://localhost:" + port + "/mixed"})
		deadline := time.Now().Add(5 * time.Second)
		for !strings.Contains(h.call(t, map[string]any{"action": "console", "level": "error"}), "blocked by the network guard") {
			if time.Now().After(deadline) {
				t.Fatal("no blocked request reported")
			}
			time.Sleep(50 * time.Millisecond)
		}
		if n := h.srv.hit("/pixel"); n != 0 {
			t.Fatalf("blocked image was fetched %d times", n)
		}
	})
}

// hostsResolver answers names from a table, as a stand-in for DNS.
type hostsResolver map[string]string

func (r hostsResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if a, ok := r[host]; ok {
		return []netip.Addr{netip.MustParseAddr(a)}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// TestGuardProxy: a local browser sends every request through the
// guard's proxy, which resolves the name itself and dials the address it
// checked. A name only the guard's resolver knows loads (Chromium never
// resolved it), and when that name points at a blocked address the
// proxy refuses the connection even with the request guard out of the
// way.
func TestGuardProxy(t *testing.T) {
	t.Run("requests go through the proxy", func(t *testing.T) {
		h := newHarnessWith(t, Config{
			Policy:   func() netguard.Policy { return loopback },
			Resolver: hostsResolver{"pinned.test": "127.0.0.1"},
		})
		port := h.srv.URL[strings.LastIndex(h.srv.URL, ":")+1:]
		h.call(t, map[string]any{"action": "navigate", "url": "http://pinned.test:" + port + "/"})
		if h.srv.hit("/") == 0 {
			t.Fatal("the page was not fetched through the proxy")
		}
	})
	t.Run("the proxy refuses what the policy blocks", func(t *testing.T) {
		h := newHarness(t, netguard.Policy{})
		addr, err := h.m.proxyServer()
		if err != nil {
			t.Fatal(err)
		}
		// What a browser whose own lookup was fooled would send.
		proxyURL, _ := url.Parse("http://" + addr)
		c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL)}}
		resp, err := c.Get(h.srv.URL + "/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || h.srv.hit("/") != 0 {
			t.Fatalf("proxy answered %d and the page was fetched %d times, want 403 and none", resp.StatusCode, h.srv.hit("/"))
		}
	})
}

func TestDisabled(t *testing.T) {
	m := NewManager(Config{StateDir: t.TempDir(), Enabled: func() bool { return false }})
	defer m.Close()
	res, err := m.Tool().Call(context.Background(), tools.Call{Args: json.RawMessage(`{"action":"status"}`)})
	if err == nil && !res.IsError {
		t.Fatalf("disabled tool answered: %s", res.Text)
	}
}

// An orphan Chromium holding a profile's port (here: one left running by
// another Manager over the same state) blocks start until reset-profile.
func TestResetOrphan(t *testing.T) {
	exe := chromiumPath(t)
	state, ws := t.TempDir(), t.TempDir()
	cfg := Config{
		Workspace: func(tools.Who) (string, error) { return ws, nil },
		StateDir:  state, ExecPath: exe,
		Policy: func() netguard.Policy { return loopback },
	}
	first := NewManager(cfg)
	t.Cleanup(func() { first.Close() })
	if _, err := callJSON(t, first, `{"action":"create-profile","name":"work"}`); err != nil {
		t.Fatal(err)
	}
	if _, err := callJSON(t, first, `{"action":"start","profile":"work"}`); err != nil {
		t.Fatal(err)
	}

	second := NewManager(cfg)
	t.Cleanup(func() { second.Close() })
	if _, err := callJSON(t, second, `{"action":"start","profile":"work"}`); err == nil || !strings.Contains(err.Error(), "reset-profile") {
		t.Fatalf("start over a held port: %v", err)
	}
	out, err := callJSON(t, second, `{"action":"reset-profile","name":"work"}`)
	if err != nil || !strings.Contains(out, `"orphanClosed":true`) {
		t.Fatalf("reset-profile: %s %v", out, err)
	}
	if out, err := callJSON(t, second, `{"action":"start","profile":"work"}`); err != nil || !strings.Contains(out, `"running":true`) {
		t.Fatalf("start after reset: %s %v", out, err)
	}
}

// Close leaves no goroutine of the browser, its tabs or their guards.
func TestCloseLeaksNothing(t *testing.T) {
	exe := chromiumPath(t)
	srv := newSite(t)
	ws := t.TempDir()
	before := runtime.NumGoroutine()
	m := NewManager(Config{
		Workspace: func(tools.Who) (string, error) { return ws, nil },
		StateDir:  t.TempDir(), ExecPath: exe,
		Policy: func() netguard.Policy { return loopback },
	})
	for _, args := range []string{
		`{"action":"open","url":"` + srv.URL + `/"}`,
		`{"action":"snapshot","interactive":true}`,
		`{"action":"open","url":"` + srv.URL + `/other"}`,
	} {
		if _, err := callJSON(t, m, args); err != nil {
			t.Fatal(err)
		}
	}
	m.Close()
	srv.CloseClientConnections()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines before, %d after Close:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A browser that dies is noticed and started again by the next call.
func TestRestartAfterCrash(t *testing.T) {
	h := newHarness(t, loopback)
	h.call(t, map[string]any{"action": "start"})
	b := h.m.running(h.m.settings().DefaultProfile)
	if b == nil {
		t.Fatal("not running after start")
	}
	b.kill()
	<-b.exited
	if st := h.call(t, map[string]any{"action": "status"}); !strings.Contains(st, `"running":false`) {
		t.Fatalf("status after crash: %s", st)
	}
	if out := h.call(t, map[string]any{"action": "open", "url": h.srv.URL + "/other"}); !strings.Contains(out, "Other") {
		t.Fatalf("open after crash: %s", out)
	}
}

// TestDevToolsPortTaken: when the DevTools port is taken by the time
// Chromium binds it, Chromium listens elsewhere instead of failing; the
// manager notices from its announcement, never connects there, and the
// implicit default profile moves on to other ports before giving up.
func TestDevToolsPortTaken(t *testing.T) {
	dir := t.TempDir()
	ports := filepath.Join(dir, "ports")
	fake := filepath.Join(dir, "chromium")
	script := `#!/bin/sh
port=$(echo "$@" | sed -n 's/.*--remote-debugging-port=\([0-9]*\).*/\1/p')
echo "$port" >> ` + ports + `
echo "DevTools listening on ws://[::1]:$port/devtools/browser/not-ours" >&2
exec sleep 30
`
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	m := NewManager(Config{StateDir: t.TempDir(), ExecPath: fake})
	t.Cleanup(func() { m.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	_, err := m.ensure(ctx, DefaultProfileName)
	if err == nil || !strings.Contains(err.Error(), "taken by other programs") {
		t.Fatalf("ensure: %v, want the ports reported taken", err)
	}
	raw, _ := os.ReadFile(ports)
	tried := strings.Fields(string(raw))
	if len(tried) != 3 || tried[0] == tried[1] || tried[1] == tried[2] {
		t.Fatalf("ports tried: %v, want three different ones", tried)
	}
}

// A Chromium that crashes before opening its DevTools port is started once
// more, and only once: a browser that always crashes is reported, not
// retried forever.
func TestExitedAtStartRetriedOnce(t *testing.T) {
	dir := t.TempDir()
	starts := filepath.Join(dir, "starts")
	fake := filepath.Join(dir, "chromium")
	script := "#!/bin/sh\necho start >> " + starts + "\necho 'Received signal 11 SEGV_MAPERR' >&2\nexit 1\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	m := NewManager(Config{StateDir: t.TempDir(), ExecPath: fake})
	t.Cleanup(func() { m.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	_, err := m.ensure(ctx, DefaultProfileName)
	if !errors.Is(err, errExitedAtStart) || !strings.Contains(err.Error(), "SEGV_MAPERR") {
		t.Fatalf("ensure: %v, want the crash reported with its output", err)
	}
	raw, _ := os.ReadFile(starts)
	if n := len(strings.Fields(string(raw))); n != 2 {
		t.Fatalf("Chromium was started %d times, want 2", n)
	}
}
