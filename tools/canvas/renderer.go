package canvas

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// ErrClosed is returned by a Renderer's surfaces after Close.
var ErrClosed = errors.New("canvas renderer is closed")

// ErrNoBrowser means no Chromium was found; set RendererConfig.ExecPath or
// install chromium.
var ErrNoBrowser = errors.New("no Chromium found for the canvas renderer")

// Renderer defaults.
const (
	defaultWidth  = 1024
	defaultHeight = 768
	// renderWait bounds how long a push waits for the page to draw it.
	renderWait = 15 * time.Second
	// startWait bounds Chromium's start-up.
	startWait = 30 * time.Second
)

// RendererConfig wires the built-in renderer.
type RendererConfig struct {
	// BaseURL is where Host is mounted, as Chromium reaches it, e.g.
	// http://127.0.0.1:18789/__openclaw__/canvas/. Required.
	BaseURL string
	// Host is the canvas host served at BaseURL. Required.
	Host *Host
	// CheckURL decides which other http(s) URLs present and navigate may
	// open (e.g. the netguard policy). Nil allows only the canvas host.
	CheckURL func(*url.URL) error
	// ExecPath is the browser binary; empty searches PATH for chromium.
	ExecPath string
	// Width and Height are the viewport in pixels (default 1024x768).
	Width, Height int
}

// Renderer is the built-in headless canvas: one Chromium, started on first
// use, with one tab per session. Close stops it; it is safe to call on a
// renderer that never started.
type Renderer struct {
	cfg  RendererConfig
	base *url.URL

	mu      sync.Mutex
	closed  bool
	profile string
	alloc   context.CancelFunc
	browser context.Context // root lifetime of Chromium, not of any call
	cancel  context.CancelFunc
	tabs    map[string]*tab
	guards  sync.WaitGroup // request guards of open tabs
}

// NewRenderer checks cfg; Chromium starts on the first surface call.
func NewRenderer(cfg RendererConfig) (*Renderer, error) {
	if cfg.Host == nil {
		return nil, errors.New("canvas renderer: Host is required")
	}
	base, err := url.Parse(cfg.BaseURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("canvas renderer: BaseURL %q must be an absolute http(s) URL", cfg.BaseURL)
	}
	if !strings.HasSuffix(base.Path, "/") {
		base.Path += "/"
	}
	base.RawQuery, base.Fragment = "", ""
	cfg.BaseURL = base.String()
	if cfg.Width <= 0 || cfg.Height <= 0 {
		cfg.Width, cfg.Height = defaultWidth, defaultHeight
	}
	return &Renderer{cfg: cfg, base: base, tabs: map[string]*tab{}}, nil
}

// Surface returns the canvas of one session: a tab of its own, opened on
// first use.
func (r *Renderer) Surface(session string) Surface {
	if session == "" {
		session = DefaultSession
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.tabs[session]
	if t == nil {
		t = &tab{r: r, session: session}
		r.tabs[session] = t
	}
	return t
}

// Close stops Chromium and removes its profile.
func (r *Renderer) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	r.tabs = map[string]*tab{}
	return r.stopLocked()
}

// stopLocked ends Chromium, if running. Tab contexts are children of the
// browser's and end with it; a tab reopens itself on its next call. Called
// with mu held.
func (r *Renderer) stopLocked() error {
	var err error
	if r.browser != nil {
		ctx, cancel := context.WithTimeout(r.browser, 5*time.Second)
		err = chromedp.Cancel(ctx)
		cancel()
		r.cancel()
		r.alloc() // waits for the process to end
		r.guards.Wait()
		r.browser = nil
	}
	if r.profile != "" {
		os.RemoveAll(r.profile)
		r.profile = ""
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		err = nil
	}
	return err
}

// start launches Chromium once. Called with mu held.
func (r *Renderer) start() error {
	if r.closed {
		return ErrClosed
	}
	if r.browser != nil {
		if r.browser.Err() == nil {
			return nil
		}
		// Chromium died (crash, OOM kill): start a fresh one.
		r.stopLocked()
	}
	execPath := r.cfg.ExecPath
	if execPath == "" {
		execPath = FindChromium()
		if execPath == "" {
			return ErrNoBrowser
		}
	}
	// On a loaded machine Chromium now and then crashes before it opens
	// its DevTools port; one more start with a fresh profile gets past it.
	err := r.launch(execPath)
	if err != nil && strings.Contains(err.Error(), "chrome failed to start") {
		err = r.launch(execPath)
	}
	return err
}

