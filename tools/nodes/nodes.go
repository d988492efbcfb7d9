// Package nodes holds OpenClaw's `nodes` agent tool: find the node hosts
// paired with the gateway, describe them, send a notification, take a
// camera picture or clip, record the screen and read the location. It
// reaches the nodes through Gateway, which the gateway implements over its
// node registry; media the nodes send back is saved in the caller's
// workspace under nodes/<date>/ and named to the model as MEDIA:<path>
// (pictures) or FILE:<path> (videos).
//
// The `run` action (system.run) goes through the gateway's CommandRunner,
// which is exec host=node's path: the node's exec approvals and a
// person's approval where asked, never a shortcut around them.
package nodes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// Node is one node as the tool reports it.
type Node struct {
	NodeID           string   `json:"nodeId"`
	DisplayName      string   `json:"displayName,omitempty"`
	Platform         string   `json:"platform,omitempty"`
	Version          string   `json:"version,omitempty"`
	DeviceFamily     string   `json:"deviceFamily,omitempty"`
	ModelIdentifier  string   `json:"modelIdentifier,omitempty"`
	RemoteIP         string   `json:"remoteIp,omitempty"`
	Caps             []string `json:"caps"`
	Commands         []string `json:"commands"` // invocable: declared and allowed
	DeclaredCommands []string `json:"declaredCommands,omitempty"`
	Paired           bool     `json:"paired"`
	Connected        bool     `json:"connected"`
	ConnectedAtMs    int64    `json:"connectedAtMs,omitempty"`
	LastSeenAtMs     int64    `json:"lastSeenAtMs,omitempty"`
	LastSeenReason   string   `json:"lastSeenReason,omitempty"`
}

// Gateway is what the tool needs from the gateway's node registry. All
// methods may block on I/O and are called concurrently.
type Gateway interface {
	// List returns every known node, connected or not.
	List(ctx context.Context) ([]Node, error)
	// Describe returns one node by id.
	Describe(ctx context.Context, nodeID string) (Node, error)
	// Invoke runs command on a node under the gateway's command policy
	// and returns the node's payload (JSON). timeout 0 means the
	// gateway's default.
	Invoke(ctx context.Context, nodeID, command string, params any, timeout time.Duration) (json.RawMessage, error)
}

// Pairing is an optional capability of a Gateway: node pairing requests.
// Without it pending lists none and approve/reject fail.
type Pairing interface {
	PendingPairings(ctx context.Context) (any, error)
	ResolvePairing(ctx context.Context, requestID string, approve bool) (any, error)
}

// Args are the nodes tool's arguments.
type Args struct {
	Action    string `json:"action" jsonschema:"enum=status,enum=describe,enum=pending,enum=approve,enum=reject,enum=notify,enum=run,enum=camera_snap,enum=camera_clip,enum=screen_record,enum=location_get,description=What to do"`
	Node      string `json:"node,omitempty" jsonschema:"description=Node id or display name (default: the only connected node)"`
	RequestID string `json:"requestId,omitempty" jsonschema:"description=Pairing request for approve and reject"`

	Title    string `json:"title,omitempty" jsonschema:"description=notify: title"`
	Body     string `json:"body,omitempty" jsonschema:"description=notify: text"`
	Priority string `json:"priority,omitempty" jsonschema:"enum=passive,enum=active,enum=timeSensitive,description=notify: priority"`
	Delivery string `json:"delivery,omitempty" jsonschema:"enum=system,enum=overlay,enum=auto,description=notify: delivery"`

	Facing       string `json:"facing,omitempty" jsonschema:"enum=front,enum=back,description=camera_snap and camera_clip: which camera"`
	MaxWidth     int    `json:"maxWidth,omitempty" jsonschema:"description=camera_snap: largest width in pixels"`
	DurationMs   int    `json:"durationMs,omitempty" jsonschema:"description=camera_clip and screen_record: length (default 3000 ms and 10000 ms; at most 60000)"`
	IncludeAudio *bool  `json:"includeAudio,omitempty" jsonschema:"description=camera_clip and screen_record: record sound"`
	ScreenIndex  *int   `json:"screenIndex,omitempty" jsonschema:"description=screen_record: which screen"`

	MaxAgeMs        int    `json:"maxAgeMs,omitempty" jsonschema:"description=location_get: accept a fix this old"`
	DesiredAccuracy string `json:"desiredAccuracy,omitempty" jsonschema:"enum=coarse,enum=balanced,enum=precise,description=location_get: accuracy"`

	// run's fields.
	Command              []string `json:"command,omitempty" jsonschema:"description=run: the command as an argv array, such as [\"echo\",\"Hello\"]; no shell runs it"`
	Cwd                  string   `json:"cwd,omitempty" jsonschema:"description=run: absolute directory on the node"`
	Env                  []string `json:"env,omitempty" jsonschema:"description=run: extra environment as KEY=VAL entries (PATH, LD_* and similar are refused)"`
	CommandTimeoutMs     int      `json:"commandTimeoutMs,omitempty" jsonschema:"description=run: milliseconds before the node kills the command"`
	InvokeTimeoutMs      int      `json:"invokeTimeoutMs,omitempty" jsonschema:"description=How long to wait for the node (ms)"`
	NeedsScreenRecording bool     `json:"needsScreenRecording,omitempty" jsonschema:"description=run: the command needs macOS screen-recording permission"`

	tools.GatewayTarget
}

