package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/openclaw-go/openclaw/tools/browser"
)

// defaultBaseURLs are the endpoints the providers use when baseUrl is
// not set, by wire protocol.
var defaultBaseURLs = map[string]string{
	"":                     "https://api.openai.com/v1",
	"openai-completions":   "https://api.openai.com/v1",
	"openai-responses":     "https://api.openai.com/v1",
	"anthropic-messages":   "https://api.anthropic.com",
	"ollama":               "http://127.0.0.1:11434",
	"google-generative-ai": "https://generativelanguage.googleapis.com/v1beta",
}

// displayURL is a URL without user info, query or fragment, which may
// hold credentials.
func displayURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(unparsable URL)"
	}
	u.User, u.RawQuery, u.Fragment, u.RawFragment = nil, "", "", ""
	return u.String()
}

// checkModels: each configured provider's base URL answers. The probe is
// a plain GET without the API key (any HTTP answer, 401 included, means
// the server is there), so no key leaves the machine and none is printed.
func checkModels(ctx context.Context, r *run) Check {
	c := Check{ID: "core/doctor/model-providers", Title: "Model providers"}
	cfg := r.in.Config()
	if cfg == nil {
		c.Status, c.Detail = StatusSkip, "the config did not load"
		return c
	}
	names := make([]string, 0, len(cfg.Models.Providers))
	for n := range cfg.Models.Providers {
		names = append(names, n)
	}
	slices.Sort(names)
	if len(names) == 0 {
		c.Status, c.Detail = StatusSkip, "no models.providers configured"
		return c
	}
	lines := make([]string, len(names))
	bad := make([]bool, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		p := cfg.Models.Providers[name]
		base := p.BaseURL
		if base == "" {
			base = defaultBaseURLs[p.API]
		}
		if base == "" {
			lines[i] = fmt.Sprintf("- %s: no baseUrl to probe (api %s)", name, p.API)
			continue
		}
		wg.Go(func() {
			err := probeURL(ctx, r.HTTP, base)
			if err != nil {
				bad[i] = true
				lines[i] = fmt.Sprintf("- %s: %s does not answer: %s", name, displayURL(base), err)
				return
			}
			lines[i] = fmt.Sprintf("- %s: %s answers", name, displayURL(base))
		})
	}
	wg.Wait()
	for _, is := range r.in.Snap.UnresolvedSecrets {
		if strings.HasPrefix(is.Path, "models.providers.") {
			lines = append(lines, "- "+is.Path+": "+is.Message)
			bad = append(bad, true)
		}
	}
	c.Detail = joinLines(lines)
	c.Status = StatusOK
	if slices.Contains(bad, true) {
		c.Status = StatusWarn
		c.FixHint = "Check the provider's baseUrl, the network, and that its key's variable is set."
	}
	return c
}

// probeURL reports whether anything answers HTTP at u.
func probeURL(ctx context.Context, client *http.Client, u string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("bad URL")
	}
	resp, err := client.Do(req)
	if err != nil {
		// The error names the URL as given; say only what went wrong.
		if ue, ok := err.(*url.Error); ok {
			return ue.Err
		}
		return err
	}
	resp.Body.Close()
	return nil
}

// checkChannels: the running gateway's channel accounts report no error.
func checkChannels(ctx context.Context, r *run) Check {
	c := Check{ID: "core/doctor/channels", Title: "Channels"}
	if !r.gatewayUp {
		c.Status, c.Detail = StatusSkip, "the gateway is not running"
		return c
	}
	raw, err := r.Gateway.Call(ctx, "channels.status", map[string]any{})
	if err != nil {
		c.Status, c.Detail = StatusWarn, "channels.status failed: "+err.Error()
		return c
	}
	var st struct {
		ChannelAccounts map[string][]struct {
			AccountID string  `json:"accountId"`
			LastError *string `json:"lastError"`
			Running   bool    `json:"running"`
			Enabled   *bool   `json:"enabled"`
		} `json:"channelAccounts"`
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		c.Status, c.Detail = StatusWarn, "channels.status answered something unexpected"
		return c
	}
	var errs []string
	count := 0
	for _, ch := range slices.Sorted(mapsKeys(st.ChannelAccounts)) {
		for _, a := range st.ChannelAccounts[ch] {
			count++
			if a.LastError != nil && *a.LastError != "" {
				errs = append(errs, fmt.Sprintf("- %s/%s: %s", ch, a.AccountID, *a.LastError))
			}
		}
	}
	switch {
	case len(errs) > 0:
		c.Status, c.Detail = StatusWarn, joinLines(errs)
		c.FixHint = "`openclaw channels status --probe` shows each account; `openclaw logs` the errors around it."
	case count == 0:
		c.Status, c.Detail = StatusOK, "no channels configured"
	default:
		c.Status, c.Detail = StatusOK, fmt.Sprintf("%d channel accounts, none with an error", count)
	}
	return c
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// checkBrowser: a Chromium the browser tool can start exists when the
// tool is enabled.
func checkBrowser(_ context.Context, r *run) Check {
	c := Check{ID: "core/doctor/browser", Title: "Browser"}
	cfg := r.in.Config()
	if cfg == nil {
		c.Status, c.Detail = StatusSkip, "the config did not load"
		return c
	}
	if e := cfg.Browser.Enabled; e != nil && !*e {
		c.Status, c.Detail = StatusSkip, "browser.enabled is false"
		return c
	}
	if p := cfg.Browser.ExecutablePath; p != "" {
		c.Path = "browser.executablePath"
		fi, err := os.Stat(p)
		if err != nil || fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
			c.Status, c.Detail = StatusWarn, fmt.Sprintf("browser.executablePath %s is not an executable file", p)
			c.FixHint = "Point browser.executablePath at Chromium or Chrome, or set browser.enabled false."
			return c
		}
		c.Status, c.Detail = StatusOK, "Chromium at "+p
		return c
	}
	find := r.FindChromium
	if find == nil {
		find = browser.FindChromium
	}
	p, err := find()
	if err != nil {
		c.Status = StatusWarn
		c.Detail = "the browser tool is enabled but no Chromium or Chrome is on PATH"
		c.FixHint = "Install chromium, set browser.executablePath, or set browser.enabled false."
		return c
	}
	c.Status, c.Detail = StatusOK, "Chromium at "+p
	return c
}

// checkSecurity: the security audit's critical findings, which the
// doctor names and `openclaw security audit` explains.
func checkSecurity(ctx context.Context, r *run) Check {
	c := Check{ID: "core/doctor/security", Title: "Security"}
	rep := Audit(ctx, AuditOptions{Install: r.in, Now: r.Now})
	var crit []string
	for _, f := range rep.Findings {
		if f.Severity == SeverityCritical {
			crit = append(crit, "- "+f.CheckID+": "+f.Title)
		}
	}
	if len(crit) > 0 {
		c.Status = StatusWarn
		c.Detail = joinLines(append([]string{fmt.Sprintf("%d critical security findings:", len(crit))}, crit...))
		c.FixHint = "Run: openclaw security audit --deep"
		return c
	}
	c.Status, c.Detail = StatusOK, fmt.Sprintf("no critical security findings (%d warn, %d info); details: openclaw security audit", rep.Summary.Warn, rep.Summary.Info)
	return c
}
