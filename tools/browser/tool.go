package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"github.com/openclaw-go/openclaw/tools"
)

// Args are the browser tool's arguments, named as in OpenClaw.
type Args struct {
	Action  string `json:"action" jsonschema:"enum=status,enum=start,enum=stop,enum=tabs,enum=open,enum=focus,enum=close,enum=navigate,enum=snapshot,enum=screenshot,enum=act,enum=console,enum=pdf,enum=upload,enum=dialog,enum=profiles,enum=create-profile,enum=delete-profile,enum=reset-profile,description=What to do"`
	Profile string `json:"profile,omitempty" jsonschema:"description=Browser profile (default: the configured default profile)"`

	URL      string `json:"url,omitempty" jsonschema:"description=open and navigate: http or https URL"`
	TargetID string `json:"targetId,omitempty" jsonschema:"description=focus and close: tab id from tabs (close: default the active tab)"`

	Interactive bool   `json:"interactive,omitempty" jsonschema:"description=snapshot: only interactive elements"`
	Compact     bool   `json:"compact,omitempty" jsonschema:"description=snapshot: drop unnamed structure and repeated text"`
	Depth       int    `json:"depth,omitempty" jsonschema:"minimum=0,description=snapshot: deepest level to show"`
	Selector    string `json:"selector,omitempty" jsonschema:"description=snapshot: CSS selector of the subtree to show; act kind=wait: wait until it matches"`
	MaxChars    int    `json:"maxChars,omitempty" jsonschema:"minimum=1,description=snapshot: most characters (default 50000)"`

	FullPage bool   `json:"fullPage,omitempty" jsonschema:"description=screenshot: the whole page, not just the viewport"`
	Ref      string `json:"ref,omitempty" jsonschema:"description=Element ref from the last snapshot (e.g. e12): act target, screenshot element, upload: element to click to open the file chooser"`

	Kind        string   `json:"kind,omitempty" jsonschema:"enum=click,enum=type,enum=press,enum=hover,enum=drag,enum=select,enum=fill,enum=resize,enum=wait,enum=evaluate,description=act: what to do"`
	Text        string   `json:"text,omitempty" jsonschema:"description=act type: text to type; act wait: text to wait for"`
	TextGone    string   `json:"textGone,omitempty" jsonschema:"description=act wait: text to wait to disappear"`
	Submit      bool     `json:"submit,omitempty" jsonschema:"description=act type: press Enter after typing"`
	DoubleClick bool     `json:"doubleClick,omitempty" jsonschema:"description=act click: double-click"`
	Button      string   `json:"button,omitempty" jsonschema:"enum=left,enum=right,enum=middle,description=act click: mouse button"`
	Key         string   `json:"key,omitempty" jsonschema:"description=act press: key name (Enter, Tab, Escape, ArrowDown...) or one character"`
	StartRef    string   `json:"startRef,omitempty" jsonschema:"description=act drag: ref to drag from"`
	EndRef      string   `json:"endRef,omitempty" jsonschema:"description=act drag: ref to drop on"`
	Values      []string `json:"values,omitempty" jsonschema:"description=act select: option values or labels"`
	Fields      []Field  `json:"fields,omitempty" jsonschema:"description=act fill: fields to set"`
	Width       int      `json:"width,omitempty" jsonschema:"description=act resize: viewport width"`
	Height      int      `json:"height,omitempty" jsonschema:"description=act resize: viewport height"`
	TimeMs      int      `json:"timeMs,omitempty" jsonschema:"description=act wait: milliseconds to wait (at most 30000)"`
	TimeoutMs   int      `json:"timeoutMs,omitempty" jsonschema:"description=act wait: how long to wait for text or selector (default 10000)"`
	Fn          string   `json:"fn,omitempty" jsonschema:"description=act evaluate: JavaScript function, e.g. () => document.title (gets the ref's element when ref is set)"`

	Level string `json:"level,omitempty" jsonschema:"enum=log,enum=info,enum=warning,enum=error,enum=debug,description=console: only this level"`

	Paths    []string `json:"paths,omitempty" jsonschema:"description=upload: workspace-relative files"`
	InputRef string   `json:"inputRef,omitempty" jsonschema:"description=upload: ref of the file input"`
	Element  string   `json:"element,omitempty" jsonschema:"description=upload: CSS selector of the file input"`

	Accept     *bool  `json:"accept,omitempty" jsonschema:"description=dialog: accept (true) or dismiss (false) the next dialog"`
	PromptText string `json:"promptText,omitempty" jsonschema:"description=dialog: text for a prompt()"`

	Name   string `json:"name,omitempty" jsonschema:"description=create-profile, delete-profile, reset-profile: profile name (lowercase letters, digits, hyphens)"`
	CDPURL string `json:"cdpUrl,omitempty" jsonschema:"description=create-profile: DevTools URL of a remote browser to attach to"`

	// OpenClaw's names for the same things, so models that learned its
	// schema are understood.
	TargetURL      string      `json:"targetUrl,omitempty" jsonschema:"description=Same as url"`
	Request        *ActRequest `json:"request,omitempty" jsonschema:"description=act: the act fields (kind, ref, text...) as one object; same as giving them at the top level"`
	SnapshotFormat string      `json:"snapshotFormat,omitempty" jsonschema:"enum=aria,enum=ai,description=snapshot: both give the role view with e-refs here"`
	Refs           string      `json:"refs,omitempty" jsonschema:"enum=role,enum=aria,description=snapshot: refs are role refs (e12) here"`
	Mode           string      `json:"mode,omitempty" jsonschema:"enum=efficient,description=snapshot: efficient = interactive and compact"`
	Query          string      `json:"query,omitempty" jsonschema:"description=snapshot: keep only lines containing all these words (case-insensitive)"`
	Target         string      `json:"target,omitempty" jsonschema:"enum=host,description=Where the browser runs: the gateway's host only"`
	Node           string      `json:"node,omitempty" jsonschema:"description=Browser nodes are not supported; leave empty"`
	Modifiers      []string    `json:"modifiers,omitempty" jsonschema:"description=act click/press: modifier keys are not supported yet; leave empty"`
}

