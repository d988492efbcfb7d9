package webchat

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromiumPath is Debian's Chromium, which the browser tests drive.
const chromiumPath = "/usr/bin/chromium"

// TestMarkdownInBrowser runs the renderer's attack suite
// (testdata/markdown_attacks.js) in headless Chromium on the page as the
// handler serves it, under its Content-Security-Policy: hostile Markdown
// and HTML (script tags, event handlers, javascript: and data: URLs,
// images, nested tricks, random mixtures of them) must render inert, a
// model's Markdown must keep its shape, and no input may take long.
func TestMarkdownInBrowser(t *testing.T) {
	if os.Getenv("OPENCLAW_E2E_SKIP_BROWSER") == "1" {
		t.Skip("browser tests skipped (OPENCLAW_E2E_SKIP_BROWSER=1)")
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("no Chromium at %s: %v", chromiumPath, err)
	}
	suite, err := os.ReadFile("testdata/markdown_attacks.js")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(New())
	t.Cleanup(srv.Close)

	profile := t.TempDir()
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromiumPath), chromedp.UserDataDir(profile), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-extensions", true), chromedp.Flag("disable-dev-shm-usage", true))
	t.Cleanup(cancelAlloc)
	tabCtx, cancelTab := chromedp.NewContext(allocCtx)
	t.Cleanup(cancelTab)
	ctx, cancel := context.WithTimeout(tabCtx, 2*time.Minute)
	t.Cleanup(cancel)

	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+Prefix)); err != nil {
		t.Fatalf("open the page: %v", err)
	}
	var report struct {
		Failures     []string `json:"failures"`
		FailureCount int      `json:"failureCount"`
		Slow         []string `json:"slow"`
		Fuzzed       int      `json:"fuzzed"`
		Pwned        any      `json:"pwned"`
	}
	expr := strings.TrimSpace(string(suite)) + `(new URL('markdown.js', location.href).href)`
	got, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]any](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("run the suite: %v", err)
	}
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &report); err != nil {
		t.Fatalf("the suite's report %s: %v", b, err)
	}
	for _, f := range report.Failures {
		t.Error(f)
	}
	if report.FailureCount > len(report.Failures) {
		t.Errorf("… and %d more", report.FailureCount-len(report.Failures))
	}
	for _, s := range report.Slow {
		t.Errorf("slow: %s", s)
	}
	if report.Fuzzed < 3000 {
		t.Errorf("only %d random inputs ran", report.Fuzzed)
	}
	if report.Pwned != nil {
		t.Errorf("hostile input ran script: window.__pwned = %v", report.Pwned)
	}
}
