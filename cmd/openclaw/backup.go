package main

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/openclaw-go/openclaw/gateway/backup"
	"github.com/openclaw-go/openclaw/gateway/config"
)

func init() { registerCommand("", newBackupCmd) }

// newBackupCmd is `openclaw backup`: create, verify and restore archives
// of the local state (gateway/backup does the work). It needs no gateway:
// the databases are read with SQLite's own snapshot, which is safe while
// the gateway runs.
func newBackupCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "backup",
		Short: "Create, verify, and restore backup archives",
		Args:  cobra.NoArgs,
		RunE:  func(c *cobra.Command, args []string) error { return c.Help() },
	}
	c.AddCommand(newBackupCreateCmd(a), newBackupVerifyCmd(a), newBackupRestoreCmd(a))
	return c
}

func newBackupCreateCmd(a *app) *cobra.Command {
	var output string
	var dryRun, asJSON, noWorkspace, onlyConfig, verify bool
	c := &cobra.Command{
		Use:   "create",
		Short: "Write a backup archive for config, credentials, sessions, and workspaces",
		Example: "  openclaw backup create\n  openclaw backup create --output ~/Backups\n" +
			"  openclaw backup create --dry-run --json\n  openclaw backup create --verify\n" +
			"  openclaw backup create --no-include-workspace\n  openclaw backup create --only-config",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			a.ran = true
			paths, err := cliPaths(a.dev)
			if err != nil {
				return err
			}
			cwd, _ := os.Getwd()
			home, _ := os.UserHomeDir()
			o := backup.Options{
				StateDir: paths.StateDir, ConfigPath: paths.ConfigPath, OnlyConfig: onlyConfig,
				IncludeWorkspace: !noWorkspace, Output: expandTilde(output, home), DefaultDir: cwd, Home: home,
				DryRun: dryRun, RuntimeVersion: version,
			}
			if !onlyConfig {
				o.Workspaces = configuredWorkspaces(paths)
			}
			res, err := backup.Create(cmd.Context(), o)
			if err != nil {
				return fmt.Errorf("backup create: %w", err)
			}
			if verify && !dryRun {
				if _, err := backup.Verify(cmd.Context(), res.ArchivePath); err != nil {
					return fmt.Errorf("backup create --verify: the archive was written to %s but does not verify: %w", res.ArchivePath, err)
				}
				res.Verified = true
			}
			if asJSON {
				return writeJSON(a.stdout, res)
			}
			verb := "Backup archive"
			if dryRun {
				verb = "Backup plan (dry run) for"
			}
			fmt.Fprintf(a.stdout, "%s: %s\n", verb, res.ArchivePath)
			for _, as := range res.Assets {
				fmt.Fprintf(a.stdout, "Included %s: %s\n", as.Kind, displayOr(as))
			}
			for _, s := range res.Skipped {
				if s.Reason == "volatile" {
					continue
				}
				fmt.Fprintf(a.stdout, "Skipped %s (%s): %s\n", s.Kind, s.Reason, cmp.Or(s.DisplayPath, s.SourcePath))
			}
			if res.SkippedVolatileCount > 0 {
				fmt.Fprintf(a.stdout, "Skipped volatile entries: %d\n", res.SkippedVolatileCount)
			}
			for _, l := range res.ExternalLinks {
				fmt.Fprintf(a.stdout, "Symbolic link not archived: %s -> %s\n", l.SourcePath, l.Target)
			}
			if len(res.Databases) > 0 {
				fmt.Fprintf(a.stdout, "SQLite snapshots: %d\n", len(res.Databases))
			}
			if res.Verified {
				fmt.Fprintln(a.stdout, "Archive verified.")
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&output, "output", "", "Archive `path` or destination directory")
	f.BoolVar(&dryRun, "dry-run", false, "Print the backup plan without writing the archive")
	f.BoolVar(&asJSON, "json", false, "Output JSON")
	f.BoolVar(&noWorkspace, "no-include-workspace", false, "Exclude workspace directories from the backup")
	f.BoolVar(&onlyConfig, "only-config", false, "Back up only the active JSON config file")
	f.BoolVar(&verify, "verify", false, "Verify the archive after writing it")
	return c
}

func newBackupVerifyCmd(a *app) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:     "verify <archive>",
		Short:   "Validate a backup archive and its embedded manifest",
		Example: "  openclaw backup verify ./2026-03-09T08-00-00.000+08-00-openclaw-backup.tar.gz\n  openclaw backup verify ~/Backups/latest.tar.gz --json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			a.ran = true
			p, err := filepath.Abs(args[0])
			if err != nil {
				return err
			}
			res, err := backup.Verify(cmd.Context(), p)
			if err != nil {
				return backupVerifyFailed(p, err)
			}
			if asJSON {
				return writeJSON(a.stdout, res)
			}
			fmt.Fprintf(a.stdout, "Backup archive OK: %s\nArchive root: %s\nCreated at: %s\nRuntime version: %s\n"+
				"Assets verified: %d\nArchive entries scanned: %d\nSymbolic links checked: %d\nSQLite databases checked: %d\n",
				res.ArchivePath, res.ArchiveRoot, res.CreatedAt, res.RuntimeVersion, res.AssetCount, res.EntryCount, res.SymlinkCount, res.DatabasesChecked)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "Output JSON")
	return c
}

