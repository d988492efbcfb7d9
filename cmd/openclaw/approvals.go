package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/spf13/cobra"
	flag "github.com/spf13/pflag"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/tools/execapprovals"
)

// `openclaw approvals` (alias exec-approvals): the exec approvals policy
// (get, set, allowlist add|remove) of this machine's state folder or,
// with --gateway, of the running gateway; and the gateway's pending
// approval requests (pending, resolve).

func init() { registerCommand("", newApprovalsCmd) }

// approvalsFileName is the policy file in a state folder, the one the
// gateway's exec tool reads.
const approvalsFileName = "exec-approvals.json"

func newApprovalsCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:     "approvals",
		Aliases: []string{"exec-approvals"},
		Short:   "Manage approval policy and pending requests",
	}
	allow := &cobra.Command{Use: "allowlist", Short: "Edit the per-agent allowlist"}
	allow.AddCommand(newAllowlistCmd(a, true), newAllowlistCmd(a, false))
	c.AddCommand(newApprovalsGetCmd(a), newApprovalsSetCmd(a), allow, newApprovalsPendingCmd(a), newApprovalsResolveCmd(a))
	return c
}

// approvalsPolicy is where get, set and the allowlist helpers work.
type approvalsPolicy interface {
	Get(ctx context.Context) (execapprovals.Snapshot, error)
	Set(ctx context.Context, f execapprovals.File, baseHash string) (execapprovals.Snapshot, error)
}

// localPolicy is the file in this machine's state folder.
type localPolicy struct{ store *execapprovals.Store }

func (l localPolicy) Get(context.Context) (execapprovals.Snapshot, error) { return l.store.Get() }
func (l localPolicy) Set(_ context.Context, f execapprovals.File, baseHash string) (execapprovals.Snapshot, error) {
	return l.store.Set(f, baseHash)
}

// gatewayPolicy is the gateway's, over exec.approvals.get|set (which
// need operator.admin: the policy decides what the agent may run).
type gatewayPolicy struct {
	a *app
	g *gatewayFlags
}

func (p gatewayPolicy) Get(ctx context.Context) (execapprovals.Snapshot, error) {
	var snap execapprovals.Snapshot
	err := p.a.callOnce(ctx, p.g, "exec.approvals.get", scopesFor("exec.approvals.get"), map[string]any{}, &snap, false)
	return snap, err
}

func (p gatewayPolicy) Set(ctx context.Context, f execapprovals.File, baseHash string) (execapprovals.Snapshot, error) {
	var snap execapprovals.Snapshot
	err := p.a.callOnce(ctx, p.g, "exec.approvals.set", scopesFor("exec.approvals.set"),
		map[string]any{"file": f, "baseHash": baseHash}, &snap, false)
	return snap, err
}

// targetFlags are --gateway and --node with the gateway flags.
type targetFlags struct {
	g       *gatewayFlags
	gateway bool
	node    string
}

func addTargetFlags(f *flag.FlagSet, a *app) *targetFlags {
	t := &targetFlags{}
	f.BoolVar(&t.gateway, "gateway", false, "the running gateway's approvals instead of this machine's")
	f.StringVar(&t.node, "node", "", "a node host's approvals (`id|name|ip`; not supported yet)")
	t.g = addGatewayFlags(f, a)
	return t
}

func (a *app) approvalsPolicy(t *targetFlags) (approvalsPolicy, error) {
	switch {
	case t.node != "":
		return nil, usageErrorf("--node is not supported yet: run `openclaw approvals` on the node host itself, or use --gateway")
	case t.gateway:
		return gatewayPolicy{a: a, g: t.g}, nil
	}
	paths, err := cliPaths(t.g.dev)
	if err != nil {
		return nil, err
	}
	return localPolicy{store: execapprovals.New(filepath.Join(paths.StateDir, approvalsFileName))}, nil
}

