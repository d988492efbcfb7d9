package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
)

// startTimeout bounds how long Chromium may take to open its DevTools port.
const startTimeout = 20 * time.Second

// instance is one running (or attached) browser.
type instance struct {
	m       *Manager
	profile Profile
	port    int
	log     *slog.Logger

	cmd    *exec.Cmd      // nil for a remote profile
	exited chan struct{}  // closed when cmd exits
	output *limitedWriter // Chromium's stderr, for start errors
	wsURL  string         // the browser's DevTools WebSocket, as it announced it

	allocCancel   context.CancelFunc
	browserCtx    context.Context // browser-level chromedp context; opens no tab itself
	browserCancel context.CancelFunc

	mu          sync.Mutex
	tabs        map[target.ID]*tab
	active      target.ID
	downloadDir string
	stopped     bool
}

// start launches Chromium for a local profile, or attaches to a remote
// one, and connects to it.
func (m *Manager) start(ctx context.Context, p Profile) (*instance, error) {
	b := &instance{m: m, profile: p, port: p.CDPPort, tabs: map[target.ID]*tab{},
		log: m.log.With("profile", p.Name)}
	endpoint := p.CDPURL
	if !p.Remote() {
		if err := b.launch(ctx); err != nil {
			return nil, err
		}
		// Our own browser's socket, by its id: never another program's
		// browser that happens to answer on the port.
		endpoint = b.wsURL
	}
	// The allocator and the browser context live as long as the browser,
	// not as long as the call that started it.
	allocCtx, allocCancel := remote.NewAllocator(context.Background(), endpoint)
	b.allocCancel = allocCancel
	b.browserCtx, b.browserCancel = chromedp.NewContext(allocCtx)
	// The first command connects, and the connection lives as long as the
	// context it ran on: run it on the browser's own context.
	err := firstRun(ctx, b.browserCtx, b.browserCancel, startTimeout, func(c context.Context) error {
		_, err := chromedp.Targets(c)
		return err
	})
	if err != nil {
		b.stop()
		return nil, fmt.Errorf("connect to browser of profile %q: %w", p.Name, err)
	}
	if err := b.guard(ctx); err != nil {
		b.stop()
		return nil, fmt.Errorf("browser of profile %q: %w", p.Name, err)
	}
	cctx, cancel := b.bound(ctx, startTimeout)
	defer cancel()
	// Adopt the tab Chromium opens at start, so the first snapshot has a
	// page to read without an open.
	if infos, err := chromedp.Targets(cctx); err == nil {
		for _, ti := range infos {
			if ti.Type == "page" {
				if _, err := b.attach(cctx, ti.TargetID); err == nil {
					break
				}
			}
		}
	}
	b.log.Info("browser started", "port", b.port, "remote", p.Remote())
	return b, nil
}