// ErrRunRefused is the answer to action run when the gateway gives the
// tool no way to run commands.
var ErrRunRefused = errors.New("nodes run is not available: commands on a node run through exec approvals; use the exec tool with host=node (and node=<id>) instead")

// CommandRunner is an optional capability of a Gateway: run, a command
// given as argv on a node, on the same path as exec host=node (the
// node's exec approvals, a person's approval where asked, the audit).
type CommandRunner interface {
	RunOnNode(ctx context.Context, c tools.Call, cmd Command) (tools.Result, error)
}

// Command is one run request as the tool takes it.
type Command struct {
	Node                 string
	Argv                 []string
	Cwd                  string
	Env                  map[string]string
	CommandTimeout       time.Duration
	InvokeTimeout        time.Duration
	NeedsScreenRecording bool
}

// parseEnv reads run's env, KEY=VAL entries.
func parseEnv(list []string) (map[string]string, error) {
	if len(list) == 0 {
		return nil, nil
	}
	env := make(map[string]string, len(list))
	for _, kv := range list {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || strings.ContainsAny(k, " \t\n\x00") {
			return nil, fmt.Errorf("run: env entry %q is not KEY=VAL", kv)
		}
		env[k] = v
	}
	return env, nil
}

func (t *tool) run(ctx context.Context, c tools.Call, a Args) (tools.Result, error) {
	r, ok := t.g.(CommandRunner)
	if !ok {
		return tools.Result{}, ErrRunRefused
	}
	env, err := parseEnv(a.Env)
	if err != nil {
		return tools.Result{}, err
	}
	return r.RunOnNode(ctx, c, Command{Node: a.Node, Argv: a.Command, Cwd: a.Cwd, Env: env,
		CommandTimeout: time.Duration(a.CommandTimeoutMs) * time.Millisecond, InvokeTimeout: time.Duration(a.InvokeTimeoutMs) * time.Millisecond,
		NeedsScreenRecording: a.NeedsScreenRecording})
}

// Limits of media actions.
const (
	maxClipMs          = 60_000
	defaultClipMs      = 3_000
	defaultRecordMs    = 10_000
	defaultMediaWaitMs = 30_000
)

// Tool returns the nodes tool. workspace maps a caller to its workspace
// directory (where media is saved); now is the clock (nil: time.Now).
func Tool(g Gateway, workspace func(tools.Who) (string, error), now func() time.Time) tools.Tool {
	if now == nil {
		now = time.Now
	}
	t := &tool{g: g, workspace: workspace, now: now}
	return tools.NewTyped(tools.Spec{
		Name: "nodes", Label: "Nodes",
		Description: "Discover and use paired nodes (phones, Macs, node hosts): status, describe, pending/approve/reject pairing, notify, run (an argv command, through the node's exec approvals), camera_snap, camera_clip, screen_record, location_get. " +
			"Pictures come back as MEDIA:<path>, videos as FILE:<path>, saved in your workspace. Run a command only when the user asked for it.",
		// Owner-only: it approves node pairing and takes pictures and the
		// location of the owner's devices.
		Source: tools.SourceCore, Groups: []string{"group:nodes"}, OwnerOnly: true, Timeout: 2 * time.Minute,
	}, t.call)
}

