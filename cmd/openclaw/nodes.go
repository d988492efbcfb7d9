package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// nodesSubcommands are `openclaw nodes ...`.
var nodesSubcommands = map[string]func(ctx context.Context, a *app, args []string) error{
	"status":   runNodesList,
	"list":     runNodesList,
	"describe": runNodesDescribe,
	"rename":   runNodesRename,
	"invoke":   runNodesInvoke,
	"pending":  runNodesPending,
	"approve":  runNodesRequest("approve"),
	"reject":   runNodesRequest("reject"),
	"canvas":   runNodesCanvas,
}

// runNodes serves `openclaw nodes status|list|describe|rename|invoke|pending|approve|reject`.
//
// Scopes the commands ask for: node.list and node.describe read;
// node.rename and the node.pair.* methods pairing; approving a command
// surface that may include system.run is an admin act, as with devices
// approve; node.invoke write (admin for the commands that reach the
// node's files or browser).
//
// NODE is a node id, a display name or a unique id prefix (see pickNode).
func runNodes(ctx context.Context, a *app, args []string) error {
	sub, rest, err := subcommand("nodes", args, nodesSubcommands)
	if err != nil {
		return err
	}
	a.cmd = "nodes " + args[0]
	return sub(ctx, a, rest)
}

func runNodesList(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw "+a.cmd+" [--connected] [--last-connected DURATION] [gateway flags]")
	g := fs.gatewayFlags()
	connected := fs.Bool("connected", false, "only connected nodes")
	lastConnected := fs.String("last-connected", "", "only nodes connected within this `duration` (e.g. 24h, 30m, 7d)")
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	filter := nodeFilter{connectedOnly: *connected, now: time.Now()}
	if fs.Changed("last-connected") {
		// The same duration grammar as OpenClaw's (and cron's): 24h, 7d, 1h30m.
		d, err := parseCronDuration("--last-connected", *lastConnected)
		if err != nil {
			return err
		}
		filter.within = d
	}
	var out json.RawMessage
	if err := a.callOnce(ctx, g, "node.list", readScope, map[string]any{}, &out, false); err != nil {
		return err
	}
	if g.json {
		if filter.active() {
			filtered, err := filter.apply(out)
			if err != nil {
				return err
			}
			return writeJSON(a.stdout, filtered)
		}
		return writeJSON(a.stdout, out)
	}
	return formatNodes(a.stdout, out, filter)
}

// nodeFilter is --connected and --last-connected of nodes list.
type nodeFilter struct {
	connectedOnly bool
	within        time.Duration // 0: any time
	now           time.Time
}

func (f nodeFilter) active() bool { return f.connectedOnly || f.within > 0 }

// keep reports whether n passes: connected if asked, and last connected
// (or connected now since) within the duration, as the real CLI counts.
func (f nodeFilter) keep(n nodeEntry) bool {
	if f.connectedOnly && !n.Connected {
		return false
	}
	if f.within == 0 {
		return true
	}
	at := cmp.Or(n.LastConnectedAtMs, n.ConnectedAtMs)
	return at > 0 && f.now.Sub(time.UnixMilli(at)) <= f.within
}

// apply filters the nodes of a node.list answer, keeping its other fields.
func (f nodeFilter) apply(raw json.RawMessage) (json.RawMessage, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("decode node list: %w", err)
	}
	var list []json.RawMessage
	if doc["nodes"] != nil {
		if err := json.Unmarshal(doc["nodes"], &list); err != nil {
			return nil, fmt.Errorf("decode node list: %w", err)
		}
	}
	kept := []json.RawMessage{}
	for _, item := range list {
		var n nodeEntry
		if json.Unmarshal(item, &n) == nil && f.keep(n) {
			kept = append(kept, item)
		}
	}
	b, err := json.Marshal(kept)
	if err != nil {
		return nil, err
	}
	doc["nodes"] = b
	return json.Marshal(doc)
}

func runNodesDescribe(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw nodes describe NODE [gateway flags]")
	g := fs.gatewayFlags()
	pos, err := fs.parse(args, 1, 1)
	if err != nil {
		return err
	}
	var out json.RawMessage
	params := func(id string) map[string]any { return map[string]any{"nodeId": id} }
	if _, err := a.callNode(ctx, g, "node.describe", readScope, pos[0], params, &out); err != nil {
		return err
	}
	if g.json {
		return writeJSON(a.stdout, out)
	}
	return formatNode(a.stdout, out)
}

