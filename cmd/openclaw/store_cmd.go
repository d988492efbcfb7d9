package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/openclaw-go/openclaw/channels/telegram"
	"github.com/openclaw-go/openclaw/channels/whatsapp"
	"github.com/openclaw-go/openclaw/gateway"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/statelock"
	"github.com/openclaw-go/openclaw/gateway/store"
)

func init() { registerCommand("", newStoreCmd) }

// newStoreCmd is `openclaw store`: the gateway's database itself.
func newStoreCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "store",
		Short: "Copy the gateway's database between SQLite and PostgreSQL",
		Args:  cobra.NoArgs,
		RunE:  func(c *cobra.Command, args []string) error { return c.Help() },
	}
	c.AddCommand(newStoreCopyCmd(a))
	return c
}

// storeCopyOptions are the flags of store copy (and migrate --to).
type storeCopyOptions struct {
	from, to        string
	replace, dryRun bool
	asJSON          bool
}

func newStoreCopyCmd(a *app) *cobra.Command {
	var o storeCopyOptions
	c := &cobra.Command{
		Use:   "copy --to PLACE [--from PLACE] [--replace] [--dry-run]",
		Short: "Copy every table of the gateway's database to another SQLite file or a PostgreSQL database",
		Long: "Copy every component's rows from one database to another. A place is a SQLite file path or a\n" +
			"postgres:// (postgresql://) URL; --from defaults to this gateway's SQLite file in its state\n" +
			"directory. The source is never written (a SQLite source is read from a snapshot). The target\n" +
			"gets this version's schema and must hold no rows unless --replace, which empties its tables\n" +
			"first. Stop the gateway first.",
		Example: "  openclaw store copy --to postgres://openclaw@db.internal/openclaw\n" +
			"  openclaw store copy --from postgres://openclaw@db.internal/openclaw --to ./openclaw.sqlite\n" +
			"  openclaw store copy --to ./copy.sqlite --dry-run",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			a.ran = true
			paths, err := cliPaths(a.dev)
			if err != nil {
				return err
			}
			o.asJSON = o.asJSON || a.json
			return a.storeCopy(cmd.Context(), paths, o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.from, "from", "", "the database to copy: a SQLite file or a postgres:// URL (default: this gateway's)")
	f.StringVar(&o.to, "to", "", "the database to copy into: a SQLite file or a postgres:// URL")
	f.BoolVar(&o.replace, "replace", false, "empty the target's tables first")
	f.BoolVar(&o.dryRun, "dry-run", false, "copy in a transaction that is rolled back: see the counts, write no rows")
	f.BoolVar(&o.asJSON, "json", false, "print the report as JSON")
	return c
}

// storeMigrations are the schemas of every component that keeps tables
// in the gateway's database, those created on first use included.
func storeMigrations() []store.Migrations {
	return append(gateway.Migrations(), telegram.Migrations, whatsapp.Migrations)
}

// storeCopy copies one database into another and prints what it copied.
func (a *app) storeCopy(ctx context.Context, paths config.Paths, o storeCopyOptions) (err error) {
	// Whatever fails, no password of a URL given is ever shown.
	defer func() { err = redactPasswords(err, o.from, o.to) }()
	if o.to == "" {
		return usageErrorf("--to is required: a SQLite file path or a postgres:// URL")
	}
	if o.from == "" {
		o.from = filepath.Join(paths.StateDir, store.FileName)
	}
	home, _ := os.UserHomeDir()
	for _, p := range []*string{&o.from, &o.to} {
		if !store.IsURL(*p) {
			abs, err := filepath.Abs(expandTilde(*p, home))
			if err != nil {
				return fmt.Errorf("store copy: %w", err)
			}
			*p = abs
		}
	}
	if o.from == o.to {
		return usageErrorf("--from and --to are the same database: %s", store.RedactPlace(o.from))
	}
	// A gateway writing either file while it is copied would lose its
	// writes (source) or have the rows change under it (target).
	for _, p := range []string{o.from, o.to} {
		if store.IsURL(p) {
			continue
		}
		if err := gatewayHoldsState(filepath.Dir(p)); err != nil {
			return fmt.Errorf("store copy: %w", err)
		}
	}
	// And none may start on this gateway's state while the copy runs.
	if inDir(paths.StateDir, o.from) || inDir(paths.StateDir, o.to) {
		lock, err := statelock.Acquire(paths.StateDir, paths.ConfigPath)
		if err != nil {
			return fmt.Errorf("store copy: stop the gateway first: %w", err)
		}
		defer lock.Release()
	}
	migs := storeMigrations()
	src, closeSrc, err := store.OpenCopySource(ctx, o.from, migs...)
	if err != nil {
		return fmt.Errorf("store copy: open the source: %w", err)
	}
	defer closeSrc()
	dstPlace := o.to
	if o.dryRun && !store.IsURL(o.to) {
		// A dry run creates no file: it copies into a throwaway one.
		if _, err := os.Stat(o.to); errors.Is(err, os.ErrNotExist) {
			tmp, err := os.MkdirTemp("", "openclaw-store-copy-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(tmp)
			dstPlace = filepath.Join(tmp, store.FileName)
		}
	}
	dst, err := store.OpenPlace(ctx, dstPlace, migs...)
	if err != nil {
		return fmt.Errorf("store copy: open the target: %w", err)
	}
	defer dst.Close()
	if dstPlace != o.to {
		dst.Path = o.to
	}
	rep, err := store.Copy(ctx, src, dst, store.CopyOptions{Migrations: migs, Replace: o.replace, DryRun: o.dryRun})
	if err != nil {
		return err
	}
	if o.asJSON {
		return writeJSON(a.stdout, map[string]any{"from": rep.From, "to": rep.To, "tables": rep.Tables, "rows": rep.Rows(),
			"skipped": rep.Skipped, "dryRun": rep.DryRun})
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(a.stderr, "Not copied: %s (no component of this openclaw owns it; WhatsApp's device store is its library's: link WhatsApp again on the target)\n", s)
	}
	verb := "Copied"
	if rep.DryRun {
		verb = "Dry run: would copy"
	}
	fmt.Fprintf(a.stdout, "%s %d rows from %s to %s:\n\n", verb, rep.Rows(), rep.From, rep.To)
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TABLE\tROWS")
	for _, t := range rep.Tables {
		fmt.Fprintf(tw, "%s\t%d\n", t.Table, t.Rows)
	}
	tw.Flush()
	if rep.DryRun {
		fmt.Fprintln(a.stdout, "\nNothing was written. Run again without --dry-run to copy.")
	}
	return nil
}

// inDir says whether path is inside dir.
func inDir(dir, path string) bool {
	if store.IsURL(path) {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// redactPasswords hides the passwords of the URLs among places in err's
// message, in case a driver's error quotes one.
func redactPasswords(err error, places ...string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	for _, p := range places {
		if !store.IsURL(p) {
			continue
		}
		u, perr := url.Parse(p)
		if perr != nil || u.User == nil {
			// Unparsable: hide whatever sits between the user and the host.
			if _, rest, ok := strings.Cut(p, "://"); ok {
				if at := strings.LastIndexByte(rest, '@'); at >= 0 {
					if _, pw, ok := strings.Cut(rest[:at], ":"); ok && pw != "" {
						msg = strings.ReplaceAll(msg, pw, "xxxxx")
					}
				}
			}
			continue
		}
		if pw, ok := u.User.Password(); ok && pw != "" {
			msg = strings.ReplaceAll(msg, pw, "xxxxx")
			msg = strings.ReplaceAll(msg, url.QueryEscape(pw), "xxxxx")
			msg = strings.ReplaceAll(msg, url.PathEscape(pw), "xxxxx")
		}
	}
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, err: err}
}

// redactedError is an error whose message had a password taken out. It
// does not unwrap: a wrapped error's own message would show it again.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
