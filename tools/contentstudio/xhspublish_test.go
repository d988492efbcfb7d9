package contentstudio

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/browser"
	"github.com/openclaw-go/openclaw/tools/netguard"
)

// fakeCreator serves testdata's stand-in for the creator publish page
// and records what the page saw: uploads, typing, clicks.
type fakeCreator struct {
	loggedIn bool
	// loginInPlace shows the login form at the publish URL instead of
	// redirecting to /login.
	loginInPlace bool
	// redesigned serves a page none of the selectors match.
	redesigned bool

	mu      sync.Mutex
	hits    []string
	events  []map[string]any
	uploads map[string][]byte
}

func (f *fakeCreator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.hits = append(f.hits, r.Method+" "+r.URL.Path)
	f.mu.Unlock()
	page := func(name string) {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(b)
	}
	switch r.URL.Path {
	case "/publish/publish":
		switch {
		case f.redesigned:
			w.Write([]byte(`<div class="new-uploader"><button>选择图片</button></div>`))
		case f.loggedIn:
			page("xhs_creator.html")
		case f.loginInPlace:
			page("xhs_login.html")
		default:
			http.Redirect(w, r, "/login?redirectReason=401", http.StatusFound)
		}
	case "/login":
		page("xhs_login.html")
	case "/record":
		var ev map[string]any
		json.NewDecoder(r.Body).Decode(&ev)
		f.mu.Lock()
		f.events = append(f.events, ev)
		f.mu.Unlock()
	case "/upload":
		if err := r.ParseMultipartForm(32 << 20); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.uploads == nil {
			f.uploads = map[string][]byte{}
		}
		for _, fh := range r.MultipartForm.File["card"] {
			rd, _ := fh.Open()
			f.uploads[fh.Filename], _ = io.ReadAll(rd)
			rd.Close()
		}
	case "/publish/success":
		w.Write([]byte(`<div class="success-container">发布成功</div>`))
	default:
		w.Write([]byte(`<p>home</p>`))
	}
}

// seen lists the page's events by name, in order.
func (f *fakeCreator) seen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, ev := range f.events {
		out = append(out, ev["event"].(string))
	}
	return out
}

func (f *fakeCreator) event(name string) map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ev := range f.events {
		if ev["event"] == name {
			return ev
		}
	}
	return nil
}

func (f *fakeCreator) requests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.hits)
}

// chromium finds a browser or skips, as the browser tool's tests do.
func chromium(t *testing.T) string {
	t.Helper()
	if p, err := browser.FindChromium(); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	t.Skip("no chromium binary found (install chromium to run the xhs_publish tests)")
	return ""
}

// askingApprover answers as told and notes what the page had seen when
// it was asked: nothing may reach the page before a person says yes.
type askingApprover struct {
	ok          bool
	fake        *fakeCreator
	asked       int
	hitsAtAsk   int
	reason      string
	argsAtAsked string
}

func (a *askingApprover) Approve(_ context.Context, r tools.ApprovalRequest) (bool, string, error) {
	a.asked++
	a.hitsAtAsk, a.reason, a.argsAtAsked = a.fake.requests(), r.Reason, string(r.Args)
	return a.ok, "ap-x", nil
}

type xhsEnv struct {
	cfg   Config
	fake  *fakeCreator
	srv   *httptest.Server
	pkg   string
	cards [][]byte
	state string
}

