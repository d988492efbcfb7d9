package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/openclaw-go/openclaw/gateway/client"
	"github.com/openclaw-go/openclaw/gateway/doctor"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

func init() { registerCommand("", newDoctorCmd) }

// newDoctorCmd is `openclaw doctor [--fix] [--json] [--lint]`: the
// checks of gateway/doctor over the local install and the running
// gateway. As with the real CLI, an ordinary run and bare --json exit 0
// once the report is out (read ok and findings), --lint exits 1 when it
// has findings, and a repair that --fix could not make exits 1.
func newDoctorCmd(a *app) *cobra.Command {
	var fix, repair, yes, lint, nonInteractive bool
	var severityMin string
	var g *gatewayFlags
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Health checks + quick fixes for the gateway and channels",
		Long: "Checks the config (and its legacy keys), the state directory's file modes, the running\n" +
			"gateway and its state lock, the state database's integrity, the model providers, the\n" +
			"channels' last errors, free disk space, the exec approvals and the browser.\n" +
			"--fix rewrites legacy config keys (keeping a backup) and tightens file modes.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fix = fix || repair || yes
			if lint && fix {
				return usageErrorf("--lint is read-only: it cannot be combined with --fix, --repair or --yes")
			}
			rank := map[string]int{"info": 0, "warning": 1, "error": 2}
			if _, ok := rank[severityMin]; !ok {
				return usageErrorf("--severity-min %q: want info, warning or error", severityMin)
			}
			if severityMin != "info" && !lint {
				return usageErrorf("--severity-min is only accepted with --lint")
			}
			paths, err := cliPaths(g.dev)
			if err != nil {
				return err
			}
			rep := doctor.Run(cmd.Context(), doctor.Options{
				Install: doctor.Load(paths, os.Getenv),
				Fix:     fix,
				Version: version, Commit: buildCommit(),
				Gateway: &cliGateway{a: a, g: g},
				Logger:  slog.New(slog.DiscardHandler),
			})
			if lint {
				// The threshold decides both what prints and the exit code.
				kept := rep.Findings[:0]
				for _, f := range rep.Findings {
					if rank[f.Severity] >= rank[severityMin] {
						kept = append(kept, f)
					}
				}
				rep.Findings = kept
			}
			switch {
			case g.json:
				if err := writeJSON(a.stdout, rep); err != nil {
					return err
				}
			case lint:
				printLint(a.stdout, rep)
			default:
				printDoctor(a.stdout, rep, fix)
			}
			if rep.FixFailed {
				return reported(errors.New("doctor: a repair failed"))
			}
			if lint && len(rep.Findings) > 0 {
				return reported(fmt.Errorf("doctor --lint: %d findings", len(rep.Findings)))
			}
			return nil
		},
	}
	f := c.Flags()
	f.BoolVar(&fix, "fix", false, "apply the safe repairs (alias for --repair)")
	f.BoolVar(&repair, "repair", false, "apply the safe repairs without prompting")
	f.BoolVar(&yes, "yes", false, "accept the repairs without prompting (as --fix)")
	f.BoolVar(&lint, "lint", false, "read-only findings; exit 1 when there are any")
	f.StringVar(&severityMin, "severity-min", "info", "with --lint: drop findings below this `level` (info|warning|error)")
	f.BoolVar(&nonInteractive, "non-interactive", false, "run without prompts (the doctor never prompts)")
	g = addGatewayFlags(f, a)
	return c
}

// cliGateway is the running gateway as the doctor and the audit reach it:
// the CLI's usual target and credentials, within --timeout.
type cliGateway struct {
	a *app
	g *gatewayFlags
}

func (c *cliGateway) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	var out json.RawMessage
	if err := c.a.callOnce(ctx, c.g, method, scopesFor(method), params, &out, false); err != nil {
		return nil, err
	}
	return out, nil
}

// ConnectAnonymous dials the same gateway with no token, password or
// device identity.
func (c *cliGateway) ConnectAnonymous(ctx context.Context) error {
	t, err := resolveTarget(c.g)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, c.g.timeout())
	defer cancel()
	cl, err := client.Dial(ctx, client.Options{
		URL: t.url, TLSFingerprint: c.g.tlsPin, Role: protocol.RoleOperator,
		Scopes: []string{string(protocol.ScopeRead)}, Version: version, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		return err
	}
	cl.Close()
	return nil
}

var statusMarks = map[doctor.Status]string{doctor.StatusOK: "ok", doctor.StatusWarn: "warn", doctor.StatusFail: "FAIL", doctor.StatusSkip: "skip"}

