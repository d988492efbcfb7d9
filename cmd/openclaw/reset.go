package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/store"
)

func init() { registerCommand("", newResetCmd) }

// resetScopes are OpenClaw's, in the order the prompt offers them.
var resetScopes = []string{"config", "config+creds+sessions", "full"}

// sessionTables hold the gateway's sessions and transcripts (the
// sessions component's tables), children first.
var sessionTables = []string{"transcript_messages", "accepted_runs", "retired_sessions", "sessions"}

func newResetCmd(a *app) *cobra.Command {
	var scope string
	var yes, nonInteractive, dryRun bool
	c := &cobra.Command{
		Use:   "reset",
		Short: "Reset local config/state (keeps the CLI installed)",
		Long: "Removes local config and state. --scope config removes the config file;\n" +
			"config+creds+sessions also the credentials and every session; full the whole state\n" +
			"directory. Only paths inside the state directory are removed (plus the config file\n" +
			"OPENCLAW_CONFIG_PATH names); links in it are removed, never followed.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			a.ran = true
			if nonInteractive && !yes {
				return errors.New("Non-interactive mode requires --yes.")
			}
			if nonInteractive && scope == "" {
				return errors.New("Non-interactive mode requires --scope.")
			}
			if scope == "" {
				s, err := a.promptScope()
				if err != nil {
					return err
				}
				scope = s
			}
			if !validScope(scope) {
				return errors.New(`Invalid --scope. Expected "config", "config+creds+sessions", or "full".`)
			}
			paths, err := cliPaths(a.dev)
			if err != nil {
				return err
			}
			return a.reset(cmd.Context(), paths, scope, yes, dryRun)
		},
	}
	f := c.Flags()
	f.StringVar(&scope, "scope", "", "config|config+creds+sessions|full (default: interactive prompt)")
	f.BoolVar(&yes, "yes", false, "Skip confirmation prompts")
	f.BoolVar(&nonInteractive, "non-interactive", false, "Disable prompts (requires --scope + --yes)")
	f.BoolVar(&dryRun, "dry-run", false, "Print actions without removing files")
	return c
}

func validScope(s string) bool {
	for _, v := range resetScopes {
		if s == v {
			return true
		}
	}
	return false
}

// promptScope asks for the scope on stdin.
func (a *app) promptScope() (string, error) {
	fmt.Fprintf(a.stderr, "Reset scope: 1) config  2) config+creds+sessions  3) full\nChoose [1-3]: ")
	answer, err := readAnswer(a.stdin)
	if err != nil {
		fmt.Fprintln(a.stderr)
		return "", usageErrorf("no scope chosen (pass --scope)")
	}
	for i, s := range resetScopes {
		if answer == fmt.Sprint(i+1) || answer == s {
			return s, nil
		}
	}
	return "", errors.New(`Invalid --scope. Expected "config", "config+creds+sessions", or "full".`)
}

// readAnswer reads one line of stdin a byte at a time (a later prompt
// reads the next line), trimmed; io.EOF when stdin ends before any.
func readAnswer(r io.Reader) (string, error) {
	var b []byte
	one := make([]byte, 1)
	for {
		n, err := r.Read(one)
		if n == 1 {
			if one[0] == '\n' {
				return strings.TrimSpace(string(b)), nil
			}
			b = append(b, one[0])
			continue
		}
		if err != nil {
			if len(b) > 0 {
				return strings.TrimSpace(string(b)), nil
			}
			return "", err
		}
	}
}