// ActRequest is act's fields as OpenClaw nests them under request. Its
// own type (not Args) keeps the schema finite.
type ActRequest struct {
	Kind        string   `json:"kind,omitempty" jsonschema:"enum=click,enum=type,enum=press,enum=hover,enum=drag,enum=select,enum=fill,enum=resize,enum=wait,enum=evaluate"`
	TargetID    string   `json:"targetId,omitempty"`
	Ref         string   `json:"ref,omitempty"`
	Text        string   `json:"text,omitempty"`
	TextGone    string   `json:"textGone,omitempty"`
	Submit      bool     `json:"submit,omitempty"`
	DoubleClick bool     `json:"doubleClick,omitempty"`
	Button      string   `json:"button,omitempty"`
	Key         string   `json:"key,omitempty"`
	StartRef    string   `json:"startRef,omitempty"`
	EndRef      string   `json:"endRef,omitempty"`
	Values      []string `json:"values,omitempty"`
	Fields      []Field  `json:"fields,omitempty"`
	Width       int      `json:"width,omitempty"`
	Height      int      `json:"height,omitempty"`
	TimeMs      int      `json:"timeMs,omitempty"`
	TimeoutMs   int      `json:"timeoutMs,omitempty"`
	Selector    string   `json:"selector,omitempty"`
	Fn          string   `json:"fn,omitempty"`
	Modifiers   []string `json:"modifiers,omitempty"`
}

// normalize folds OpenClaw's argument names into ours.
func (a *Args) normalize() error {
	if a.URL == "" {
		a.URL = a.TargetURL
	}
	if r := a.Request; r != nil {
		// act's fields may come nested in request; nested ones win.
		*a = mergeArgs(*a, Args{Kind: r.Kind, TargetID: r.TargetID, Ref: r.Ref, Text: r.Text, TextGone: r.TextGone,
			Submit: r.Submit, DoubleClick: r.DoubleClick, Button: r.Button, Key: r.Key, StartRef: r.StartRef,
			EndRef: r.EndRef, Values: r.Values, Fields: r.Fields, Width: r.Width, Height: r.Height, TimeMs: r.TimeMs,
			TimeoutMs: r.TimeoutMs, Selector: r.Selector, Fn: r.Fn, Modifiers: r.Modifiers})
	}
	if a.Mode == "efficient" {
		a.Interactive, a.Compact = true, true
	}
	if a.Target != "" && a.Target != "host" {
		return fmt.Errorf("target %q: this gateway's browser runs on its host only", a.Target)
	}
	if a.Node != "" {
		return fmt.Errorf("node %q: browser nodes are not supported; the browser runs on the gateway", a.Node)
	}
	if len(a.Modifiers) > 0 {
		return errors.New("modifiers are not supported yet: press the keys one by one (act kind=press)")
	}
	return nil
}