func runNodesRename(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw nodes rename NODE NAME [gateway flags]")
	g := fs.gatewayFlags()
	pos, err := fs.parse(args, 2, 2)
	if err != nil {
		return err
	}
	name := strings.TrimSpace(pos[1])
	if name == "" {
		return usageErrorf("the new name is empty")
	}
	var out json.RawMessage
	params := func(id string) map[string]any { return map[string]any{"nodeId": id, "displayName": name} }
	id, err := a.callNode(ctx, g, "node.rename", pairingScope, pos[0], params, &out)
	if err != nil {
		return err
	}
	if g.json {
		return writeJSON(a.stdout, out)
	}
	fmt.Fprintf(a.stdout, "Renamed node %s to %q\n", id, name)
	return nil
}

// approvalOnlyCommands run on a node only through exec approvals; the
// real CLI refuses them too.
var approvalOnlyCommands = map[string]bool{"system.run": true, "system.run.prepare": true}

// Commands that reach the node's files or browser need operator.admin
// over node.invoke.
func invokeNeedsAdmin(command string) bool {
	return strings.HasPrefix(command, "browser.proxy") || command == "fs.listDir" || command == "terminal.upload"
}

// invokeGrace is how much longer the CLI waits than the node may take, so
// the gateway's own TIMEOUT answer arrives first.
const invokeGrace = 2 * time.Second

func runNodesInvoke(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw nodes invoke NODE COMMAND [--params JSON] [--invoke-timeout MS] [gateway flags]")
	g := fs.gatewayFlags()
	nodeFlag := fs.String("node", "", "node `id` or name (instead of the first argument)")
	commandFlag := fs.String("command", "", "`command` to invoke (instead of the second argument)")
	paramsFlag := fs.String("params", "", "command params as a JSON `object`")
	invokeTimeout := fs.Int("invoke-timeout", 0, "how long the node may take, in `ms` (default: --timeout)")
	pos, err := fs.parse(args, 0, 2)
	if err != nil {
		return err
	}
	nodeID, command := *nodeFlag, *commandFlag
	for _, p := range pos {
		switch {
		case nodeID == "":
			nodeID = p
		case command == "":
			command = p
		default:
			return usageErrorf("unexpected argument %q (usage: %s)", p, fs.usage)
		}
	}
	nodeID, command = strings.TrimSpace(nodeID), strings.TrimSpace(command)
	if nodeID == "" || command == "" {
		return usageErrorf("missing argument (usage: %s)", fs.usage)
	}
	if approvalOnlyCommands[command] {
		return usageErrorf("%s is refused: commands on a node run only through exec approvals (an agent's exec with host=node), not nodes invoke", command)
	}
	params := map[string]any{"command": command, "idempotencyKey": uuid.NewString()}
	if *paramsFlag != "" {
		var obj map[string]any
		if err := json.Unmarshal([]byte(*paramsFlag), &obj); err != nil || obj == nil {
			return usageErrorf("--params must be a JSON object")
		}
		params["params"] = json.RawMessage(*paramsFlag)
	}
	if *invokeTimeout < 0 {
		return usageErrorf("--invoke-timeout must not be negative")
	}
	nodeMs := *invokeTimeout
	if nodeMs == 0 {
		nodeMs = g.timeoutMs
	}
	params["timeoutMs"] = nodeMs
	if min := nodeMs + int(invokeGrace.Milliseconds()); g.timeoutMs > 0 && g.timeoutMs < min {
		g.timeoutMs = min
	}
	scopes := writeScope
	if invokeNeedsAdmin(command) {
		scopes = adminScope
	}
	var out json.RawMessage
	withNode := func(id string) map[string]any {
		params["nodeId"] = id
		return params
	}
	if nodeID, err = a.callNode(ctx, g, "node.invoke", scopes, nodeID, withNode, &out); err != nil {
		return err
	}
	if g.json {
		return writeJSON(a.stdout, out)
	}
	var res struct {
		Payload json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return writeJSON(a.stdout, out)
	}
	if len(res.Payload) == 0 || string(res.Payload) == "null" {
		fmt.Fprintf(a.stdout, "Invoked %s on %s (no payload)\n", command, nodeID)
		return nil
	}
	return writeJSON(a.stdout, res.Payload)
}