type tool struct {
	g         Gateway
	workspace func(tools.Who) (string, error)
	now       func() time.Time
}

// call acts on this gateway's nodes, or on another gateway's when the
// call names one (the Gateway then dials it: tools.GatewayDialer).
func (t *tool) call(ctx context.Context, c tools.Call, a Args) (tools.Result, error) {
	remote, err := a.Remote()
	if err != nil {
		return tools.Result{}, err
	}
	ctx, cancel := a.WithTimeout(ctx)
	defer cancel()
	if !remote {
		return t.act(ctx, c, a)
	}
	d, ok := t.g.(tools.GatewayDialer)
	if !ok {
		return tools.Result{}, errors.New("gatewayUrl: this gateway cannot reach other gateways")
	}
	if a.Action == "run" {
		return tools.Result{}, errRemoteRun
	}
	conn, err := d.DialGateway(ctx, a.GatewayURL, a.GatewayToken)
	if err != nil {
		return tools.Result{}, err
	}
	defer conn.Close()
	rt := *t
	rt.g = remoteGateway{conn}
	return rt.act(ctx, c, a)
}

func (t *tool) act(ctx context.Context, c tools.Call, a Args) (tools.Result, error) {
	switch a.Action {
	case "status":
		list, err := t.g.List(ctx)
		if err != nil {
			return tools.Result{}, err
		}
		return jsonResult(map[string]any{"nodes": summaries(list)})
	case "describe":
		n, err := t.resolve(ctx, a.Node)
		if err != nil {
			return tools.Result{}, err
		}
		full, err := t.g.Describe(ctx, n.NodeID)
		if err != nil {
			return tools.Result{}, err
		}
		return jsonResult(full)
	case "pending", "approve", "reject":
		return t.pairing(ctx, a)
	case "run":
		return t.run(ctx, c, a)
	case "notify":
		if strings.TrimSpace(a.Title) == "" && strings.TrimSpace(a.Body) == "" {
			return tools.Result{}, errors.New("notify needs a title or a body")
		}
		params := map[string]any{}
		setStr(params, "title", a.Title)
		setStr(params, "body", a.Body)
		setStr(params, "priority", a.Priority)
		setStr(params, "delivery", a.Delivery)
		return t.invoke(ctx, c, a, "system.notify", params, 0)
	case "camera_snap":
		params := map[string]any{"format": "jpg"}
		setStr(params, "facing", a.Facing)
		if a.MaxWidth > 0 {
			params["maxWidth"] = a.MaxWidth
		}
		return t.invoke(ctx, c, a, "camera.snap", params, 0)
	case "camera_clip":
		ms := clipMs(a.DurationMs, defaultClipMs)
		params := map[string]any{"format": "mp4", "durationMs": ms}
		setStr(params, "facing", a.Facing)
		if a.IncludeAudio != nil {
			params["includeAudio"] = *a.IncludeAudio
		}
		return t.invoke(ctx, c, a, "camera.clip", params, ms)
	case "screen_record":
		ms := clipMs(a.DurationMs, defaultRecordMs)
		params := map[string]any{"format": "mp4", "durationMs": ms}
		if a.IncludeAudio != nil {
			params["includeAudio"] = *a.IncludeAudio
		}
		if a.ScreenIndex != nil {
			params["screenIndex"] = *a.ScreenIndex
		}
		return t.invoke(ctx, c, a, "screen.record", params, ms)
	case "location_get":
		params := map[string]any{}
		if a.MaxAgeMs > 0 {
			params["maxAgeMs"] = a.MaxAgeMs
		}
		setStr(params, "desiredAccuracy", a.DesiredAccuracy)
		return t.invoke(ctx, c, a, "location.get", params, 0)
	}
	return tools.Result{}, fmt.Errorf("unknown action %q", a.Action)
}

