package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/openclaw-go/openclaw/gateway/doctor"
)

func init() { registerCommand("", newSecurityCmd) }

// newSecurityCmd is the `openclaw security` group.
func newSecurityCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "security",
		Short: "Audit local config and state for common security foot-guns",
		Example: "  openclaw security audit          run a local security audit\n" +
			"  openclaw security audit --deep   also probe the running gateway\n" +
			"  openclaw security audit --fix    apply safe remediations and file-permission fixes\n" +
			"  openclaw security audit --json   machine-readable JSON",
	}
	c.AddCommand(newSecurityAuditCmd(a))
	return c
}

// newSecurityAuditCmd is `openclaw security audit [--deep] [--fix]
// [--json]`. As the real CLI, it exits 0 once the report is printed,
// whatever it found: scripts read summary.critical.
func newSecurityAuditCmd(a *app) *cobra.Command {
	var deep, fix bool
	var g *gatewayFlags
	c := &cobra.Command{
		Use:   "audit",
		Short: "Audit config + local state for common security foot-guns",
		Long: "Reports weak gateway auth, exposure beyond loopback, open DM and group policies, exec\n" +
			"without approval, dangerous config flags, secrets written in the config, hook token\n" +
			"problems and private files others can read. --fix tightens file modes and turns open\n" +
			"group policies into allowlists; it never rotates secrets or changes auth or bind.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			paths, err := cliPaths(g.dev)
			if err != nil {
				return err
			}
			in := doctor.Load(paths, os.Getenv)
			var fixed *doctor.AuditFix
			if fix {
				fixed = doctor.FixSecurity(in)
			}
			o := doctor.AuditOptions{Install: in, Deep: deep}
			if deep {
				o.Probe = &cliGateway{a: a, g: g}
			}
			rep := doctor.Audit(cmd.Context(), o)
			if g.json {
				if fixed != nil {
					return writeJSON(a.stdout, map[string]any{"fix": fixed, "report": rep, "secretDiagnostics": rep.SecretDiagnostics})
				}
				return writeJSON(a.stdout, rep)
			}
			printAudit(a.stdout, rep, fixed)
			return nil
		},
	}
	f := c.Flags()
	f.BoolVar(&deep, "deep", false, "also probe the running gateway (it answers, and refuses a connect without credentials)")
	f.BoolVar(&fix, "fix", false, "apply safe fixes (tighten file modes, open group policies to allowlist)")
	g = addGatewayFlags(f, a)
	return c
}

// printAudit prints the report as the real CLI does: the summary, what
// --fix changed, then the findings by severity.
func printAudit(w io.Writer, rep *doctor.AuditReport, fixed *doctor.AuditFix) {
	fmt.Fprintln(w, "OpenClaw security audit")
	fmt.Fprintf(w, "Summary: %d critical · %d warn · %d info\n", rep.Summary.Critical, rep.Summary.Warn, rep.Summary.Info)
	if rep.Deep == nil {
		fmt.Fprintln(w, "Run deeper: openclaw security audit --deep")
	}
	for _, d := range rep.SecretDiagnostics {
		fmt.Fprintf(w, "[secrets] %s\n", d)
	}
	if fixed != nil {
		fmt.Fprintln(w, "Fix: openclaw security audit --fix")
		applied := len(fixed.Changes) > 0 || len(fixed.Errors) > 0
		for _, act := range fixed.Actions {
			applied = applied || act.OK
		}
		if !applied {
			fmt.Fprintln(w, "Fixes: no changes applied")
		} else {
			fmt.Fprintln(w, "\nFIX")
			for _, ch := range fixed.Changes {
				fmt.Fprintf(w, "  %s\n", ch)
			}
			for _, act := range fixed.Actions {
				if act.Skipped != "already" && act.Skipped != "missing" {
					fmt.Fprintf(w, "  %s\n", act)
				}
			}
			for _, e := range fixed.Errors {
				fmt.Fprintf(w, "  error: %s\n", e)
			}
		}
	}
	for _, sev := range []doctor.Severity{doctor.SeverityCritical, doctor.SeverityWarn, doctor.SeverityInfo} {
		var list []doctor.AuditFinding
		for _, f := range rep.Findings {
			if f.Severity == sev {
				list = append(list, f)
			}
		}
		if len(list) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s\n", strings.ToUpper(string(sev)))
		for _, f := range list {
			fmt.Fprintf(w, "%s %s\n", f.CheckID, f.Title)
			fmt.Fprintf(w, "  %s\n", f.Detail)
			if r := strings.TrimSpace(f.Remediation); r != "" {
				fmt.Fprintf(w, "  Fix: %s\n", r)
			}
		}
	}
}