// launch runs Chromium on the profile's user-data dir and waits for its
// DevTools port to answer.
func (b *instance) launch(ctx context.Context) error {
	path, err := b.m.execPath()
	if err != nil {
		return err
	}
	if !portFree(b.port) {
		return fmt.Errorf("DevTools port %d of profile %q is in use (another browser may hold it; try action reset-profile): %w", b.port, b.profile.Name, errPortTaken)
	}
	dir := boxedDataDir
	if b.profile.wrap == nil {
		dir = b.m.userDataDir(b.profile.Name)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("user data dir: %w", err)
		}
	}
	args := []string{
		"--headless=new",
		"--no-first-run",
		"--no-default-browser-check",
		"--disable-background-networking",
		"--disable-component-update",
		"--disable-sync",
		"--metrics-recording-only",
		"--disable-default-apps",
		"--mute-audio",
		"--disable-dev-shm-usage",
		"--password-store=basic",
		"--remote-debugging-address=127.0.0.1",
		"--remote-debugging-port=" + strconv.Itoa(b.port),
		"--user-data-dir=" + dir,
	}
	proxy, err := b.m.proxyServer()
	if err != nil {
		return err
	}
	// Every request, loopback ones included (Chromium skips the proxy for
	// those unless told), goes through the network guard's proxy.
	args = append(args, "--proxy-server=http://"+proxy, "--proxy-bypass-list=<-loopback>")
	if os.Geteuid() == 0 {
		// Chromium refuses to run its sandbox as root.
		args = append(args, "--no-sandbox")
	}
	args = append(args, "about:blank")
	b.output = &limitedWriter{buf: &bytes.Buffer{}, max: 64 << 10}
	argv := append([]string{path}, args...)
	if b.profile.wrap != nil {
		if argv, err = b.profile.wrap(argv); err != nil {
			return fmt.Errorf("browser in the sandbox: %w", err)
		}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout = nil
	cmd.Stderr = b.output
	setProcessGroup(cmd)
	// Chromium's helpers inherit stderr and can hold it open after the
	// browser exits; do not let them hold up Wait.
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", argv[0], err)
	}
	b.cmd = cmd
	b.exited = make(chan struct{})
	go func() {
		cmd.Wait()
		close(b.exited)
	}()
	deadline := time.Now().Add(startTimeout)
	want := "ws://127.0.0.1:" + strconv.Itoa(b.port) + "/devtools/browser/"
	versionURL := "http://127.0.0.1:" + strconv.Itoa(b.port) + "/json/version"
	for {
		// Chromium says where its DevTools listen. When the port is
		// taken it falls back to another address (such as [::1]) rather
		// than failing, so the announcement must be the address asked
		// for, and the port must answer with this browser's own id.
		if ws, ok := b.output.devtoolsURL(); ok {
			if !strings.HasPrefix(ws, want) {
				b.kill()
				return fmt.Errorf("DevTools port %d of profile %q is taken by another program (chromium listened on %s): %w", b.port, b.profile.Name, ws, errPortTaken)
			}
			if got, up := devtoolsBrowserURL(ctx, versionURL); up {
				if got != ws {
					b.kill()
					return fmt.Errorf("DevTools port %d of profile %q answers for another browser: %w", b.port, b.profile.Name, errPortTaken)
				}
				b.wsURL = ws
				return nil
			}
		}
		select {
		case <-b.exited:
			return fmt.Errorf("%w: %s", errExitedAtStart, lastLines(b.output.String()))
		case <-ctx.Done():
			b.kill()
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			b.kill()
			return fmt.Errorf("chromium did not open DevTools port %d within %s", b.port, startTimeout)
		}
	}
}

// errExitedAtStart marks a Chromium that ended before it opened its
// DevTools port. On a loaded machine Chromium sometimes crashes this way
// once; the manager tries one more start.
var errExitedAtStart = errors.New("chromium exited at start")

// errPortTaken marks a DevTools port that another program holds.
var errPortTaken = errors.New("DevTools port in use")

