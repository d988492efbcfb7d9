package doctor

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"
)

// Status is a check's outcome.
type Status string

// The outcomes: fail is something that stops the gateway or loses data,
// warn something to look at, skip a check that could not run here.
const (
	StatusOK   Status = "ok"
	StatusWarn Status = "warn"
	StatusFail Status = "fail"
	StatusSkip Status = "skip"
)

// Check is one check's result.
type Check struct {
	// ID is stable, in OpenClaw's "core/doctor/<name>" form.
	ID string `json:"id"`
	// Title heads the check's section in the text output.
	Title  string `json:"title"`
	Status Status `json:"status"`
	// Detail says what was found, one or more lines.
	Detail string `json:"detail"`
	// Path is the file or config key concerned, when there is one.
	Path string `json:"path,omitempty"`
	// FixHint says what to do about a warn or fail.
	FixHint string `json:"fixHint,omitempty"`
	// Fix is what --fix did for this check; nil when it had nothing to do
	// or was not asked.
	Fix *Fix `json:"fix,omitempty"`
}

// Fix is the repair a check made.
type Fix struct {
	Applied bool `json:"applied"`
	// Detail lists the changes, one a line.
	Detail string `json:"detail,omitempty"`
	// Error says why the repair failed.
	Error string `json:"error,omitempty"`
}

// Finding is a warn or fail check in the shape of OpenClaw's doctor
// --json findings.
type Finding struct {
	CheckID  string `json:"checkId"`
	Severity string `json:"severity"` // "warning" or "error"
	Message  string `json:"message"`
	Path     string `json:"path,omitempty"`
	FixHint  string `json:"fixHint,omitempty"`
}

// Report is one doctor run: OpenClaw's --json envelope (schemaVersion,
// ok, checksRun, checksSkipped, findings) and every check's result.
type Report struct {
	SchemaVersion int       `json:"schemaVersion"`
	OK            bool      `json:"ok"`
	ChecksRun     int       `json:"checksRun"`
	ChecksSkipped int       `json:"checksSkipped"`
	Findings      []Finding `json:"findings"`
	Checks        []Check   `json:"checks"`
	// FixFailed is set when --fix tried a repair that failed.
	FixFailed bool `json:"fixFailed,omitempty"`
}

// Gateway is the running gateway as the doctor asks it; the CLI
// implements it with its usual connection (URL, token, timeout).
type Gateway interface {
	// Call runs one read-only method and returns its raw answer.
	Call(ctx context.Context, method string, params any) (json.RawMessage, error)
}

// Options are one run's inputs. Install is required.
type Options struct {
	Install *Install
	// Fix applies the safe repairs.
	Fix bool
	// Gateway reaches the running gateway; nil skips the checks that need
	// it.
	Gateway Gateway
	// HTTP probes the model providers; nil means a client with ProbeTimeout.
	HTTP *http.Client
	// ProbeTimeout bounds each provider probe. Default 5s.
	ProbeTimeout time.Duration
	// FindChromium locates the browser binary; nil uses the browser tool's
	// own search.
	FindChromium func() (string, error)
	// LookPath finds the sandbox backends' programs (bwrap, ssh, docker,
	// podman); nil searches PATH.
	LookPath func(string) (string, error)
	// DiskFree returns the bytes free to this user on path's file system;
	// nil asks the OS.
	DiskFree func(path string) (uint64, error)
	// Version and Commit are the CLI's, recorded in wizard.lastRun* when
	// a repair rewrites the config, as OpenClaw's doctor records its runs.
	Version, Commit string
	// Now is the clock (tests). Default time.Now.
	Now    func() time.Time
	Logger *slog.Logger
}

// now is the run's clock.
func (r *run) now() time.Time {
	if r.Now == nil {
		return time.Now()
	}
	return r.Now()
}

// run is one doctor run's shared state.
type run struct {
	Options
	in *Install
	// gatewayUp is set once the health check has reached the gateway.
	gatewayUp bool
}

// checkFunc is one check.
type checkFunc func(ctx context.Context, r *run) Check

// checks run in this order: the config first (a fix may rewrite it, and
// the checks after it read the rewritten one), the gateway's health
// before the checks that use its answers.
var checks = []checkFunc{
	checkConfig,
	checkLegacyConfig,
	checkFileModes,
	checkGatewayHealth,
	checkStateLock,
	checkStore,
	checkModels,
	checkChannels,
	checkDiskSpace,
	checkExecApprovals,
	checkBrowser,
	checkSandbox,
	checkSecurity,
}

// Run runs every check and, with Fix, the repairs.
func Run(ctx context.Context, o Options) *Report {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.ProbeTimeout <= 0 {
		o.ProbeTimeout = 5 * time.Second
	}
	if o.HTTP == nil {
		o.HTTP = defaultProbeClient(o.ProbeTimeout)
	}
	if o.DiskFree == nil {
		o.DiskFree = diskFree
	}
	r := &run{Options: o, in: o.Install}
	rep := &Report{SchemaVersion: 1, OK: true, Findings: []Finding{}}
	for _, c := range checks {
		res := c(ctx, r)
		// After the check: a fix may have rewritten the config.
		res = newScrubber(r.in).check(res)
		rep.Checks = append(rep.Checks, res)
		if res.Status == StatusSkip {
			rep.ChecksSkipped++
			continue
		}
		rep.ChecksRun++
		if res.Fix != nil && res.Fix.Error != "" {
			rep.FixFailed = true
		}
		switch res.Status {
		case StatusWarn, StatusFail:
			// As OpenClaw's report: ok only when there is nothing to say.
			rep.OK = false
			sev := "warning"
			if res.Status == StatusFail {
				sev = "error"
			}
			rep.Findings = append(rep.Findings, Finding{CheckID: res.ID, Severity: sev, Message: firstLine(res.Detail), Path: res.Path, FixHint: res.FixHint})
		}
	}
	return rep
}

func firstLine(s string) string {
	for i, c := range s {
		if c == '\n' {
			return s[:i]
		}
	}
	return s
}

// defaultProbeClient follows no redirect: the first answer proves the
// server is there.
func defaultProbeClient(timeout time.Duration) *http.Client {
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	return &http.Client{Timeout: timeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}