// mergeArgs takes every field set in over from over, else from base.
func mergeArgs(base, over Args) Args {
	bv, ov := reflect.ValueOf(&base).Elem(), reflect.ValueOf(over)
	for i := range bv.NumField() {
		if f := ov.Field(i); !f.IsZero() {
			bv.Field(i).Set(f)
		}
	}
	return base
}

// callTimeout bounds one call of the tool.
const callTimeout = tools.TimeoutShell

// Tool returns the browser tool, driving the Manager's browsers.
func (m *Manager) Tool() tools.Tool {
	return tools.NewTyped(tools.Spec{
		Name: "browser", Label: "Browser",
		Description: "Control a headless browser managed by the gateway. Actions: status, start, stop, tabs, open (url), focus/close (targetId), navigate (url), " +
			"snapshot (accessibility tree; interactive elements get refs like e12; options interactive, compact, depth, selector), " +
			"act (kind click|type|press|hover|drag|select|fill|resize|wait|evaluate on refs from the last snapshot), screenshot (MEDIA:<path>), pdf (FILE:<path>), " +
			"console, upload (workspace files to a file input), dialog (accept/dismiss the next alert/confirm/prompt), profiles, create-profile, delete-profile, reset-profile. " +
			"Take a snapshot before act and after the page changes. Private and internal network addresses are refused.",
		Tier: tools.TierExtension, Source: tools.SourceCore, Groups: []string{"group:ui"}, Timeout: callTimeout,
		// One browser serves every session, and its profiles keep the
		// logins the owner made in them: a chat stranger reading, typing
		// or running script there acts as the owner on those sites, so
		// their calls wait for a person.
		Dangerous: true,
	}, m.call)
}