// redacted is snap without the approvals socket's token, for printing.
func redacted(snap execapprovals.Snapshot) execapprovals.Snapshot {
	if snap.File.Socket != nil && snap.File.Socket.Token != "" {
		s := *snap.File.Socket
		s.Token = "__OPENCLAW_REDACTED__"
		snap.File.Socket = &s
	}
	return snap
}

func newApprovalsGetCmd(a *app) *cobra.Command {
	var t *targetFlags
	c := &cobra.Command{
		Use:   "get",
		Short: "Fetch exec approvals snapshot",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := a.approvalsPolicy(t)
			if err != nil {
				return err
			}
			snap, err := p.Get(cmd.Context())
			if err != nil {
				return err
			}
			return a.printApprovals(t.g.json, snap)
		},
	}
	t = addTargetFlags(c.Flags(), a)
	return c
}

func (a *app) printApprovals(asJSON bool, snap execapprovals.Snapshot) error {
	snap = redacted(snap)
	if asJSON {
		return writeJSON(a.stdout, snap)
	}
	w := a.stdout
	state := "exists"
	if !snap.Exists {
		state = "not written yet; built-in defaults"
	}
	fmt.Fprintf(w, "Approvals: %s (%s)\n", snap.Path, state)
	d := snap.File.Defaults
	fmt.Fprintf(w, "Defaults: security=%s ask=%s askFallback=%s\n", orDefault(d.Security, "allowlist"), orDefault(d.Ask, "on-miss"), orDefault(d.AskFallback, "deny"))
	if len(snap.File.Agents) == 0 {
		fmt.Fprintln(w, "Agents: none (the defaults apply to every agent)")
		return nil
	}
	ids := make([]string, 0, len(snap.File.Agents))
	for id := range snap.File.Agents {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tSECURITY\tASK\tPATTERN")
	for _, id := range ids {
		ag := snap.File.Agents[id]
		if len(ag.Allowlist) == 0 {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", id, orDash(ag.Security), orDash(ag.Ask), "-")
		}
		for _, e := range ag.Allowlist {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", id, orDash(ag.Security), orDash(ag.Ask), visible(e.Pattern))
		}
	}
	return tw.Flush()
}

func orDefault(s, def string) string {
	if s == "" {
		return def + " (default)"
	}
	return s
}

func newApprovalsSetCmd(a *app) *cobra.Command {
	var (
		t     *targetFlags
		file  string
		stdin bool
	)
	c := &cobra.Command{
		Use:   "set",
		Short: "Replace exec approvals with a JSON file",
		Long:  "Replace the exec approvals document with a JSON5 file (--file) or standard input (--stdin). The write fails if the document changed since it was read.",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var (
				data []byte
				from string
				err  error
			)
			switch {
			case (file != "") == stdin:
				return usageErrorf("pass either --file PATH or --stdin, not both and not neither")
			case stdin:
				from = "stdin"
				data, err = io.ReadAll(io.LimitReader(a.stdin, 4<<20))
			default:
				from = file
				data, err = os.ReadFile(file)
			}
			if err != nil {
				return fmt.Errorf("approvals set: read %s: %w", from, err)
			}
			f, err := parseApprovalsFile(data)
			if err != nil {
				return usageErrorf("approvals set: %s: %v", from, err)
			}
			p, err := a.approvalsPolicy(t)
			if err != nil {
				return err
			}
			cur, err := p.Get(cmd.Context())
			if err != nil {
				return err
			}
			snap, err := p.Set(cmd.Context(), f, cur.Hash)
			if err != nil {
				return err
			}
			if t.g.json {
				return a.printApprovals(true, snap)
			}
			fmt.Fprintf(a.stdout, "Exec approvals replaced (%s).\n", snap.Path)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&file, "file", "", "path to the JSON5 `file` to upload")
	f.BoolVar(&stdin, "stdin", false, "read the JSON5 document from stdin")
	t = addTargetFlags(f, a)
	return c
}

// parseApprovalsFile reads a JSON5 approvals document. A field the
// document does not have is an error, not silently dropped.
func parseApprovalsFile(data []byte) (execapprovals.File, error) {
	var f execapprovals.File
	obj, err := config.ParseObject(data)
	if err != nil {
		return f, fmt.Errorf("not a JSON5 object: %w", err)
	}
	std, err := json.Marshal(obj)
	if err != nil {
		return f, err
	}
	dec := json.NewDecoder(bytes.NewReader(std))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return f, fmt.Errorf("not an exec approvals document: %w", err)
	}
	if f.Version == 0 {
		f.Version = 1
	}
	if err := f.Validate(); err != nil {
		return f, err
	}
	return f, nil
}

