package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDoctorAndSecurityAudit runs `openclaw doctor --json` and
// `openclaw security audit --deep --json` against a running gateway: the
// doctor reaches it, finds its lock and a sound database; the deep audit
// sees it refuse a connect without credentials. Neither prints the token.
func TestDoctorAndSecurityAudit(t *testing.T) {
	needOurBin(t)
	needOurGateway(t)
	t.Parallel()
	g := startGateway(t, gatewayOpts{})
	c := ourClient(t, g)

	r := c.run(t, "doctor", "--json")
	if r.Code != 0 {
		t.Fatalf("doctor: %s", r)
	}
	var rep struct {
		SchemaVersion int `json:"schemaVersion"`
		Checks        []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
			Detail string `json:"detail"`
		} `json:"checks"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil || rep.SchemaVersion != 1 {
		t.Fatalf("doctor --json: %v\n%s", err, r)
	}
	status := map[string]string{}
	for _, c := range rep.Checks {
		status[c.ID] = c.Status + ": " + c.Detail
	}
	for id, want := range map[string]string{
		"core/doctor/gateway-health":  "ok: the gateway answers",
		"core/doctor/state-lock":      "ok: held by a live gateway",
		"core/doctor/store-integrity": "ok: integrity_check ok",
		"core/doctor/channels":        "ok: no channels configured",
		"core/doctor/gateway-config":  "ok:",
	} {
		if !strings.HasPrefix(status[id], want) {
			t.Errorf("%s = %q, want %q...", id, status[id], want)
		}
	}

	r = c.run(t, "security", "audit", "--deep", "--json")
	if r.Code != 0 {
		t.Fatalf("security audit: %s", r)
	}
	var audit struct {
		TS      int64 `json:"ts"`
		Summary struct {
			Critical int `json:"critical"`
		} `json:"summary"`
		Findings []struct {
			CheckID  string `json:"checkId"`
			Severity string `json:"severity"`
		} `json:"findings"`
		Deep struct {
			Gateway struct {
				OK               bool  `json:"ok"`
				AnonymousRefused *bool `json:"anonymousRefused"`
			} `json:"gateway"`
		} `json:"deep"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &audit); err != nil || audit.TS == 0 {
		t.Fatalf("audit --json: %v\n%s", err, r)
	}
	if !audit.Deep.Gateway.OK || audit.Deep.Gateway.AnonymousRefused == nil || !*audit.Deep.Gateway.AnonymousRefused {
		t.Fatalf("deep probe: %+v\n%s", audit.Deep, r)
	}
	for _, f := range audit.Findings {
		if f.Severity == "critical" {
			t.Errorf("a fresh loopback gateway has a critical finding: %s", f.CheckID)
		}
	}
	for _, out := range []string{r.Stdout, r.Stderr} {
		if strings.Contains(out, g.Token) {
			t.Fatal("the audit printed the gateway token")
		}
	}
	if out := c.run(t, "doctor"); out.Code != 0 || strings.Contains(out.Stdout+out.Stderr, g.Token) || !strings.Contains(out.Stdout, "Doctor complete") {
		t.Fatalf("doctor: %s", out)
	}
}