func runNodesPending(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw nodes pending [gateway flags]")
	g := fs.gatewayFlags()
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	var out json.RawMessage
	if err := a.callOnce(ctx, g, "node.pair.list", pairingScope, map[string]any{}, &out, false); err != nil {
		return err
	}
	if g.json {
		return writeJSON(a.stdout, out)
	}
	return formatNodePairing(a.stdout, out)
}

// callNode connects once, resolves ref to a node id through node.list
// (an id, a display name or a unique id prefix; anything else is passed on
// for the gateway to judge), then runs method with params(id). It returns
// the id, all within --timeout.
func (a *app) callNode(ctx context.Context, g *gatewayFlags, method string, scopes []string, ref string, params func(id string) map[string]any, out any) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, g.timeout())
	defer cancel()
	if !protocol.SubsetOf(readScope, scopes) {
		scopes = append(slices.Clone(scopes), readScope...)
	}
	s, err := a.connect(ctx, g, scopes)
	if err != nil {
		return "", err
	}
	defer s.Close()
	var list struct{ Nodes []nodeEntry }
	if err := s.call(ctx, "node.list", map[string]any{}, &list, false); err != nil {
		return "", err
	}
	id, err := pickNode(list.Nodes, ref)
	if err != nil {
		return "", err
	}
	return id, s.call(ctx, method, params(id), out, false)
}

// pickNode finds ref among nodes: an exact id, else one node of that
// display name (any case), else one node whose id starts with ref (at
// least 6 characters). An unknown ref is returned as it is.
func pickNode(nodes []nodeEntry, ref string) (string, error) {
	ref = strings.TrimSpace(ref)
	for _, n := range nodes {
		if n.NodeID == ref {
			return ref, nil
		}
	}
	var named, prefixed []string
	for _, n := range nodes {
		if strings.EqualFold(n.DisplayName, ref) {
			named = append(named, n.NodeID)
		}
		if len(ref) >= 6 && strings.HasPrefix(n.NodeID, ref) {
			prefixed = append(prefixed, n.NodeID)
		}
	}
	for _, ids := range [][]string{named, prefixed} {
		switch len(ids) {
		case 0:
			continue
		case 1:
			return ids[0], nil
		}
		return "", usageErrorf("%q matches %d nodes (%s); use the node id", ref, len(ids), strings.Join(ids, ", "))
	}
	return ref, nil
}

// runNodesRequest serves approve and reject of a node pairing request.
// The gateway's refusal (an unknown request id) is reported as it is.
func runNodesRequest(verb string) func(context.Context, *app, []string) error {
	return func(ctx context.Context, a *app, args []string) error {
		fs := newFlagSet(a, "openclaw nodes "+verb+" REQUEST_ID [gateway flags]")
		g := fs.gatewayFlags()
		pos, err := fs.parse(args, 1, 1)
		if err != nil {
			return err
		}
		scopes := pairingScope
		if verb == "approve" {
			scopes = pairingAdminScope
		}
		var out json.RawMessage
		if err := a.callOnce(ctx, g, "node.pair."+verb, scopes, map[string]any{"requestId": pos[0]}, &out, false); err != nil {
			return err
		}
		if g.json {
			return writeJSON(a.stdout, out)
		}
		var res struct {
			NodeID string `json:"nodeId"`
			Node   struct {
				NodeID string `json:"nodeId"`
			} `json:"node"`
		}
		_ = json.Unmarshal(out, &res)
		node := cmp.Or(res.Node.NodeID, res.NodeID, "(unknown node)")
		past := map[string]string{"approve": "Approved", "reject": "Rejected"}[verb]
		fmt.Fprintf(a.stdout, "%s node %s (request %s)\n", past, node, pos[0])
		return nil
	}
}

