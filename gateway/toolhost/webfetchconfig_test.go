package toolhost

import (
	"log/slog"
	"net/netip"
	"reflect"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/tools/netguard"
)

// TestWebFetchConfig: tools.web.fetch keys reach web_fetch with
// OpenClaw's defaults and meanings, and draw no "not implemented" warning.
func TestWebFetchConfig(t *testing.T) {
	all := []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0"), netip.MustParsePrefix("::/0")}
	cases := []struct {
		name         string
		src          string
		maxChars     int
		maxRedirects int
		headers      map[string]string
		policy       netguard.Policy
	}{
		{name: "defaults", src: `{}`, maxChars: 20000, maxRedirects: 3},
		{name: "maxChars and maxRedirects", src: `{tools: {web: {fetch: {maxChars: 5000, maxRedirects: 7}}}}`, maxChars: 5000, maxRedirects: 7},
		{name: "maxRedirects 0 follows none", src: `{tools: {web: {fetch: {maxRedirects: 0}}}}`, maxChars: 20000, maxRedirects: -1},
		{name: "headers", src: `{tools: {web: {fetch: {headers: {"X-Routing-Target": "staging"}}}}}`, maxChars: 20000, maxRedirects: 3,
			headers: map[string]string{"X-Routing-Target": "staging"}},
		{name: "allowed hostnames and fake-IP ranges", maxChars: 20000, maxRedirects: 3,
			src:    `{tools: {web: {fetch: {ssrfPolicy: {allowedHostnames: ["intranet.example"], blockedHostnames: ["*.ads.example"], allowRfc2544BenchmarkRange: true, allowIpv6UniqueLocalRange: true}}}}}`,
			policy: netguard.Policy{AllowHosts: []string{"intranet.example"}, BlockHosts: []string{"*.ads.example"}, AllowFakeIP: true, Allow: []netip.Prefix{netip.MustParsePrefix("fc00::/7")}}},
		{name: "private network opt-in", maxChars: 20000, maxRedirects: 3,
			src:    `{tools: {web: {fetch: {ssrfPolicy: {dangerouslyAllowPrivateNetwork: true}}}}}`,
			policy: netguard.Policy{Allow: all}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			snap := parseExecSnapshot(t, tc.src)
			for _, w := range snap.Warnings {
				if strings.Contains(w.Path, "tools.web") {
					t.Errorf("warning %s: %s", w.Path, w.Message)
				}
			}
			got := fetchConfig(snap.Config.Tools.Web.Fetch, slog.New(slog.DiscardHandler))
			if got.DefaultMaxChars != tc.maxChars || got.MaxRedirects != tc.maxRedirects || got.MaxCharsCap != 20000 {
				t.Errorf("maxChars %d, maxRedirects %d, cap %d; want %d, %d, 20000", got.DefaultMaxChars, got.MaxRedirects, got.MaxCharsCap, tc.maxChars, tc.maxRedirects)
			}
			if len(got.Headers) > 0 || len(tc.headers) > 0 {
				if !reflect.DeepEqual(got.Headers, tc.headers) {
					t.Errorf("headers %v, want %v", got.Headers, tc.headers)
				}
			}
			if !reflect.DeepEqual(got.Network, tc.policy) {
				t.Errorf("policy %+v, want %+v", got.Network, tc.policy)
			}
		})
	}
}

func parseWebSnapshot(t *testing.T, src string, getenv func(string) string) *config.Snapshot {
	t.Helper()
	snap, err := config.Parse("openclaw.json", []byte(src), config.LoadOptions{Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}