// newXhsEnv packages a note with xhs_package and points xhs_publish at a
// fake creator page through a real browser Manager and Chromium.
func newXhsEnv(t *testing.T, fake *fakeCreator) *xhsEnv {
	t.Helper()
	exe := chromium(t)
	cfg, ws := env(t)
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	state := t.TempDir()
	loopback := netguard.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}
	m := browser.NewManager(browser.Config{Workspace: cfg.Workspace, StateDir: state, ExecPath: exe,
		Policy:   func() netguard.Policy { return loopback },
		Profiles: map[string]browser.Profile{"xhs": {Name: "xhs"}}})
	t.Cleanup(func() { m.Close() })
	cfg.Browser = m
	cfg.XhsCreatorURL = func() string { return srv.URL + "/publish/publish" }
	cfg.XhsProfile = func() string { return "xhs" }
	e := &xhsEnv{cfg: cfg, fake: fake, srv: srv, state: state}
	var names []string
	for i, size := range [][2]int{{300, 400}, {330, 440}, {360, 480}} {
		b := pngOf(t, size[0], size[1])
		name := filepath.Join("cards", string(rune('a'+i))+".png")
		os.MkdirAll(filepath.Join(ws, "cards"), 0o755)
		os.WriteFile(filepath.Join(ws, name), b, 0o644)
		names = append(names, `"`+name+`"`)
		e.cards = append(e.cards, b)
	}
	res, err := call(t, cfg, "xhs_package", `{"title":"冬季护肤三步","body":"先少洗脸\n再多保湿","tags":["护肤","冬季"],"cards":[`+strings.Join(names, ",")+`]}`, alice)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Package string `json:"package"`
	}
	json.Unmarshal([]byte(res.Text), &out)
	e.pkg = out.Package
	return e
}