func newAllowlistCmd(a *app, add bool) *cobra.Command {
	var (
		t     *targetFlags
		agent string
	)
	verb, short := "remove", "Remove a glob pattern from an allowlist"
	if add {
		verb, short = "add", "Add a glob pattern to an allowlist"
	}
	c := &cobra.Command{
		Use:   verb + " <pattern>",
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			pattern := strings.TrimSpace(args[0])
			if pattern == "" {
				return usageErrorf("the pattern must not be blank")
			}
			if strings.TrimSpace(agent) == "" {
				return usageErrorf("--agent must not be blank (use \"*\" for every agent)")
			}
			p, err := a.approvalsPolicy(t)
			if err != nil {
				return err
			}
			snap, err := p.Get(cmd.Context())
			if err != nil {
				return err
			}
			f := snap.File
			entry := f.Agents[agent]
			at := slices.IndexFunc(entry.Allowlist, func(e execapprovals.AllowEntry) bool { return e.Pattern == pattern })
			changed := false
			switch {
			case add && at < 0:
				entry.Allowlist = append(slices.Clone(entry.Allowlist), execapprovals.AllowEntry{Pattern: pattern, Source: "cli"})
				changed = true
			case !add && at >= 0:
				entry.Allowlist = slices.Delete(slices.Clone(entry.Allowlist), at, at+1)
				changed = true
			}
			if changed {
				agents := make(map[string]execapprovals.AgentFile, len(f.Agents)+1)
				for k, v := range f.Agents {
					agents[k] = v
				}
				agents[agent] = entry
				f.Agents = agents
				if snap, err = p.Set(cmd.Context(), f, snap.Hash); err != nil {
					return err
				}
			}
			if t.g.json {
				return a.printApprovals(true, snap)
			}
			switch {
			case !changed && add:
				fmt.Fprintf(a.stdout, "Already allowed for agent %s: %s\n", agent, visible(pattern))
			case !changed:
				fmt.Fprintf(a.stdout, "Not in the allowlist of agent %s: %s\n", agent, visible(pattern))
			case add:
				fmt.Fprintf(a.stdout, "Allowed for agent %s: %s\n", agent, visible(pattern))
			default:
				fmt.Fprintf(a.stdout, "Removed from the allowlist of agent %s: %s\n", agent, visible(pattern))
			}
			return nil
		},
	}
	c.Flags().StringVar(&agent, "agent", "*", "agent `id` (\"*\" for every agent)")
	t = addTargetFlags(c.Flags(), a)
	return c
}

// pendingApproval is one exec.approval.list entry.
type pendingApproval struct {
	ID         string `json:"id"`
	Tool       string `json:"tool"`
	Args       string `json:"args"`
	AgentID    string `json:"agentId"`
	SessionKey string `json:"sessionKey"`
	CreatedAt  int64  `json:"createdAtMs"`
	ExpiresAt  int64  `json:"expiresAtMs"`
}

func newApprovalsPendingCmd(a *app) *cobra.Command {
	var g *gatewayFlags
	c := &cobra.Command{
		Use:   "pending",
		Short: "List pending exec approvals",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var raw json.RawMessage
			if err := a.callOnce(cmd.Context(), g, "exec.approval.list", scopesFor("exec.approval.list"), map[string]any{}, &raw, false); err != nil {
				return err
			}
			var out struct {
				Approvals []pendingApproval `json:"approvals"`
			}
			if err := json.Unmarshal(raw, &out); err != nil {
				return fmt.Errorf("approvals pending: the gateway's answer is not a list of approvals: %w", err)
			}
			if g.json {
				return writeJSON(a.stdout, raw)
			}
			printPending(a.stdout, out.Approvals, time.Now())
			return nil
		},
	}
	g = addGatewayFlags(c.Flags(), a)
	return c
}