func (m *Manager) call(ctx context.Context, c tools.Call, a Args) (tools.Result, error) {
	if !m.enabled() {
		return tools.Result{}, errors.New("the browser tool is turned off (browser.enabled=false)")
	}
	if err := a.normalize(); err != nil {
		return tools.Result{}, err
	}
	name := strings.TrimSpace(a.Profile)
	if name == "" {
		name = m.settings().DefaultProfile
	}
	var wrap func([]string) ([]string, error)
	if m.cfg.Sandbox != nil {
		key, w, err := m.cfg.Sandbox(c.Who)
		if err != nil {
			return tools.Result{}, fmt.Errorf("browser: %w", err)
		}
		if key != "" {
			// A sandboxed caller has its sandbox's browser only: the
			// host's profiles hold the operator's logins and files.
			if strings.TrimSpace(a.Profile) != "" {
				return tools.Result{}, errors.New("browser: this session is sandboxed; it has its sandbox's browser only and cannot pick a profile")
			}
			switch a.Action {
			case "profiles", "create-profile", "delete-profile", "reset-profile":
				return tools.Result{}, fmt.Errorf("browser: action %s is not available in a sandboxed session", a.Action)
			}
			name, wrap = sandboxProfile(key), w
		}
	}
	switch a.Action {
	case "status":
		if wrap != nil {
			return m.boxStatus(ctx, name)
		}
		return m.status(ctx, name)
	case "start":
		if _, err := m.ensureBox(ctx, name, wrap); err != nil {
			return tools.Result{}, err
		}
		if wrap != nil {
			return m.boxStatus(ctx, name)
		}
		return m.status(ctx, name)
	case "stop":
		was, err := m.stopProfile(name)
		if err != nil {
			return tools.Result{}, err
		}
		return jsonResult(map[string]any{"profile": name, "stopped": was})
	case "profiles":
		return m.listProfiles()
	case "create-profile":
		if u := strings.TrimSpace(a.CDPURL); u != "" {
			// A DevTools endpoint is a network destination like any other:
			// the model may only attach to hosts the policy allows.
			if err := m.allowRequest(ctx, u); err != nil {
				return tools.Result{}, fmt.Errorf("cdpUrl refused: %w", err)
			}
		}
		m.mu.Lock()
		p, err := m.createProfile(strings.TrimSpace(a.Name), strings.TrimSpace(a.CDPURL))
		m.mu.Unlock()
		if err != nil {
			return tools.Result{}, err
		}
		return jsonResult(map[string]any{"created": p})
	case "delete-profile":
		return m.deleteProfile(a.Name)
	case "reset-profile":
		return m.resetProfile(ctx, orDefault(a.Name, name))
	}

	b, err := m.ensureBox(ctx, name, wrap)
	if err != nil {
		return tools.Result{}, err
	}
	// Only screenshot, pdf and upload need the workspace; without one,
	// downloads keep Chromium's default (refused in headless mode). A
	// sandboxed browser cannot see the host folder, so its downloads
	// stay refused.
	ws, wsErr := m.workspace(c.Who)
	if wsErr == nil && wrap == nil {
		if err := b.setDownloads(ctx, ws); err != nil {
			m.log.Warn("downloads", "err", err)
		}
	}
	switch a.Action {
	case "tabs":
		tabs, err := b.listTabs(ctx)
		if err != nil {
			return tools.Result{}, err
		}
		return jsonResult(map[string]any{"profile": name, "tabs": tabs})
	case "open":
		if _, err := m.checkNavigation(ctx, a.URL); err != nil {
			return tools.Result{}, err
		}
		t, err := b.openTab(ctx)
		if err != nil {
			return tools.Result{}, err
		}
		return t.navigate(ctx, a.URL)
	case "focus":
		if a.TargetID == "" {
			return tools.Result{}, errors.New("focus needs targetId (see action tabs)")
		}
		t, err := b.attach(ctx, target.ID(a.TargetID))
		if err != nil {
			return tools.Result{}, err
		}
		cctx, cancel := t.bound(ctx, 10*time.Second)
		defer cancel()
		chromedp.CallBrowser(cctx, target.ActivateTarget, target.ActivateTargetParams{TargetID: t.id})
		return jsonResult(map[string]any{"focused": a.TargetID})
	case "close":
		if err := b.closeTab(ctx, target.ID(a.TargetID)); err != nil {
			return tools.Result{}, err
		}
		return jsonResult(map[string]any{"closed": orDefault(a.TargetID, "active tab")})
	}

	t, err := b.activeTab(ctx)
	if err != nil {
		return tools.Result{}, err
	}
	switch a.Action {
	case "navigate":
		if _, err := m.checkNavigation(ctx, a.URL); err != nil {
			return tools.Result{}, err
		}
		return t.navigate(ctx, a.URL)
	case "snapshot":
		o := snapshotOptions{Interactive: a.Interactive, Compact: a.Compact, Depth: a.Depth, MaxChars: a.MaxChars}
		if o.MaxChars <= 0 {
			o.MaxChars = 50000
		}
		// Under the runner's cap with room for the truncation note, so the
		// note (narrow it with selector) is never what gets cut.
		if c.MaxChars > 0 {
			o.MaxChars = max(1, min(o.MaxChars, c.MaxChars-snapshotNoteChars))
		}
		text, err := t.snapshot(ctx, strings.TrimSpace(a.Selector), o)
		if err != nil {
			return tools.Result{}, err
		}
		if q := strings.Fields(strings.ToLower(a.Query)); len(q) > 0 {
			text = queryLines(text, q)
		}
		return tools.Result{Text: text}, nil
	case "act":
		text, err := t.act(ctx, a, m.evaluateEnabled())
		if err != nil {
			return tools.Result{}, err
		}
		return tools.Result{Text: text}, nil
	case "screenshot":
		if wsErr != nil {
			return tools.Result{}, wsErr
		}
		data, err := t.screenshot(ctx, a.FullPage, a.Ref)
		if err != nil {
			return tools.Result{}, err
		}
		abs, rel, err := m.save(ws, "shot", "png", data)
		if err != nil {
			return tools.Result{}, fmt.Errorf("save screenshot: %w", err)
		}
		w, h := pngSize(data)
		meta, _ := json.Marshal(map[string]any{"path": rel, "width": w, "height": h, "bytes": len(data)})
		return tools.Result{Text: fmt.Sprintf("%s\nMEDIA:%s", meta, abs), Images: resultImage(data)}, nil
	case "pdf":
		if wsErr != nil {
			return tools.Result{}, wsErr
		}
		data, err := t.pdf(ctx)
		if err != nil {
			return tools.Result{}, err
		}
		abs, rel, err := m.save(ws, "page", "pdf", data)
		if err != nil {
			return tools.Result{}, fmt.Errorf("save pdf: %w", err)
		}
		meta, _ := json.Marshal(map[string]any{"path": rel, "bytes": len(data)})
		return tools.Result{Text: fmt.Sprintf("%s\nFILE:%s", meta, abs)}, nil
	case "console":
		return jsonResult(map[string]any{"targetId": string(t.id), "messages": t.consoleMessages(a.Level)})
	case "upload":
		if wsErr != nil {
			return tools.Result{}, wsErr
		}
		files, err := uploadPaths(ws, a.Paths)
		if err != nil {
			return tools.Result{}, err
		}
		text, err := t.upload(ctx, files, a.InputRef, strings.TrimSpace(a.Element), a.Ref)
		if err != nil {
			return tools.Result{}, err
		}
		return tools.Result{Text: text}, nil
	case "dialog":
		if a.Accept == nil {
			return tools.Result{}, errors.New("dialog needs accept: true or false")
		}
		t.armDialog(*a.Accept, a.PromptText)
		how := map[bool]string{true: "accept", false: "dismiss"}[*a.Accept]
		return tools.Result{Text: "the next dialog in this tab will be " + how + "ed; now do what opens it"}, nil
	}
	return tools.Result{}, fmt.Errorf("unknown action %q", a.Action)
}