// nodeEntry is one node of node.list and node.describe.
type nodeEntry struct {
	NodeID, DisplayName, Platform, Version, ClientID, RemoteIP, ApprovalState, LastSeenReason string
	DeviceFamily, ModelIdentifier                                                             string
	Caps, Commands, DeclaredCommands                                                          []string
	Paired, Connected                                                                         bool
	ConnectedAtMs, LastSeenAtMs, LastConnectedAtMs                                            int64
}

// formatNodes prints node.list as a table.
func formatNodes(w io.Writer, raw json.RawMessage, f nodeFilter) error {
	var l struct{ Nodes []nodeEntry }
	if err := json.Unmarshal(raw, &l); err != nil {
		return fmt.Errorf("decode node list: %w", err)
	}
	var rows []nodeEntry
	for _, n := range l.Nodes {
		if f.keep(n) {
			rows = append(rows, n)
		}
	}
	if len(rows) == 0 {
		fmt.Fprintln(w, "No nodes.")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tPLATFORM\tCONNECTED\tCOMMANDS\tLAST SEEN")
	for _, n := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", n.NodeID, orDash(n.DisplayName), orDash(n.Platform),
			yesNo(n.Connected), len(n.Commands), msTime(n.LastSeenAtMs))
	}
	return tw.Flush()
}

// formatNode prints node.describe as "label: value" lines.
func formatNode(w io.Writer, raw json.RawMessage) error {
	var n nodeEntry
	if err := json.Unmarshal(raw, &n); err != nil {
		return fmt.Errorf("decode node: %w", err)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	line := func(k, v string) { fmt.Fprintf(tw, "%s:\t%s\n", k, v) }
	line("Node", n.NodeID)
	line("Name", orDash(n.DisplayName))
	line("Platform", orDash(strings.TrimSpace(n.Platform+" "+n.DeviceFamily+" "+n.ModelIdentifier)))
	line("Version", orDash(n.Version))
	line("Client", orDash(n.ClientID))
	line("Remote IP", orDash(n.RemoteIP))
	line("Paired", yesNo(n.Paired))
	line("Connected", yesNo(n.Connected))
	if n.Connected {
		line("Connected at", msTime(n.ConnectedAtMs))
	}
	seen := msTime(n.LastSeenAtMs)
	if n.LastSeenReason != "" {
		seen += " (" + n.LastSeenReason + ")"
	}
	line("Last seen", seen)
	line("Approval", orDash(n.ApprovalState))
	line("Caps", orDash(strings.Join(n.Caps, ", ")))
	line("Commands", orDash(strings.Join(n.Commands, ", ")))
	if len(n.DeclaredCommands) > len(n.Commands) {
		line("Declared", strings.Join(n.DeclaredCommands, ", "))
	}
	return tw.Flush()
}

// formatNodePairing prints node.pair.list: pending requests, then paired
// nodes.
func formatNodePairing(w io.Writer, raw json.RawMessage) error {
	var l struct {
		Pending []struct {
			RequestID, NodeID, DisplayName, Platform string
			Commands                                 []string
		}
		Paired []nodeEntry
	}
	if err := json.Unmarshal(raw, &l); err != nil {
		return fmt.Errorf("decode node pairing list: %w", err)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "Pending requests: %d\n", len(l.Pending))
	if len(l.Pending) > 0 {
		fmt.Fprintln(tw, "REQUEST\tNODE\tNAME\tPLATFORM\tCOMMANDS")
		for _, p := range l.Pending {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.RequestID, orDash(p.NodeID), orDash(p.DisplayName),
				orDash(p.Platform), orDash(strings.Join(p.Commands, ",")))
		}
	}
	fmt.Fprintf(tw, "\nPaired nodes: %d\n", len(l.Paired))
	if len(l.Paired) > 0 {
		fmt.Fprintln(tw, "ID\tNAME\tPLATFORM\tCONNECTED")
		for _, n := range l.Paired {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", n.NodeID, orDash(n.DisplayName), orDash(n.Platform), yesNo(n.Connected))
		}
	}
	return tw.Flush()
}

func yesNo(b bool) string { return map[bool]string{true: "yes", false: "no"}[b] }

// msTime prints a Unix millisecond time in UTC to the second, or "-".
func msTime(ms int64) string {
	if ms <= 0 {
		return "-"
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05Z")
}
