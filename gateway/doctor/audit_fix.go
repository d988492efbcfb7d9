package doctor

import (
	"context"
	"fmt"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// auditDeep probes the running gateway: it answers with the CLI's
// credentials, and refuses a connect that carries none.
func auditDeep(ctx context.Context, a *audit, p Prober) (*DeepResult, []AuditFinding) {
	res := &DeepResult{}
	if p == nil {
		return res, nil
	}
	res.Gateway.Attempted = true
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var out []AuditFinding
	if _, err := p.Call(ctx, "health", nil); err != nil {
		res.Gateway.Error = err.Error()
		out = append(out, AuditFinding{CheckID: "gateway.probe_failed", Severity: SeverityWarn,
			Title: "Gateway probe failed (deep)", Detail: err.Error(),
			Remediation: "Run `openclaw status` to debug connectivity and auth, then run `openclaw security audit --deep` again."})
		return res, out
	}
	res.Gateway.OK = true
	err := p.ConnectAnonymous(ctx)
	refused := err != nil
	res.Gateway.AnonymousRefused = &refused
	if !refused && a.authMode() != "none" {
		out = append(out, AuditFinding{CheckID: "gateway.probe_unauthenticated_accepted", Severity: SeverityCritical,
			Title:       "Gateway accepted a connect without credentials (deep)",
			Detail:      "A connect with no token, password or device identity was let in although gateway.auth.mode is " + orDefault(a.authMode(), "token") + ".",
			Remediation: "Check gateway.auth and that the CLI reached the gateway you meant (--url); report it if the config is as intended."})
	}
	return res, out
}

// AuditFix is what `security audit --fix` changed, in OpenClaw's shape.
type AuditFix struct {
	OK            bool        `json:"ok"`
	StateDir      string      `json:"stateDir"`
	ConfigPath    string      `json:"configPath"`
	ConfigWritten bool        `json:"configWritten"`
	Changes       []string    `json:"changes"`
	Actions       []FixAction `json:"actions"`
	Errors        []string    `json:"errors"`
}

// FixSecurity applies the audit's safe fixes, as OpenClaw's --fix does:
// open group policies become allowlists, and the state directory, config,
// its includes and the private files lose their group and other bits. It
// never rotates a secret, changes auth, bind or tools, or loosens
// anything. The install is reloaded afterwards.
func FixSecurity(in *Install) *AuditFix {
	res := &AuditFix{StateDir: in.Paths.StateDir, ConfigPath: in.Paths.ConfigPath, Changes: []string{}, Actions: []FixAction{}, Errors: []string{}}
	switch le := in.loadError(); {
	case in.Snap == nil:
		res.Errors = append(res.Errors, fmt.Sprintf("read config: %v", in.LoadErr))
	case le != nil:
		for _, is := range le.Issues {
			res.Errors = append(res.Errors, is.String())
		}
	case in.Snap.Exists:
		text := in.Snap.Raw
		for _, s := range channelScopes(in.Tree()) {
			v, _ := config.Lookup(in.Tree(), append(splitPath(s.path), "groupPolicy")...)
			if v != "open" {
				continue // open only by inheritance: fixed where it is written
			}
			next, err := config.Set(text, s.path+".groupPolicy", "allowlist")
			if err != nil {
				res.Errors = append(res.Errors, fmt.Sprintf("%s.groupPolicy: %v", s.path, err))
				continue
			}
			text = next
			res.Changes = append(res.Changes, s.path+".groupPolicy=open -> allowlist")
		}
		if len(res.Changes) > 0 {
			if _, err := writeMigrated(in.Paths.ConfigPath, in.Snap.Raw, text); err != nil {
				res.Errors = append(res.Errors, err.Error())
				res.Changes = []string{}
			} else {
				res.ConfigWritten = true
			}
		}
	}
	if acts := in.tightenAll(); acts != nil {
		res.Actions = acts
	}
	for _, a := range res.Actions {
		if a.Error != "" {
			res.Errors = append(res.Errors, a.String())
		}
	}
	res.OK = len(res.Errors) == 0
	*in = *Load(in.Paths, in.Getenv)
	return res
}

// splitPath splits a path channelScopes wrote back into keys.
func splitPath(p string) []string {
	keys, err := config.ParsePath(p)
	if err != nil {
		return nil
	}
	return keys
}