// printDoctor prints the report as the real doctor lays it out: a
// section per check that has something to say, then the list of checks.
func printDoctor(w io.Writer, rep *doctor.Report, fix bool) {
	fmt.Fprintln(w, "┌  OpenClaw doctor")
	for _, c := range rep.Checks {
		if c.Status != doctor.StatusWarn && c.Status != doctor.StatusFail && c.Fix == nil {
			continue
		}
		lines := strings.Split(c.Detail, "\n")
		if c.FixHint != "" {
			lines = append(lines, "Fix: "+c.FixHint)
		}
		if c.Fix != nil {
			if c.Fix.Applied {
				lines = append(lines, "Repaired:")
				for _, l := range strings.Split(c.Fix.Detail, "\n") {
					lines = append(lines, "  "+l)
				}
			}
			if c.Fix.Error != "" {
				lines = append(lines, "Repair failed: "+c.Fix.Error)
			}
		}
		title := c.Title
		if c.Status == doctor.StatusFail {
			title += " (failed)"
		}
		printBox(w, title, lines)
	}
	var lines []string
	for _, c := range rep.Checks {
		lines = append(lines, fmt.Sprintf("%-4s  %s: %s", statusMarks[c.Status], c.Title, strings.TrimPrefix(firstLine(c.Detail), "- ")))
	}
	printBox(w, "Checks", lines)
	fmt.Fprintln(w, "│")
	switch {
	case rep.FixFailed:
		fmt.Fprintln(w, "└  Doctor finished: a repair failed (see above).")
	case len(rep.Findings) > 0 && !fix:
		fmt.Fprintln(w, "└  Doctor complete. Run \"openclaw doctor --fix\" to apply the safe repairs.")
	default:
		fmt.Fprintln(w, "└  Doctor complete.")
	}
}

func isStatusMark(s string) bool {
	for _, m := range statusMarks {
		if m == s {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// boxWidth is where section lines wrap, as the real doctor's boxes do.
const boxWidth = 76

// wrapLine splits a line at spaces to fit width, indenting the rest as
// the line's own leading "- " or spaces.
func wrapLine(l string, width int) []string {
	indent := strings.Repeat(" ", len(l)-len(strings.TrimLeft(l, " ")))
	switch t := strings.TrimLeft(l, " "); {
	case strings.HasPrefix(t, "- "):
		indent += "  "
	case len(l) > 6 && l[4:6] == "  " && isStatusMark(strings.TrimSpace(l[:4])):
		indent = strings.Repeat(" ", 6) // the Checks list's hanging indent
	}
	var out []string
	for utf8.RuneCountInString(l) > width {
		cut := strings.LastIndex(string([]rune(l)[:width]), " ")
		if cut <= len(indent) {
			break // one long word (a path): leave it whole
		}
		out = append(out, l[:cut])
		l = indent + strings.TrimLeft(l[cut:], " ")
	}
	return append(out, l)
}

// printBox draws one titled section.
func printBox(w io.Writer, title string, lines []string) {
	var wrapped []string
	for _, l := range lines {
		wrapped = append(wrapped, wrapLine(l, boxWidth)...)
	}
	lines = wrapped
	width := utf8.RuneCountInString(title) + 2
	for _, l := range lines {
		width = max(width, utf8.RuneCountInString(l))
	}
	width += 4
	fmt.Fprintln(w, "│")
	fmt.Fprintf(w, "◇  %s %s╮\n", title, strings.Repeat("─", max(1, width-utf8.RuneCountInString(title)-3)))
	fmt.Fprintf(w, "│%s│\n", strings.Repeat(" ", width))
	for _, l := range lines {
		fmt.Fprintf(w, "│  %s%s│\n", l, strings.Repeat(" ", width-2-utf8.RuneCountInString(l)))
	}
	fmt.Fprintf(w, "│%s│\n", strings.Repeat(" ", width))
	fmt.Fprintf(w, "├%s╯\n", strings.Repeat("─", width))
}

// printLint prints --lint's compact report.
func printLint(w io.Writer, rep *doctor.Report) {
	fmt.Fprintf(w, "doctor --lint: ran %d check(s), %d finding(s)\n", rep.ChecksRun, len(rep.Findings))
	for _, f := range rep.Findings {
		path := ""
		if f.Path != "" {
			path = " " + f.Path
		}
		fmt.Fprintf(w, "  [%s] %s%s - %s\n", f.Severity, f.CheckID, path, f.Message)
		if f.FixHint != "" {
			fmt.Fprintf(w, "    fix: %s\n", f.FixHint)
		}
	}
}
