package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/openclaw-go/openclaw/gateway/doctor"
)

func init() { registerCommand("", newSecretsCmd) }

// newSecretsCmd is `openclaw secrets audit`: a read-only scan of the
// config for secrets written as plain text and for references that
// resolve to nothing. Exit codes as the real CLI's: with --check 1 on
// findings; 2 on an unresolved reference, with or without --check.
func newSecretsCmd(a *app) *cobra.Command {
	root := &cobra.Command{Use: "secrets <command>", Short: "Secrets runtime controls"}
	var check, allowExec, asJSON, dev bool
	audit := &cobra.Command{
		Use:   "audit",
		Short: "Scan the config for plaintext secrets and unresolved references",
		Long: "Reads the config (never the gateway) and lists every secret field written as plain text\n" +
			"(PLAINTEXT_FOUND) and every ${VAR} or SecretRef that resolves to nothing (REF_UNRESOLVED).\n" +
			"Exec SecretRefs are not run unless --allow-exec. Values are never printed.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			paths, err := cliPaths(dev || a.dev)
			if err != nil {
				return err
			}
			rep := doctor.SecretsAudit(doctor.Load(paths, os.Getenv), allowExec)
			if asJSON {
				if err := writeJSON(a.stdout, rep); err != nil {
					return err
				}
			} else {
				printSecretsAudit(a, rep)
			}
			switch {
			case rep.Status == "unresolved":
				return withExitCode(2, reported(fmt.Errorf("secrets audit: %d unresolved references", rep.Summary.UnresolvedRefCount)))
			case check && len(rep.Findings) > 0:
				return reported(fmt.Errorf("secrets audit: %d findings", len(rep.Findings)))
			}
			return nil
		},
	}
	f := audit.Flags()
	f.BoolVar(&check, "check", false, "exit 1 when there are findings")
	f.BoolVar(&allowExec, "allow-exec", false, "resolve exec SecretRefs too (runs their commands)")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	f.BoolVar(&dev, "dev", false, "use the dev profile (~/.openclaw-dev)")
	root.AddCommand(audit)
	return root
}

func printSecretsAudit(a *app, rep *doctor.SecretsReport) {
	w := a.stdout
	fmt.Fprintf(w, "Secrets audit: %s (%d references checked", rep.Status, rep.Resolution.RefsChecked)
	if rep.Resolution.SkippedExecRefs > 0 {
		fmt.Fprintf(w, ", %d exec references skipped: --allow-exec", rep.Resolution.SkippedExecRefs)
	}
	fmt.Fprintln(w, ")")
	for _, f := range rep.Findings {
		where := f.Path
		if f.Line > 0 {
			where = fmt.Sprintf("%s (%s:%d)", f.Path, f.File, f.Line)
		}
		fmt.Fprintf(w, "  %s  %s\n    %s\n", f.Code, where, f.Message)
	}
	if len(rep.Findings) == 0 {
		fmt.Fprintln(w, "No plaintext secrets and no unresolved references.")
	}
}