// navigate loads url in the tab and waits for its load event.
func (t *tab) navigate(ctx context.Context, url string) (tools.Result, error) {
	cctx, cancel := t.bound(ctx, 45*time.Second)
	defer cancel()
	if err := chromedp.Do(cctx, chromedp.Navigate(url)); err != nil {
		return tools.Result{}, fmt.Errorf("navigate: %w", err)
	}
	t.setRefs(nil) // the old page's refs are gone
	title, _ := chromedp.Run(cctx, chromedp.Title())
	loc, _ := chromedp.Run(cctx, chromedp.Location())
	return jsonResult(map[string]any{"targetId": string(t.id), "url": loc, "title": title})
}

func (m *Manager) status(ctx context.Context, name string) (tools.Result, error) {
	m.mu.Lock()
	p, err := m.profile(name)
	m.mu.Unlock()
	if err != nil {
		return tools.Result{}, err
	}
	out := map[string]any{"profile": name, "running": false, "enabled": m.enabled()}
	if p.CDPURL != "" {
		out["cdpUrl"] = p.CDPURL
	}
	if p.CDPPort != 0 {
		out["cdpPort"] = p.CDPPort
	}
	if b := m.running(name); b != nil {
		out["running"] = true
		out["cdpPort"] = b.port
		if tabs, err := b.listTabs(ctx); err == nil {
			out["tabs"] = len(tabs)
			for _, t := range tabs {
				if t.Active {
					out["activeTargetId"], out["url"] = t.TargetID, t.URL
				}
			}
		}
	}
	return jsonResult(out)
}

// boxStatus is status for a sandbox's browser, which has no saved
// profile.
func (m *Manager) boxStatus(ctx context.Context, name string) (tools.Result, error) {
	out := map[string]any{"profile": name, "running": false, "enabled": m.enabled(), "sandboxed": true}
	if b := m.running(name); b != nil {
		out["running"] = true
		if tabs, err := b.listTabs(ctx); err == nil {
			out["tabs"] = len(tabs)
		}
	}
	return jsonResult(out)
}

func (m *Manager) listProfiles() (tools.Result, error) {
	m.mu.Lock()
	list, err := m.profiles()
	running := map[string]bool{}
	for n, b := range m.browsers {
		running[n] = !b.dead()
	}
	m.mu.Unlock()
	if err != nil {
		return tools.Result{}, err
	}
	type row struct {
		Profile
		Running bool `json:"running"`
		Default bool `json:"default,omitempty"`
	}
	out := make([]row, 0, len(list))
	for _, p := range list {
		out = append(out, row{p, running[p.Name], p.Name == m.settings().DefaultProfile})
	}
	return jsonResult(map[string]any{"profiles": out})
}