// launch starts one Chromium with a fresh profile.
func (r *Renderer) launch(execPath string) error {
	profile, err := os.MkdirTemp("", "openclaw-canvas-")
	if err != nil {
		return fmt.Errorf("canvas renderer: profile dir: %w", err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(execPath),
		chromedp.UserDataDir(profile),
		chromedp.Headless,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.WindowSize(r.cfg.Width, r.cfg.Height),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("password-store", "basic"),
	}
	// Chromium refuses to start its sandbox as root; elsewhere keep it.
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	allocCtx, alloc := chromedp.NewExecAllocator(context.Background(), opts...)
	browser, cancel := chromedp.NewContext(allocCtx)
	// The first run starts the browser and must not carry a timeout (it
	// would end the browser with it); a watchdog bounds it instead.
	stop := time.AfterFunc(startWait, cancel)
	err = chromedp.Do(browser, chromedp.Navigate("about:blank"))
	if !stop.Stop() && err == nil {
		err = errors.New("timed out")
	}
	if err != nil {
		cancel()
		alloc()
		os.RemoveAll(profile)
		return fmt.Errorf("canvas renderer: start %s: %w", execPath, err)
	}
	r.profile, r.alloc, r.browser, r.cancel = profile, alloc, browser, cancel
	return nil
}

// FindChromium returns the first Chromium-like browser on PATH, or "".
func FindChromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// pageURL is the canvas page of a session.
func (r *Renderer) pageURL(session string) string { return PageURL(r.cfg.BaseURL, session) }

// isCanvas reports whether u is under the canvas host.
func (r *Renderer) isCanvas(u *url.URL) bool {
	return u.Scheme == r.base.Scheme && strings.EqualFold(u.Host, r.base.Host) && strings.HasPrefix(u.Path, r.base.Path)
}

// allowed resolves raw (relative URLs are taken from the canvas host) and
// checks it may be opened: the canvas host, or http(s) that CheckURL allows.
func (r *Renderer) allowed(raw string) (string, error) {
	u, err := r.base.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", fmt.Errorf("url %q: %w", raw, err)
	}
	if r.isCanvas(u) {
		return u.String(), nil
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("url %q: only http(s) URLs may be opened", raw)
	}
	if r.cfg.CheckURL == nil {
		return "", fmt.Errorf("url %q: only the canvas host may be opened here", raw)
	}
	if err := r.cfg.CheckURL(u); err != nil {
		return "", fmt.Errorf("url %q is not allowed: %w", raw, err)
	}
	return u.String(), nil
}

// tab is one session's canvas in the renderer. Its mutex keeps one action
// at a time on the tab, as chromedp requires.
type tab struct {
	r       *Renderer
	session string

	mu     sync.Mutex
	ctx    context.Context // chromedp tab context; lives until Close
	cancel context.CancelFunc
}

var _ Surface = (*tab)(nil)

// do runs fn on the tab, opening it (and Chromium) when needed. The call's
// ctx bounds the work without ending the long-lived tab.
func (t *tab) do(ctx context.Context, fn func(ctx context.Context) error) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.r.mu.Lock()
	err := t.r.start()
	browser := t.r.browser
	t.r.mu.Unlock()
	if err != nil {
		return err
	}
	if t.ctx != nil && t.ctx.Err() != nil {
		t.ctx = nil // the tab or its browser went away; open it again
	}
	if t.ctx == nil {
		// A new tab opens on the canvas page, so eval and snapshot on a
		// fresh canvas see it rather than a blank page.
		tctx, cancel := chromedp.NewContext(browser)
		if err := t.r.guardTab(tctx); err != nil {
			cancel()
			return fmt.Errorf("canvas renderer: open tab: %w", err)
		}
		err := chromedp.Do(tctx,
			chromedp.EmulateViewport(int64(t.r.cfg.Width), int64(t.r.cfg.Height)),
			chromedp.Navigate(t.r.pageURL(t.session)))
		if err != nil {
			cancel()
			return fmt.Errorf("canvas renderer: open tab: %w", err)
		}
		t.ctx, t.cancel = tctx, cancel
	}
	cctx, cancel := context.WithCancel(t.ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	if d, ok := ctx.Deadline(); ok {
		var c2 context.CancelFunc
		cctx, c2 = context.WithDeadline(cctx, d)
		defer c2()
	}
	err = fn(cctx)
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// onCanvas reports whether the tab shows this session's canvas page.
func (t *tab) onCanvas(ctx context.Context) (bool, error) {
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		return false, err
	}
	u, err := url.Parse(loc)
	return err == nil && t.r.isCanvas(u) && (u.Path == t.r.base.Path || strings.HasSuffix(u.Path, "/index.html")) &&
		sessionOf(u) == t.session, nil
}

