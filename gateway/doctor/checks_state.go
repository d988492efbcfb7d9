package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/gateway/statelock"
	"github.com/openclaw-go/openclaw/gateway/store"
	"github.com/openclaw-go/openclaw/tools/execapprovals"
)

// checkGatewayHealth: the gateway answers its health method.
func checkGatewayHealth(ctx context.Context, r *run) Check {
	c := Check{ID: "core/doctor/gateway-health", Title: "Gateway"}
	if r.Gateway == nil {
		c.Status, c.Detail = StatusSkip, "not asked to reach the gateway"
		return c
	}
	start := time.Now()
	raw, err := r.Gateway.Call(ctx, "health", nil)
	if err != nil {
		c.Status = StatusWarn
		c.Detail = "health check failed: " + err.Error()
		if _, held := statelock.Read(r.in.Paths.StateDir); !held {
			c.Detail = "the gateway is not running (" + err.Error() + ")"
			c.FixHint = "Start it with `openclaw gateway`."
		} else {
			c.FixHint = "It runs but does not answer: check --url/--token, or its log with `openclaw logs`."
		}
		return c
	}
	r.gatewayUp = true
	var h struct {
		OK *bool `json:"ok"`
	}
	json.Unmarshal(raw, &h)
	if h.OK != nil && !*h.OK {
		c.Status, c.Detail = StatusWarn, "the gateway answers but reports itself unhealthy; `openclaw health` shows why"
		return c
	}
	c.Status, c.Detail = StatusOK, fmt.Sprintf("the gateway answers (health in %d ms)", time.Since(start).Milliseconds())
	return c
}

// checkStateLock: a running gateway holds the state lock, and no stale
// claim is left.
func checkStateLock(_ context.Context, r *run) Check {
	path := statelock.Path(r.in.Paths.StateDir)
	c := Check{ID: "core/doctor/state-lock", Title: "State lock", Path: path}
	owner, held := statelock.Read(r.in.Paths.StateDir)
	switch {
	case held:
		c.Status, c.Detail = StatusOK, fmt.Sprintf("held by a live gateway (%s)", owner)
	case r.gatewayUp:
		c.Status = StatusWarn
		c.Detail = "a gateway answers but none holds this state directory's lock: it runs on another state directory (OPENCLAW_STATE_DIR, --profile, --dev)"
		c.FixHint = "Run the doctor with the same profile as the gateway."
	default:
		c.Status, c.Detail = StatusOK, "no gateway holds the state directory"
		if _, err := os.Stat(path); err == nil {
			c.Detail += "; the lock file left by a gateway that ended is free and is taken over at the next start"
		}
	}
	return c
}

// storeCheckTimeout bounds the integrity scan, as OpenClaw bounds its
// own: a timeout names the database, it does not prove corruption.
const storeCheckTimeout = 30 * time.Second

// checkStore: PRAGMA integrity_check on the state database, opened read
// only, which is safe while the gateway writes to it (WAL readers do not
// block the writer).
func checkStore(ctx context.Context, r *run) Check {
	path := r.in.DBPath()
	c := Check{ID: "core/doctor/store-integrity", Title: "State database", Path: path}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		c.Status, c.Detail = StatusSkip, "no database yet: the gateway creates it at first start"
		return c
	}
	ctx, cancel := context.WithTimeout(ctx, storeCheckTimeout)
	defer cancel()
	problems, err := store.IntegrityCheck(ctx, path)
	for i, p := range problems {
		problems[i] = "- " + p
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		c.Status = StatusWarn
		c.Detail = fmt.Sprintf("the integrity scan of %s did not finish in %s", path, storeCheckTimeout)
		c.FixHint = "Stop the gateway and run the doctor again; a timeout alone does not mean corruption."
	case err != nil:
		c.Status = StatusFail
		c.Detail = fmt.Sprintf("%s cannot be read as a database: %v", path, err)
		c.FixHint = "Stop the gateway and restore the database from a backup."
	case len(problems) > 0:
		c.Status = StatusFail
		c.Detail = joinLines(append([]string{path + " is damaged (PRAGMA integrity_check):"}, problems...))
		c.FixHint = "Stop the gateway and restore the database from a backup; `sqlite3 " + path + " .recover` may save what is left."
	default:
		c.Status, c.Detail = StatusOK, "integrity_check ok"
	}
	return c
}

// allowAllPatterns are allowlist patterns that match every executable.
var allowAllPatterns = map[string]bool{"*": true, "**": true, "/*": true, "/**": true, "**/*": true}

// checkExecApprovals: the exec approvals file parses and validates, and
// its allowlists do not allow every command unless the config runs exec
// in full mode anyway.
func checkExecApprovals(_ context.Context, r *run) Check {
	path := r.in.ExecApprovalsPath()
	c := Check{ID: "core/doctor/exec-approvals", Title: "Exec approvals", Path: path}
	snap, err := execapprovals.New(path).Get()
	if err != nil {
		c.Status, c.Detail = StatusFail, err.Error()
		c.FixHint = "Fix the JSON, or remove the file to go back to the defaults (allowlist, ask on a miss)."
		return c
	}
	if !snap.Exists {
		c.Status, c.Detail = StatusOK, "no exec approvals file: the defaults apply (allowlist, ask on a miss)"
		return c
	}
	if err := snap.File.Validate(); err != nil {
		c.Status, c.Detail = StatusFail, strings.ReplaceAll(err.Error(), "\n", "; ")
		return c
	}
	full := false
	if cfg := r.in.Config(); cfg != nil {
		sec, _ := cfg.Tools.Exec.Policy()
		full = sec == "full"
	}
	var wild []string
	for id, a := range snap.File.Agents {
		for i, e := range a.Allowlist {
			if allowAllPatterns[strings.TrimSpace(e.Pattern)] {
				wild = append(wild, fmt.Sprintf("- agents.%s.allowlist[%d] is %q, which allows every command", id, i, e.Pattern))
			}
		}
	}
	if len(wild) > 0 && !full {
		c.Status = StatusWarn
		c.Detail = joinLines(wild)
		c.FixHint = "Replace it with the commands the agent needs; to run everything unasked, say so in the config (tools.exec.mode \"full\")."
		return c
	}
	agents := len(snap.File.Agents)
	c.Status, c.Detail = StatusOK, fmt.Sprintf("valid (%d agent entries)", agents)
	return c
}
