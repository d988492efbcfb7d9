package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/openclaw-go/openclaw/gateway/migrate"
	"github.com/openclaw-go/openclaw/gateway/statelock"
	"github.com/openclaw-go/openclaw/gateway/store"
)

// runMigrate serves `openclaw migrate --from DIR [--dry-run] [--yes]`: it
// imports an OpenClaw install's state into ours. It prints the plan first;
// --dry-run stops there, --yes applies it without asking, and otherwise
// it asks on a terminal and refuses elsewhere. `openclaw migrate --to URL`
// is short for `openclaw store copy --to URL`: this gateway's SQLite
// database copied into a PostgreSQL one.
func runMigrate(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw migrate --from DIR [--dry-run] [--yes] [--json] | migrate --to postgres://URL [--replace] [--dry-run]")
	from := fs.String("from", "", "the OpenClaw state `dir` to import from (its OPENCLAW_STATE_DIR, default ~/.openclaw)")
	to := fs.String("to", "", "copy this gateway's database into the PostgreSQL database at `url` (as openclaw store copy --to)")
	replace := fs.Bool("replace", false, "with --to: empty the target's tables first")
	dryRun := fs.Bool("dry-run", false, "print what would be imported and change nothing")
	yes := fs.Bool("yes", false, "import without asking")
	dev := fs.Bool("dev", a.dev, "import into the dev profile (~/.openclaw-dev)")
	asJSON := fs.Bool("json", false, "print the plan as JSON")
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	if *to != "" {
		if *from != "" {
			return usageErrorf("--from imports an OpenClaw install, --to copies this gateway's database: give one")
		}
		if !store.IsURL(*to) {
			return usageErrorf("--to takes a postgres:// URL; to copy into a SQLite file use `openclaw store copy --to FILE`")
		}
		paths, err := cliPaths(*dev)
		if err != nil {
			return err
		}
		return a.storeCopy(ctx, paths, storeCopyOptions{to: *to, replace: *replace, dryRun: *dryRun, asJSON: *asJSON || a.json})
	}
	if *from == "" {
		return usageErrorf("--from is required: the OpenClaw state directory (default install: ~/.openclaw)")
	}
	paths, err := cliPaths(*dev)
	if err != nil {
		return err
	}
	src, err := filepath.Abs(expandTilde(*from, paths.Home))
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	p := migrate.Paths{From: src, StateDir: paths.StateDir, ConfigPath: paths.ConfigPath}
	plan, err := migrate.MakePlan(ctx, p)
	if err != nil {
		return err
	}
	// With --json, one object at the end says what was planned and whether
	// it was applied.
	report := func(applied bool) error {
		if !*asJSON {
			return nil
		}
		return writeJSON(a.stdout, map[string]any{"from": src, "stateDir": paths.StateDir, "items": plan.Items,
			"pending": plan.Pending(), "applied": applied})
	}
	if !*asJSON {
		printPlan(a.stdout, plan)
	}
	if !plan.Pending() {
		if !*asJSON {
			fmt.Fprintln(a.stdout, "Nothing to import: everything migrate can import is already here.")
		}
		return report(false)
	}
	if *dryRun {
		if !*asJSON {
			fmt.Fprintln(a.stdout, "Dry run: nothing was changed. Run again with --yes to import.")
		}
		return report(false)
	}
	if !*yes {
		ok, err := confirm(a, "Import the items marked import? [y/N] ")
		if err != nil {
			return err
		}
		if !ok {
			fmt.Fprintln(a.stderr, "Nothing was changed.")
			return nil
		}
	}
	// Our gateway must not run while its database and files change under it.
	lock, err := statelock.Acquire(paths.StateDir, paths.ConfigPath)
	if err != nil {
		return fmt.Errorf("migrate: stop the gateway first: %w", err)
	}
	defer lock.Release()
	if err := migrate.Apply(ctx, plan); err != nil {
		return err
	}
	if !*asJSON {
		fmt.Fprintf(a.stdout, "Imported into %s. Start the gateway with `openclaw gateway`.\n", paths.StateDir)
	}
	return report(true)
}

// printPlan prints the plan as a table: item, count, action, note.
func printPlan(w io.Writer, plan *migrate.Plan) {
	fmt.Fprintf(w, "From %s into %s:\n\n", plan.Paths.From, plan.Paths.StateDir)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ITEM\tCOUNT\tACTION\tNOTE")
	for _, it := range plan.Items {
		action := string(it.Action)
		if it.Action == migrate.ActionSkip && strings.HasPrefix(it.Note, "already there") {
			action = "skip: already there"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", it.Name, it.Count, action, it.Note)
	}
	tw.Flush()
	fmt.Fprintln(w)
}

// confirm asks a yes/no question on a terminal; elsewhere it refuses, so
// a script never imports without --yes.
func confirm(a *app, question string) (bool, error) {
	if f, ok := a.stdin.(*os.File); !ok || !isTerminal(f) {
		return false, usageErrorf("not a terminal: pass --yes to import, or --dry-run to only see the plan")
	}
	fmt.Fprint(a.stderr, question)
	line, err := bufio.NewReader(a.stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return false, fmt.Errorf("read answer: %w", err)
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

// expandTilde expands a leading ~ to home.
func expandTilde(path, home string) string {
	if path == "~" {
		return home
	}
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		return filepath.Join(home, rest)
	}
	return path
}