// invoke runs command on the chosen node and turns the payload into the
// tool's text, saving any media it carries. extraMs is the recording
// length, added to the wait.
func (t *tool) invoke(ctx context.Context, c tools.Call, a Args, command string, params map[string]any, extraMs int) (tools.Result, error) {
	n, err := t.resolve(ctx, a.Node)
	if err != nil {
		return tools.Result{}, err
	}
	if !n.Connected {
		return tools.Result{}, fmt.Errorf("node %s is not connected", label(n))
	}
	if !slices.Contains(n.Commands, command) {
		return tools.Result{}, fmt.Errorf("node %s cannot run %s (invocable: %s)", label(n), command, orNone(n.Commands))
	}
	wait := time.Duration(a.InvokeTimeoutMs) * time.Millisecond
	if wait <= 0 && extraMs > 0 {
		wait = time.Duration(defaultMediaWaitMs+extraMs) * time.Millisecond
	}
	payload, err := t.g.Invoke(ctx, n.NodeID, command, params, wait)
	if err != nil {
		return tools.Result{}, fmt.Errorf("%s on %s: %w", command, label(n), err)
	}
	return t.render(c.Who, a.Action, n, payload)
}

func (t *tool) pairing(ctx context.Context, a Args) (tools.Result, error) {
	p, ok := t.g.(Pairing)
	if a.Action == "pending" {
		if !ok {
			return jsonResult(map[string]any{"pending": []any{}})
		}
		out, err := p.PendingPairings(ctx)
		if err != nil {
			return tools.Result{}, err
		}
		return jsonResult(out)
	}
	if strings.TrimSpace(a.RequestID) == "" {
		return tools.Result{}, fmt.Errorf("%s needs requestId (see action pending)", a.Action)
	}
	if !ok {
		return tools.Result{}, fmt.Errorf("unknown requestId: %s", a.RequestID)
	}
	out, err := p.ResolvePairing(ctx, a.RequestID, a.Action == "approve")
	if err != nil {
		return tools.Result{}, err
	}
	return jsonResult(out)
}

// resolve finds a node by id or display name; with none named, the only
// connected node.
func (t *tool) resolve(ctx context.Context, ref string) (Node, error) {
	list, err := t.g.List(ctx)
	if err != nil {
		return Node{}, err
	}
	ref = strings.TrimSpace(ref)
	if ref == "" {
		var live []Node
		for _, n := range list {
			if n.Connected {
				live = append(live, n)
			}
		}
		switch len(live) {
		case 1:
			return live[0], nil
		case 0:
			return Node{}, errors.New("no node is connected")
		}
		return Node{}, fmt.Errorf("%d nodes are connected; name one with node (%s)", len(live), names(live))
	}
	for _, n := range list {
		if n.NodeID == ref {
			return n, nil
		}
	}
	var byName []Node
	for _, n := range list {
		if strings.EqualFold(n.DisplayName, ref) {
			byName = append(byName, n)
		}
	}
	switch len(byName) {
	case 1:
		return byName[0], nil
	case 0:
		return Node{}, fmt.Errorf("no node %q (known: %s)", ref, names(list))
	}
	return Node{}, fmt.Errorf("%d nodes are named %q; use the node id (%s)", len(byName), ref, names(byName))
}

// summary is one line of status.
type summary struct {
	NodeID       string   `json:"nodeId"`
	DisplayName  string   `json:"displayName,omitempty"`
	Platform     string   `json:"platform,omitempty"`
	Connected    bool     `json:"connected"`
	Commands     []string `json:"commands"`
	LastSeenAtMs int64    `json:"lastSeenAtMs,omitempty"`
}

func summaries(list []Node) []summary {
	out := make([]summary, 0, len(list))
	for _, n := range list {
		cmds := n.Commands
		if cmds == nil {
			cmds = []string{}
		}
		out = append(out, summary{n.NodeID, n.DisplayName, n.Platform, n.Connected, cmds, n.LastSeenAtMs})
	}
	return out
}

func jsonResult(v any) (tools.Result, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return tools.Result{}, fmt.Errorf("encode result: %w", err)
	}
	return tools.Result{Text: string(b)}, nil
}

func clipMs(ms, def int) int {
	switch {
	case ms <= 0:
		return def
	case ms > maxClipMs:
		return maxClipMs
	}
	return ms
}

func setStr(m map[string]any, k, v string) {
	if v = strings.TrimSpace(v); v != "" {
		m[k] = v
	}
}

func label(n Node) string {
	if n.DisplayName != "" && n.DisplayName != n.NodeID {
		return fmt.Sprintf("%s (%s)", n.DisplayName, n.NodeID)
	}
	return n.NodeID
}

func names(list []Node) string {
	var out []string
	for _, n := range list {
		out = append(out, label(n))
	}
	return orNone(out)
}

func orNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}