// devtoolsBrowserURL asks a DevTools port which browser it serves.
func devtoolsBrowserURL(ctx context.Context, versionURL string) (string, bool) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, versionURL, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", false
	}
	defer resp.Body.Close()
	var v struct {
		WebSocketDebuggerURL string `json:"webSocketDebuggerUrl"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&v) != nil {
		return "", false
	}
	return v.WebSocketDebuggerURL, true
}

// devtoolsUp reports whether a DevTools port answers.
func devtoolsUp(ctx context.Context, versionURL string) bool {
	_, up := devtoolsBrowserURL(ctx, versionURL)
	return up
}

// dead reports whether a launched Chromium has exited or the connection
// to the browser is lost (chromedp ends the browser context then).
func (b *instance) dead() bool {
	if b.browserCtx != nil && b.browserCtx.Err() != nil {
		return true
	}
	if b.exited == nil {
		return false
	}
	select {
	case <-b.exited:
		return true
	default:
		return false
	}
}

// stop closes the tabs' contexts, asks Chromium to quit (SIGTERM), and
// kills its process group if it does not. A remote browser is only detached from. Safe to call on a
// half-started instance and more than once.
func (b *instance) stop() error {
	b.mu.Lock()
	if b.stopped {
		b.mu.Unlock()
		return nil
	}
	b.stopped = true
	tabs := b.tabs
	b.tabs = map[target.ID]*tab{}
	b.mu.Unlock()
	for _, t := range tabs {
		t.detach()
	}
	if b.browserCancel != nil {
		b.browserCancel()
	}
	if b.allocCancel != nil {
		b.allocCancel()
	}
	if b.cmd != nil {
		// SIGTERM lets Chromium save the profile and stop its helpers.
		terminateProcess(b.cmd)
		select {
		case <-b.exited:
		case <-time.After(5 * time.Second):
		}
		// Also reaps helpers the browser left behind.
		b.kill()
		<-b.exited
		b.log.Info("browser stopped")
	}
	return nil
}

func (b *instance) kill() {
	if b.cmd != nil && b.cmd.Process != nil {
		killProcessGroup(b.cmd)
	}
}

// bound derives a context from the browser's context that also ends with
// the call's ctx, so a call's deadline cuts its commands short without
// closing the browser or the tab.
func (b *instance) bound(call context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return boundTo(b.browserCtx, call, d)
}

func boundTo(parent, call context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	if d > 0 {
		var tcancel context.CancelFunc
		ctx, tcancel = context.WithTimeout(ctx, d)
		prev := cancel
		cancel = func() { tcancel(); prev() }
	}
	stop := context.AfterFunc(call, cancel)
	return ctx, func() { stop(); cancel() }
}

// firstRun runs fn on a long-lived chromedp context: chromedp ties a
// connection and a target's reader to the context of the command that
// opened them, so that command cannot run on a per-call context. The
// call's ctx and d still bound the wait; on either, the long context is
// cancelled, which undoes the half-made connection or tab.
func firstRun(call, long context.Context, cancelLong context.CancelFunc, d time.Duration, fn func(context.Context) error) error {
	done := make(chan error, 1)
	go func() { done <- fn(long) }()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-call.Done():
		cancelLong()
		<-done
		return call.Err()
	case <-timer.C:
		cancelLong()
		<-done
		return fmt.Errorf("no answer from the browser within %s", d)
	}
}

// setDownloads points the browser's downloads at the caller's workspace.
func (b *instance) setDownloads(ctx context.Context, workspace string) error {
	dir := filepath.Join(workspace, "browser", "downloads")
	b.mu.Lock()
	same := b.downloadDir == dir
	b.mu.Unlock()
	if same {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("downloads dir: %w", err)
	}
	cctx, cancel := b.bound(ctx, 10*time.Second)
	defer cancel()
	_, err := chromedp.CallBrowser(cctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir,
	})
	if err != nil {
		return fmt.Errorf("set download dir: %w", err)
	}
	b.mu.Lock()
	b.downloadDir = dir
	b.mu.Unlock()
	return nil
}

// TabInfo is one tab as the tool reports it.
type TabInfo struct {
	TargetID string `json:"targetId"`
	Title    string `json:"title"`
	URL      string `json:"url"`
	Active   bool   `json:"active"`
}

// listTabs lists the browser's page targets.
func (b *instance) listTabs(ctx context.Context) ([]TabInfo, error) {
	cctx, cancel := b.bound(ctx, 10*time.Second)
	defer cancel()
	infos, err := chromedp.Targets(cctx)
	if err != nil {
		return nil, fmt.Errorf("list tabs: %w", err)
	}
	b.mu.Lock()
	active := b.active
	b.mu.Unlock()
	out := []TabInfo{}
	for _, ti := range infos {
		if ti.Type != "page" {
			continue
		}
		out = append(out, TabInfo{TargetID: string(ti.TargetID), Title: ti.Title, URL: ti.URL, Active: ti.TargetID == active})
	}
	return out, nil
}

// openTab opens a blank tab, makes it active and returns it; the caller
// navigates it after the guard is armed.
func (b *instance) openTab(ctx context.Context) (*tab, error) {
	tctx, tcancel := chromedp.NewContext(b.browserCtx, chromedp.WithDetachOnCancel())
	if err := firstRun(ctx, tctx, tcancel, 15*time.Second, func(c context.Context) error { return chromedp.Do(c) }); err != nil {
		tcancel()
		return nil, fmt.Errorf("open tab: %w", err)
	}
	cctx, cancel := boundTo(tctx, ctx, 15*time.Second)
	defer cancel()
	c := chromedp.FromContext(tctx)
	if c == nil || c.Target == nil {
		tcancel()
		return nil, errors.New("open tab: no target")
	}
	return b.adopt(cctx, c.Target.TargetID, tctx, tcancel)
}

// attach starts driving an existing target (one the page or Chromium
// opened) and makes it active.
func (b *instance) attach(ctx context.Context, id target.ID) (*tab, error) {
	b.mu.Lock()
	if t := b.tabs[id]; t != nil {
		b.active = id
		b.mu.Unlock()
		return t, nil
	}
	b.mu.Unlock()
	tctx, tcancel := chromedp.NewContext(b.browserCtx, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel())
	if err := firstRun(ctx, tctx, tcancel, 15*time.Second, func(c context.Context) error { return chromedp.Do(c) }); err != nil {
		tcancel()
		return nil, fmt.Errorf("attach tab %s: %w", id, err)
	}
	cctx, cancel := boundTo(tctx, ctx, 15*time.Second)
	defer cancel()
	return b.adopt(cctx, id, tctx, tcancel)
}

func (b *instance) adopt(ctx context.Context, id target.ID, tctx context.Context, tcancel context.CancelFunc) (*tab, error) {
	t := newTab(b, id, tctx, tcancel)
	if err := t.arm(ctx); err != nil {
		tcancel()
		return nil, err
	}
	b.mu.Lock()
	b.tabs[id] = t
	b.active = id
	b.mu.Unlock()
	return t, nil
}

// activeTab returns the tab the model works in, attaching to a page
// target when none is active yet, and opening one when there is none.
func (b *instance) activeTab(ctx context.Context) (*tab, error) {
	b.mu.Lock()
	t := b.tabs[b.active]
	b.mu.Unlock()
	if t != nil && !t.gone() {
		return t, nil
	}
	tabs, err := b.listTabs(ctx)
	if err != nil {
		return nil, err
	}
	for _, ti := range tabs {
		if t, err := b.attach(ctx, target.ID(ti.TargetID)); err == nil {
			return t, nil
		}
	}
	return b.openTab(ctx)
}

// closeTab closes a tab (the active one when id is empty).
func (b *instance) closeTab(ctx context.Context, id target.ID) error {
	b.mu.Lock()
	if id == "" {
		id = b.active
	}
	t := b.tabs[id]
	delete(b.tabs, id)
	if b.active == id {
		b.active = ""
	}
	b.mu.Unlock()
	if id == "" {
		return errors.New("no active tab to close")
	}
	if t != nil {
		// Tabs detach on cancel, so that stopping never closes a remote
		// browser's tabs; closing is explicit.
		defer t.close()
	}
	cctx, cancel := b.bound(ctx, 10*time.Second)
	defer cancel()
	if _, err := chromedp.CallBrowser(cctx, target.CloseTarget, target.CloseTargetParams{TargetID: id}); err != nil {
		return fmt.Errorf("close tab %s: %w", id, err)
	}
	return nil
}

// limitedWriter keeps the first max bytes written to it.
type limitedWriter struct {
	mu  sync.Mutex
	buf *bytes.Buffer
	max int
}

func (w *limitedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if room := w.max - w.buf.Len(); room > 0 {
		w.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (w *limitedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

var devtoolsListening = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`DevTools listening on (ws://\S+)`) })

// devtoolsURL is the DevTools WebSocket URL Chromium announced, if it
// has yet.
func (w *limitedWriter) devtoolsURL() (string, bool) {
	m := devtoolsListening().FindStringSubmatch(w.String())
	if m == nil {
		return "", false
	}
	return m[1], true
}

func lastLines(s string) string {
	const keep = 600
	if len(s) > keep {
		s = "…" + s[len(s)-keep:]
	}
	return s
}