func sessionOf(u *url.URL) string {
	if s := u.Query().Get("session"); s != "" {
		return s
	}
	return DefaultSession
}

// showCanvas opens the session's canvas page unless it is already shown.
func (t *tab) showCanvas(ctx context.Context) error {
	if ok, err := t.onCanvas(ctx); err != nil || ok {
		return err
	}
	return chromedp.Do(ctx, chromedp.Navigate(t.r.pageURL(t.session)))
}

// Present shows the canvas page, or url when given.
func (t *tab) Present(ctx context.Context, rawURL string) error {
	if strings.TrimSpace(rawURL) == "" {
		return t.do(ctx, t.showCanvas)
	}
	return t.Navigate(ctx, rawURL)
}

// Hide blanks the tab; a headless canvas has no window to close.
func (t *tab) Hide(ctx context.Context) error {
	return t.do(ctx, func(ctx context.Context) error {
		return chromedp.Do(ctx, chromedp.Navigate("about:blank"))
	})
}

// Navigate opens rawURL if the canvas host or CheckURL allows it.
func (t *tab) Navigate(ctx context.Context, rawURL string) error {
	u, err := t.r.allowed(rawURL)
	if err != nil {
		return err
	}
	return t.do(ctx, func(ctx context.Context) error {
		return chromedp.Do(ctx, chromedp.Navigate(u))
	})
}

// Eval runs js in the page (awaiting a returned promise) and returns its
// value as JSON; undefined and unserialisable values come back as null.
func (t *tab) Eval(ctx context.Context, js string) (json.RawMessage, error) {
	var out json.RawMessage
	err := t.do(ctx, func(ctx context.Context) error {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](js, chromedp.EvalAwaitPromise))
		if err != nil {
			var ex *chromedp.ExceptionError
			if errors.As(err, &ex) {
				return fmt.Errorf("script threw: %s", exceptionText(ex.ExceptionDetails))
			}
			return err
		}
		out = v
		return nil
	})
	if err == nil && len(out) == 0 {
		out = json.RawMessage("null")
	}
	return out, err
}

func exceptionText(d *runtime.ExceptionDetails) string {
	if d == nil {
		return "unknown error"
	}
	if d.Exception != nil && d.Exception.Description != "" {
		return d.Exception.Description
	}
	return d.Text
}

// Snapshot returns a PNG of the viewport.
func (t *tab) Snapshot(ctx context.Context) ([]byte, error) {
	var png []byte
	err := t.do(ctx, func(ctx context.Context) error {
		var err error
		png, err = chromedp.Run(ctx, chromedp.CaptureScreenshot())
		return err
	})
	return png, err
}

// A2UIPush validates jsonl, adds it to the session's canvas and waits
// until the page has drawn it.
func (t *tab) A2UIPush(ctx context.Context, jsonl string) error {
	msgs, err := ParseJSONL(jsonl)
	if err != nil {
		return err
	}
	return t.do(ctx, func(ctx context.Context) error {
		if err := t.showCanvas(ctx); err != nil {
			return err
		}
		v, err := t.r.cfg.Host.Push(t.session, msgs)
		if err != nil {
			return err
		}
		return t.waitRendered(ctx, v)
	})
}

// A2UIReset clears the session's canvas and waits for the page to show it.
func (t *tab) A2UIReset(ctx context.Context) error {
	return t.do(ctx, func(ctx context.Context) error {
		v := t.r.cfg.Host.Reset(t.session)
		if ok, err := t.onCanvas(ctx); err != nil || !ok {
			return err // the page draws the empty canvas when next shown
		}
		return t.waitRendered(ctx, v)
	})
}

// waitRendered polls the page's version marker until it reaches v.
func (t *tab) waitRendered(ctx context.Context, v uint64) error {
	ctx, cancel := context.WithTimeout(ctx, renderWait)
	defer cancel()
	js := fmt.Sprintf(`(() => { const d = document.documentElement.dataset; return Number(d.a2uiVersion || 0) >= %d ? (d.a2uiError || "ok") : ""; })()`, v)
	for {
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		switch {
		case err != nil:
			return fmt.Errorf("wait for the canvas to render: %w", err)
		case got == "ok":
			return nil
		case got != "":
			return fmt.Errorf("the canvas page failed to render: %s", got)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the canvas page did not render version %d within %s", v, renderWait)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