func TestXhsPublish(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	t.Run("draft fills the page and never presses publish", func(t *testing.T) {
		e := newXhsEnv(t, &fakeCreator{loggedIn: true})
		res, err := call(t, e.cfg, "xhs_publish", `{"package":"`+e.pkg+`"}`, alice)
		if err != nil {
			t.Fatalf("%v (page saw %v)", err, e.fake.seen())
		}
		if !strings.Contains(res.Text, `"draft":true`) || !strings.Contains(res.Text, `"published":false`) {
			t.Fatalf("result %s", res.Text)
		}
		if got := strings.Join(e.fake.seen(), ","); got != "tab,draft" {
			t.Fatalf("page events %s, want tab,draft", got)
		}
		d := e.fake.event("draft")
		if d["title"] != "冬季护肤三步" || d["cards"] != float64(3) || d["trusted"] != true {
			t.Fatalf("draft %v", d)
		}
		// Body lines stay lines, and the tags follow as #words.
		if body, _ := d["body"].(string); !strings.Contains(body, "先少洗脸\n再多保湿") || !strings.Contains(body, "#护肤 #冬季") {
			t.Fatalf("body %q", d["body"])
		}
		if d["inputEvents"].(float64) == 0 {
			t.Fatal("the fields were set without input events; the page's editors would not see the text")
		}
		e.fake.mu.Lock()
		defer e.fake.mu.Unlock()
		if len(e.fake.uploads) != 3 {
			t.Fatalf("uploads %d", len(e.fake.uploads))
		}
		for i, want := range e.cards {
			name := "card-0" + string(rune('1'+i)) + ".png"
			if !bytes.Equal(e.fake.uploads[name], want) {
				t.Fatalf("%s differs from the package's card (have %v)", name, keys(e.fake.uploads))
			}
		}
	})
	t.Run("publish after approval presses publish and marks the calendar", func(t *testing.T) {
		fake := &fakeCreator{loggedIn: true}
		e := newXhsEnv(t, fake)
		ap := &askingApprover{ok: true, fake: fake}
		e.cfg.Approver = ap
		res, err := call(t, e.cfg, "xhs_publish", `{"package":"`+e.pkg+`","publish":true}`, alice)
		if err != nil {
			t.Fatalf("%v (page saw %v)", err, fake.seen())
		}
		if !strings.Contains(res.Text, `"published":true`) || ap.asked != 1 || ap.hitsAtAsk != 0 || !strings.Contains(ap.reason, "冬季护肤三步") {
			t.Fatalf("result %s asked %d hits before asking %d reason %q", res.Text, ap.asked, ap.hitsAtAsk, ap.reason)
		}
		// The side menu's "发布笔记" is not the publish button.
		if got := strings.Join(fake.seen(), ","); got != "tab,publish" {
			t.Fatalf("page events %s, want tab,publish", got)
		}
		if p := fake.event("publish"); p["title"] != "冬季护肤三步" || p["trusted"] != true {
			t.Fatalf("publish %v", p)
		}
		var status, ref string
		e.cfg.DB.QueryRow(`SELECT status, ref FROM content_items WHERE agent_id = 'alice'`).Scan(&status, &ref)
		if status != "published" || !strings.HasPrefix(ref, "xhs:browser:") {
			t.Fatalf("calendar %q %q", status, ref)
		}
	})
	// A prompt-injected model asks to publish. Until a person approves,
	// the page is not even opened, so nothing can be pressed.
	t.Run("injected publish without approval publishes nothing", func(t *testing.T) {
		for _, tc := range []struct {
			name     string
			approver func(*fakeCreator) tools.Approver
		}{
			{"denied", func(f *fakeCreator) tools.Approver { return &askingApprover{ok: false, fake: f} }},
			{"no approver", func(*fakeCreator) tools.Approver { return nil }},
		} {
			t.Run(tc.name, func(t *testing.T) {
				fake := &fakeCreator{loggedIn: true}
				e := newXhsEnv(t, fake)
				e.cfg.Approver = tc.approver(fake)
				_, err := call(t, e.cfg, "xhs_publish", `{"package":"`+e.pkg+`","publish":true}`, alice)
				if err == nil || !strings.Contains(err.Error(), "approv") {
					t.Fatalf("err %v", err)
				}
				if n := fake.requests(); n != 0 || fake.event("publish") != nil {
					t.Fatalf("the page got %d requests", n)
				}
			})
		}
	})
	t.Run("login page gives a plain error naming the profile", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			fake *fakeCreator
		}{
			{"redirect to /login", &fakeCreator{}},
			{"login form in place", &fakeCreator{loginInPlace: true}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e := newXhsEnv(t, tc.fake)
				_, err := call(t, e.cfg, "xhs_publish", `{"package":"`+e.pkg+`"}`, alice)
				if err == nil {
					t.Fatal("no error on a login page")
				}
				msg := err.Error()
				for _, want := range []string{"log in once", `profile "xhs"`, filepath.Join(e.state, "browser", "xhs"), "never stores your password"} {
					if !strings.Contains(msg, want) {
						t.Fatalf("error %q lacks %q", msg, want)
					}
				}
				tc.fake.mu.Lock()
				defer tc.fake.mu.Unlock()
				if len(tc.fake.events) != 0 || len(tc.fake.uploads) != 0 {
					t.Fatalf("the login page got %v %v", tc.fake.events, tc.fake.uploads)
				}
			})
		}
	})
	t.Run("a redesigned page fails loudly and presses nothing", func(t *testing.T) {
		prev := xhsLoadWait
		xhsLoadWait = 2 * time.Second
		defer func() { xhsLoadWait = prev }()
		fake := &fakeCreator{loggedIn: true, redesigned: true}
		e := newXhsEnv(t, fake)
		_, err := call(t, e.cfg, "xhs_publish", `{"package":"`+e.pkg+`"}`, alice)
		if err == nil || !strings.Contains(err.Error(), "selectors need updating") {
			t.Fatalf("err %v", err)
		}
		if len(fake.seen()) != 0 {
			t.Fatalf("page events %v", fake.seen())
		}
	})
	// Where the browser goes is config only: the model has no argument for
	// it, and a package path that is a URL is not a package.
	t.Run("the model cannot choose the URL", func(t *testing.T) {
		fake := &fakeCreator{loggedIn: true}
		e := newXhsEnv(t, fake)
		evil := &fakeCreator{loggedIn: true}
		esrv := httptest.NewServer(evil)
		defer esrv.Close()
		for _, args := range []string{
			`{"package":"` + e.pkg + `","creatorUrl":"` + esrv.URL + `/publish/publish"}`,
			`{"package":"` + e.pkg + `","url":"` + esrv.URL + `"}`,
			`{"package":"` + esrv.URL + `/publish/publish"}`,
		} {
			if res, err := call(t, e.cfg, "xhs_publish", args, alice); err == nil && !res.IsError {
				t.Errorf("%s accepted", args)
			}
		}
		if evil.requests() != 0 || fake.requests() != 0 {
			t.Fatalf("requests: evil %d, creator %d", evil.requests(), fake.requests())
		}
		var schema struct {
			Properties map[string]any `json:"properties"`
		}
		for _, tool := range Tools(e.cfg) {
			if tool.Spec().Name == "xhs_publish" {
				json.Unmarshal(tool.Spec().Parameters, &schema)
			}
		}
		if len(schema.Properties) != 2 || schema.Properties["package"] == nil || schema.Properties["publish"] == nil {
			t.Fatalf("schema properties %v", schema.Properties)
		}
	})
}