func (m *Manager) deleteProfile(name string) (tools.Result, error) {
	name = strings.TrimSpace(name)
	if err := validName(name); err != nil {
		return tools.Result{}, err
	}
	m.mu.Lock()
	p, err := m.profile(name)
	m.mu.Unlock()
	if err != nil {
		return tools.Result{}, err
	}
	switch {
	case p.Remote():
		return tools.Result{}, fmt.Errorf("profile %q attaches to a remote browser; it has no local data to delete", name)
	case p.configured:
		return tools.Result{}, fmt.Errorf("profile %q comes from the config (browser.profiles.%s); remove it there", name, name)
	case name == m.settings().DefaultProfile:
		return tools.Result{}, fmt.Errorf("profile %q is the default profile; use reset-profile", name)
	}
	if _, err := m.stopProfile(name); err != nil {
		return tools.Result{}, err
	}
	m.mu.Lock()
	err = m.forgetProfile(name)
	m.mu.Unlock()
	if err != nil {
		return tools.Result{}, err
	}
	if err := os.RemoveAll(m.userDataDir(name)); err != nil {
		return tools.Result{}, fmt.Errorf("delete user data of %q: %w", name, err)
	}
	return jsonResult(map[string]any{"deleted": name})
}

// resetProfile stops our browser of the profile and, when something still
// answers on its DevTools port (an orphan Chromium left by a crash), asks
// it to close over the protocol. Best effort: a process that does not
// speak DevTools is left alone.
func (m *Manager) resetProfile(ctx context.Context, name string) (tools.Result, error) {
	m.mu.Lock()
	p, err := m.profile(name)
	m.mu.Unlock()
	if err != nil {
		return tools.Result{}, err
	}
	if p.Remote() {
		return tools.Result{}, fmt.Errorf("profile %q attaches to a remote browser; it cannot be reset from here", name)
	}
	stopped, err := m.stopProfile(name)
	if err != nil {
		return tools.Result{}, err
	}
	orphan := false
	if p.CDPPort != 0 {
		base := "http://127.0.0.1:" + strconv.Itoa(p.CDPPort)
		if devtoolsUp(ctx, base+"/json/version") {
			orphan = true
			closeOrphan(ctx, base)
			// Its DevTools port closes before the process is gone; a
			// Chromium started on the profile meanwhile finds the old one
			// still holding it and exits at once.
			waitProfileReleased(ctx, m.userDataDir(name), 10*time.Second)
		}
	}
	// A crashed Chromium leaves its singleton lock, which makes the next
	// start refuse the profile.
	for _, f := range []string{"SingletonLock", "SingletonSocket", "SingletonCookie"} {
		os.Remove(m.userDataDir(name) + string(os.PathSeparator) + f)
	}
	return jsonResult(map[string]any{"profile": name, "stopped": stopped, "orphanClosed": orphan})
}

// waitProfileReleased waits, at most d, for the Chromium named by the
// profile's SingletonLock (a symlink to "host-pid") to exit.
func waitProfileReleased(ctx context.Context, dir string, d time.Duration) {
	target, err := os.Readlink(filepath.Join(dir, "SingletonLock"))
	if err != nil {
		return
	}
	pid, err := strconv.Atoi(target[strings.LastIndexByte(target, '-')+1:])
	if err != nil || pid <= 1 {
		return
	}
	deadline := time.Now().Add(d)
	for processAlive(pid) && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// closeOrphan sends Browser.close straight over a DevTools socket:
// chromedp keeps that command for browsers it allocated itself.
func closeOrphan(ctx context.Context, base string) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/json/version", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return
	}
	var v struct {
		WS string `json:"webSocketDebuggerUrl"`
	}
	err = json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&v)
	resp.Body.Close()
	if err != nil || v.WS == "" {
		return
	}
	conn, err := remote.DialContext(ctx, v.WS)
	if err != nil {
		return
	}
	conn.Write(ctx, &cdproto.Message{ID: 1, Method: cdproto.MethodType(browser.CommandClose)})
	conn.Close()
	for range 30 {
		if !devtoolsUp(ctx, base+"/json/version") {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func jsonResult(v any) (tools.Result, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return tools.Result{}, fmt.Errorf("encode result: %w", err)
	}
	return tools.Result{Text: string(b)}, nil
}

func orDefault(s, def string) string {
	if s = strings.TrimSpace(s); s != "" {
		return s
	}
	return def
}

// queryLines keeps the snapshot lines holding every word of q; their refs
// stay usable.
func queryLines(text string, q []string) string {
	var kept []string
	for _, line := range strings.Split(text, "\n") {
		l := strings.ToLower(line)
		all := true
		for _, w := range q {
			all = all && strings.Contains(l, w)
		}
		if all {
			kept = append(kept, line)
		}
	}
	if len(kept) == 0 {
		return fmt.Sprintf("no snapshot line matches %q", strings.Join(q, " "))
	}
	return strings.Join(kept, "\n")
}