func printPending(w io.Writer, list []pendingApproval, now time.Time) {
	if len(list) == 0 {
		fmt.Fprintln(w, "No pending approvals.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tAGENT\tSESSION\tAGE\tEXPIRES\tREQUEST")
	for _, p := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", visible(clipKey(p.ID, 13)), visible(p.Tool), orDash(visible(p.AgentID)), orDash(visible(clipKey(p.SessionKey, 28))),
			shortAge(now.Sub(time.UnixMilli(p.CreatedAt))), "in "+strings.TrimSuffix(shortAge(time.UnixMilli(p.ExpiresAt).Sub(now)), " ago"), visible(clipKey(p.Args, 40)))
	}
	tw.Flush()
	// The table shortens; this block does not, so nothing hides the id to
	// resolve or the end of a command.
	fmt.Fprintln(w, "\nFull request text:")
	for _, p := range list {
		fmt.Fprintf(w, "  %s  %s %s\n", visible(p.ID), visible(p.Tool), visible(p.Args))
	}
}

// visible escapes control and other invisible characters, so a request
// cannot move the cursor, recolour the terminal or hide text.
func visible(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsPrint(r) || r == ' ' {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, "\\u{%04x}", r)
		}
	}
	return b.String()
}

// approvalDecisions are resolve's decisions.
var approvalDecisions = []string{"allow-once", "allow-always", "deny"}

func newApprovalsResolveCmd(a *app) *cobra.Command {
	var (
		g      *gatewayFlags
		reason string
	)
	c := &cobra.Command{
		Use:   "resolve <id> <decision>",
		Short: "Resolve a pending approval (allow-once, allow-always or deny)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, decision := strings.TrimSpace(args[0]), strings.TrimSpace(args[1])
			if id == "" {
				return usageErrorf("the approval id must not be blank")
			}
			if !slices.Contains(approvalDecisions, decision) {
				return usageErrorf("decision must be allow-once, allow-always or deny, got %q", decision)
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), g.timeout())
			defer cancel()
			s, err := a.connect(ctx, g, []string{string(protocol.ScopeApprovals)})
			if err != nil {
				return err
			}
			defer s.Close()
			var st struct {
				Status   string  `json:"status"`
				Decision *string `json:"decision"`
			}
			if err := s.call(ctx, "approval.get", map[string]any{"id": id}, &st, false); err != nil {
				return err
			}
			result := map[string]any{"ok": true, "id": id, "decision": decision}
			switch {
			case st.Status != "pending" && st.Decision != nil && *st.Decision == decision:
				result["alreadyResolved"] = true
			case st.Status != "pending":
				was := "no decision"
				if st.Decision != nil {
					was = *st.Decision
				}
				return fmt.Errorf("approval %s is already %s (%s); it cannot be resolved as %s", id, st.Status, was, decision)
			default:
				if err := s.call(ctx, "exec.approval.resolve", map[string]any{"id": id, "decision": decision}, nil, false); err != nil {
					return err
				}
			}
			if g.json {
				if reason != "" {
					result["reason"] = reason
				}
				return writeJSON(a.stdout, result)
			}
			if result["alreadyResolved"] == true {
				fmt.Fprintf(a.stdout, "Approval %s already resolved (same decision): %s\n", id, decision)
			} else {
				fmt.Fprintf(a.stdout, "Approval %s resolved: %s\n", id, decision)
			}
			if reason != "" {
				fmt.Fprintf(a.stdout, "Note (local only, not sent): %s\n", visible(reason))
			}
			return nil
		},
	}
	c.Flags().StringVar(&reason, "reason", "", "a local `note` for the confirmation (not sent to the gateway)")
	g = addGatewayFlags(c.Flags(), a)
	return c
}