func (a *app) reset(ctx context.Context, paths config.Paths, scope string, yes, dryRun bool) error {
	home, _ := os.UserHomeDir()
	show := func(p string) string { return tildePath(p, home) }
	state := paths.StateDir
	configInside := false
	if _, ok := insideDir(state, paths.ConfigPath); ok {
		configInside = true
	}
	var plan []removal
	plan = append(plan, removal{path: paths.ConfigPath, outside: !configInside})
	var kept []string
	clearSessions := false
	if scope == "config+creds+sessions" {
		plan = append(plan, removal{path: filepath.Join(state, "credentials")})
		// Session directories of an OpenClaw layout; ours live in the
		// database and are cleared there.
		if ents, err := os.ReadDir(filepath.Join(state, "agents")); err == nil {
			for _, e := range ents {
				if e.IsDir() {
					if fi, err := os.Lstat(filepath.Join(state, "agents", e.Name(), "sessions")); err == nil && (fi.IsDir() || fi.Mode()&fs.ModeSymlink != 0) {
						plan = append(plan, removal{path: filepath.Join(state, "agents", e.Name(), "sessions")})
					}
				}
			}
		}
		clearSessions = true
	}
	if scope == "full" {
		plan = []removal{{path: state}}
		if !configInside {
			plan = append(plan, removal{path: paths.ConfigPath, outside: true})
		}
		for _, ws := range configuredWorkspaces(paths) {
			if _, ok := insideDir(state, ws); !ok {
				kept = append(kept, ws)
			}
		}
	}
	stopsGateway := scope != "config"

	fmt.Fprintln(a.stdout, "Recommended first: openclaw backup create")
	if dryRun {
		if stopsGateway {
			fmt.Fprintln(a.stdout, "[dry-run] stop gateway service")
		}
		for _, r := range plan {
			fmt.Fprintf(a.stdout, "[dry-run] remove %s\n", show(r.path))
		}
		if clearSessions {
			fmt.Fprintf(a.stdout, "[dry-run] clear sessions in %s\n", show(filepath.Join(state, store.FileName)))
		}
		for _, ws := range kept {
			fmt.Fprintf(a.stdout, "[dry-run] keep %s (outside the state directory; remove it yourself or use `openclaw uninstall --workspace`)\n", show(ws))
		}
		if stopsGateway {
			fmt.Fprintln(a.stdout, "Next: openclaw onboard --install-daemon")
		}
		return nil
	}
	if err := a.confirm(yes, fmt.Sprintf("Reset %s (scope %s)?", show(state), scope)); err != nil {
		return err
	}
	if stopsGateway {
		stopped, err := a.stopManagedGateway(ctx)
		if err != nil {
			return err
		}
		if stopped {
			fmt.Fprintln(a.stdout, "Stopped gateway service.")
		}
		if err := gatewayHoldsState(state); err != nil {
			return err
		}
	}
	if clearSessions {
		n, err := clearSessionRows(ctx, filepath.Join(state, store.FileName))
		if err != nil {
			return err
		}
		if n >= 0 {
			fmt.Fprintf(a.stdout, "Cleared sessions in %s\n", show(filepath.Join(state, store.FileName)))
		}
	}
	for _, r := range plan {
		_, statErr := os.Lstat(r.path)
		var err error
		if r.outside {
			err = removeConfigFile(r.path)
		} else {
			err = removeInState(state, r.path, r.keep)
		}
		if err != nil {
			return err
		}
		if statErr == nil {
			fmt.Fprintf(a.stdout, "Removed %s\n", show(r.path))
		}
	}
	for _, ws := range kept {
		fmt.Fprintf(a.stdout, "Kept %s (outside the state directory)\n", show(ws))
	}
	if stopsGateway {
		fmt.Fprintln(a.stdout, "Next: openclaw onboard --install-daemon")
	}
	return nil
}

// clearSessionRows deletes every session and transcript from the state
// database; -1 when there is no database. A database path that is not a
// regular file (a link out of the state) is refused.
func clearSessionRows(ctx context.Context, dbPath string) (int, error) {
	fi, err := os.Lstat(dbPath)
	if errors.Is(err, fs.ErrNotExist) {
		return -1, nil
	}
	if err != nil {
		return 0, err
	}
	if !fi.Mode().IsRegular() {
		return 0, fmt.Errorf("refusing to clear sessions in %s: it is not a regular file", dbPath)
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "foreign_keys(1)")
	db, err := sql.Open("sqlite", "file:"+dbPath+"?"+q.Encode())
	if err != nil {
		return 0, fmt.Errorf("open %s: %w", dbPath, err)
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("clear sessions in %s: %w", dbPath, err)
	}
	defer tx.Rollback()
	total := 0
	for _, t := range sessionTables {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type='table' AND name=?`, t).Scan(&n); err != nil {
			return 0, fmt.Errorf("clear sessions in %s: %w", dbPath, err)
		}
		if n == 0 {
			continue
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM "`+t+`"`)
		if err != nil {
			return 0, fmt.Errorf("clear %s in %s: %w", t, dbPath, err)
		}
		k, _ := res.RowsAffected()
		total += int(k)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("clear sessions in %s: %w", dbPath, err)
	}
	return total, nil
}
