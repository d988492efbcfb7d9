package doctor

import (
	"slices"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// scrubber replaces every secret of the install by a marker: the checks
// name paths, not values, but text from elsewhere (a channel's last
// error, which may quote a request URL with a bot token in it, a probe's
// error) is passed on, and must not carry a secret out either.
type scrubber struct{ r *strings.Replacer }

// newScrubber collects the install's secrets: every credential-like value
// of the resolved config (${VAR} substituted) and the gateway's secrets
// from the environment.
func newScrubber(in *Install) scrubber {
	var vals []string
	walkTree(in.Tree(), "", func(path, key string, v any) {
		s, ok := v.(string)
		parent := path[:max(0, len(path)-len(key)-1)]
		if ok && len(strings.TrimSpace(s)) >= 4 && config.IsSecretAt(parent, key) {
			vals = append(vals, s)
		}
	})
	if c := in.Config(); c != nil {
		vals = append(vals, c.Gateway.Auth.Token.Value, c.Gateway.Auth.Password.Value)
	}
	for _, k := range []string{"OPENCLAW_GATEWAY_TOKEN", "OPENCLAW_GATEWAY_PASSWORD"} {
		vals = append(vals, in.Getenv(k))
	}
	// Longest first, so a secret that contains another goes whole.
	slices.SortFunc(vals, func(a, b string) int { return len(b) - len(a) })
	var pairs []string
	for _, v := range slices.Compact(vals) {
		if len(v) >= 4 {
			pairs = append(pairs, v, "[redacted]")
		}
	}
	return scrubber{r: strings.NewReplacer(pairs...)}
}

func (s scrubber) str(v string) string { return s.r.Replace(v) }

func (s scrubber) check(c Check) Check {
	c.Detail, c.FixHint = s.str(c.Detail), s.str(c.FixHint)
	if c.Fix != nil {
		f := *c.Fix
		f.Detail, f.Error = s.str(f.Detail), s.str(f.Error)
		c.Fix = &f
	}
	return c
}

func (s scrubber) finding(f AuditFinding) AuditFinding {
	f.Title, f.Detail, f.Remediation = s.str(f.Title), s.str(f.Detail), s.str(f.Remediation)
	return f
}