// backupVerifyFailed words a refusal as OpenClaw does.
func backupVerifyFailed(p string, err error) error {
	var inv *backup.InvalidError
	if errors.As(err, &inv) {
		return fmt.Errorf("Backup archive verification failed: %s. %s", p, inv.Reason)
	}
	return fmt.Errorf("Backup archive verification failed: %s. %w", p, err)
}

func newBackupRestoreCmd(a *app) *cobra.Command {
	var target string
	var asJSON bool
	c := &cobra.Command{
		Use:     "restore <archive>",
		Short:   "Restore a verified backup archive to a fresh staging directory",
		Example: "  openclaw backup restore ./2026-03-09T08-00-00.000+08-00-openclaw-backup.tar.gz --target ./restored-openclaw",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if target == "" {
				return usageErrorf("backup restore needs --target <fresh-directory>; it never restores in place")
			}
			a.ran = true
			paths, err := cliPaths(a.dev)
			if err != nil {
				return err
			}
			home, _ := os.UserHomeDir()
			p, err := filepath.Abs(args[0])
			if err != nil {
				return err
			}
			protect := append([]string{paths.StateDir}, configuredWorkspaces(paths)...)
			res, err := backup.Restore(cmd.Context(), p, expandTilde(target, home), protect)
			if err != nil {
				var inv *backup.InvalidError
				if errors.As(err, &inv) {
					return backupVerifyFailed(p, err)
				}
				return fmt.Errorf("backup restore: %w", err)
			}
			if asJSON {
				return writeJSON(a.stdout, res)
			}
			fmt.Fprintf(a.stdout, "Restored %s into %s (%d entries).\n", res.ArchiveRoot, res.TargetPath, res.EntryCount)
			for _, l := range res.SymbolicLinks {
				fmt.Fprintf(a.stdout, "Symbolic link not restored: %s -> %s\n", l.SourcePath, l.Target)
			}
			fmt.Fprintln(a.stdout, "Stop the gateway, move the restored state into place (or point OPENCLAW_STATE_DIR at it), then run `openclaw doctor`.")
			return nil
		},
	}
	c.Flags().StringVar(&target, "target", "", "Fresh `directory` to restore into")
	c.Flags().BoolVar(&asJSON, "json", false, "Output JSON")
	return c
}

// configuredWorkspaces are the agents' workspace directories as the
// gateway resolves them; a config that does not load gives the default
// one.
func configuredWorkspaces(paths config.Paths) []string {
	def := filepath.Join(paths.StateDir, "workspace")
	snap, err := config.Load(paths.ConfigPath, config.LoadOptions{IncludeRoots: paths.IncludeRoots})
	if err != nil || snap == nil || snap.Config == nil {
		return []string{def}
	}
	cfg := snap.Config
	home := paths.Home
	seen := map[string]bool{}
	var out []string
	for _, id := range cfg.AgentIDs() {
		e, _ := cfg.Agent(id)
		var ws string
		switch {
		case e.Workspace != "":
			ws = expandTilde(e.Workspace, home)
		case id == cfg.DefaultAgentID() && cfg.Agents.Defaults.Workspace != "":
			ws = expandTilde(cfg.Agents.Defaults.Workspace, home)
		case id == cfg.DefaultAgentID():
			ws = def
		default:
			ws = filepath.Join(paths.StateDir, "workspace-"+id)
		}
		if abs, err := filepath.Abs(ws); err == nil {
			ws = abs
		}
		if !seen[ws] {
			seen[ws] = true
			out = append(out, ws)
		}
	}
	return out
}

func displayOr(as backup.Asset) string { return cmp.Or(as.DisplayPath, as.SourcePath) }