// xhs_publish is dangerous, the owner's, and in the extension tier (the
// model enables it first), like the browser it drives.
func TestXhsPublishSpec(t *testing.T) {
	cfg, _ := env(t)
	for _, tool := range Tools(cfg) {
		if s := tool.Spec(); s.Name == "xhs_publish" {
			if !s.Dangerous || !s.OwnerOnly || s.Tier != tools.TierExtension || !slices.Contains(s.Groups, "group:mateclaw") {
				t.Fatalf("spec %+v", s)
			}
			return
		}
	}
	t.Fatal("no xhs_publish")
}

// Checks that need no browser: what a package must be.
func TestXhsPublishPackage(t *testing.T) {
	cfg, ws := env(t)
	os.MkdirAll(filepath.Join(ws, "cards"), 0o755)
	var cards []string
	for i := range 3 {
		name := filepath.Join("cards", string(rune('a'+i))+".png")
		os.WriteFile(filepath.Join(ws, name), pngOf(t, 300, 400), 0o644)
		cards = append(cards, `"`+name+`"`)
	}
	res, err := call(t, cfg, "xhs_package", `{"title":"标题","body":"正文","cards":[`+strings.Join(cards, ",")+`]}`, alice)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Package string `json:"package"`
	}
	json.Unmarshal([]byte(res.Text), &out)
	note := filepath.Join(ws, out.Package, "note.json")
	orig, _ := os.ReadFile(note)
	tests := []struct {
		name, pkg, edit, want string
	}{
		{name: "workspace root", pkg: ".", want: "not an xhs_package folder"},
		{name: "the xhs folder itself", pkg: "exports/xhs", want: "not an xhs_package folder"},
		{name: "a gzh folder", pkg: "exports/gzh/x", want: "not an xhs_package folder"},
		{name: "outside the workspace", pkg: "/etc", want: ""},
		{name: "card outside the package", pkg: out.Package, edit: `"cards":["../../../../etc/passwd","card-02.png","card-03.png"]`, want: "outside the package"},
		{name: "too few cards", pkg: out.Package, edit: `"cards":["card-01.png"]`, want: "lists 1 cards"},
		{name: "no browser", pkg: out.Package, want: "needs the browser"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.WriteFile(note, orig, 0o644)
			if tt.edit != "" {
				var m map[string]json.RawMessage
				json.Unmarshal(orig, &m)
				k, v, _ := strings.Cut(tt.edit, ":")
				m[strings.Trim(k, `"`)] = json.RawMessage(v)
				b, _ := json.Marshal(m)
				os.WriteFile(note, b, 0o644)
			}
			_, err := call(t, cfg, "xhs_publish", `{"package":"`+tt.pkg+`"}`, alice)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
		})
	}
}

// A note edited after packaging to carry flagged terms is re-scanned,
// and publishing it is refused before anyone is asked.
func TestXhsPublishRescans(t *testing.T) {
	cfg, ws := env(t)
	ap := &fixedApprover{ok: true}
	cfg.Approver = ap
	pkg := filepath.Join(ws, "exports", "xhs", "note-1")
	os.MkdirAll(pkg, 0o755)
	var cards []string
	for i := range 3 {
		name := "card-0" + string(rune('1'+i)) + ".png"
		os.WriteFile(filepath.Join(pkg, name), pngOf(t, 300, 400), 0o644)
		cards = append(cards, name)
	}
	note, _ := json.Marshal(map[string]any{"platform": "xhs", "title": "全网最低价", "body": "稳赚不赔", "cards": cards})
	os.WriteFile(filepath.Join(pkg, "note.json"), note, 0o644)
	_, err := call(t, cfg, "xhs_publish", `{"package":"exports/xhs/note-1","publish":true}`, alice)
	if err == nil || !strings.Contains(err.Error(), "compliance scan") || ap.asked != 0 {
		t.Fatalf("err %v, asked %d", err, ap.asked)
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
