package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openclaw-go/openclaw/plugins/procgroup"
	"github.com/openclaw-go/openclaw/plugins/stderrlog"
	"github.com/openclaw-go/openclaw/plugins/supervisor"
	"github.com/openclaw-go/openclaw/tools"
)

// ServerConfig is one MCP server the gateway connects to. Exactly one of
// Command (stdio) and URL (streamable HTTP) is set.
type ServerConfig struct {
	// Name identifies the server; it prefixes its tools' names.
	Name string
	// Command and Args start a stdio server; Env is added to the gateway's
	// environment and Cwd is its working directory (default: the gateway's).
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string
	// URL is a streamable HTTP endpoint; Headers are sent with every
	// request (e.g. Authorization).
	URL     string
	Headers map[string]string
	// Enabled false keeps the server configured but stopped; nil means true.
	Enabled *bool
	// ConnectTimeout bounds starting and initializing a session (default
	// 30 s); RequestTimeout bounds one tool call (default 60 s).
	ConnectTimeout, RequestTimeout time.Duration
	// Include and Exclude are globs (path.Match) on the server's own tool
	// names; no Include means all, Exclude wins.
	Include, Exclude []string
}

// Defaults for ServerConfig's timeouts.
const (
	DefaultConnectTimeout = 30 * time.Second
	DefaultRequestTimeout = 60 * time.Second
)

func (c ServerConfig) enabled() bool { return c.Enabled == nil || *c.Enabled }

func (c ServerConfig) transport() string {
	if c.URL != "" {
		return "http"
	}
	return "stdio"
}

func (c ServerConfig) validate() error {
	switch {
	case c.Name == "":
		return errors.New("mcp server: empty name")
	case c.Command == "" && c.URL == "":
		return fmt.Errorf("mcp server %q: neither command nor url set", c.Name)
	case c.Command != "" && c.URL != "":
		return fmt.Errorf("mcp server %q: both command and url set", c.Name)
	}
	for _, g := range append(slices.Clone(c.Include), c.Exclude...) {
		if _, err := pathMatch(g); err != nil {
			return fmt.Errorf("mcp server %q: tool filter %q: %w", c.Name, g, err)
		}
	}
	return nil
}

func (c ServerConfig) connectTimeout() time.Duration {
	if c.ConnectTimeout > 0 {
		return c.ConnectTimeout
	}
	return DefaultConnectTimeout
}

func (c ServerConfig) requestTimeout() time.Duration {
	if c.RequestTimeout > 0 {
		return c.RequestTimeout
	}
	return DefaultRequestTimeout
}

// State is where a server's connection is.
type State string

const (
	StateConnecting State = "connecting"
	StateReady      State = "ready"
	// StateFailed means the last attempt failed or the session died; a
	// restart is scheduled.
	StateFailed  State = "failed"
	StateStopped State = "stopped"
)

// ServerStatus is what status and the UI show about one server.
type ServerStatus struct {
	Name      string
	Transport string // "stdio" or "http"
	State     State
	Error     string // the last failure, kept while reconnecting
	Tools     int
	PID       int // the child process of a stdio server, 0 otherwise
	Since     time.Time
	// Restarts counts sessions started after the first.
	Restarts int
}

// keepAlive is how often an idle session is pinged.
var keepAlive = 30 * time.Second

// states names the supervisor's states as status shows them.
var states = [...]State{
	supervisor.Starting: StateConnecting,
	supervisor.Ready:    StateReady,
	supervisor.Down:     StateFailed,
	supervisor.Stopped:  StateStopped,
}

// conn is the supervised session with one server.
type conn struct {
	cfg     ServerConfig
	log     *slog.Logger
	unit    *supervisor.Unit // runs runSession, restarting it with backoff
	changed func()           // the tool set may have changed

	mu      sync.Mutex
	session *sdk.ClientSession
	pid     int
	tools   []tools.Tool
}

func (c *conn) status() ServerStatus {
	u := c.unit.Status()
	c.mu.Lock()
	defer c.mu.Unlock()
	return ServerStatus{
		Name: c.cfg.Name, Transport: c.cfg.transport(), State: states[u.State], Error: u.Error,
		Tools: len(c.tools), PID: c.pid, Since: u.Since, Restarts: u.Restarts,
	}
}

func (c *conn) toolList() []tools.Tool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.tools)
}

func (c *conn) current() *sdk.ClientSession {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session
}

// runSession runs one session: connect, list tools, serve until it ends.
// It calls ready once it has listed the tools.
func (c *conn) runSession(ctx context.Context, ready func()) error {
	listChanged := make(chan struct{}, 1)
	client := sdk.NewClient(&sdk.Implementation{Name: "openclaw", Version: "1"}, &sdk.ClientOptions{
		// No roots, sampling or elicitation: the gateway only calls tools.
		Capabilities: &sdk.ClientCapabilities{},
		// An HTTP server that goes away is otherwise only noticed by the
		// next call; pinging turns it into state (and a reconnect) sooner.
		KeepAlive: keepAlive,
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			// Listing from inside a notification handler could stall the
			// session's reader; the session loop does it instead.
			select {
			case listChanged <- struct{}{}:
			default:
			}
		},
	})
	t, cmd := c.transport()
	cctx, cancel := context.WithTimeout(ctx, c.cfg.connectTimeout())
	defer cancel()
	cs, err := client.Connect(cctx, t, nil)
	if cmd != nil && cmd.Process != nil {
		// Runs after cs.Close below, which lets the server leave and
		// waits for it: then whatever it started goes too, whether the
		// server was removed, restarted, stopped with the gateway or
		// died on its own.
		defer procgroup.Stop(cmd.Process.Pid, procgroup.Grace)
	}
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer cs.Close()
	if cmd != nil && cmd.Process != nil {
		c.mu.Lock()
		c.pid = cmd.Process.Pid
		c.mu.Unlock()
	}
	defer func() {
		c.mu.Lock()
		c.session, c.pid = nil, 0
		c.mu.Unlock()
	}()
	err = c.refresh(cctx, cs)
	cancel()
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.session = cs
	c.mu.Unlock()
	ready()
	c.log.Info("mcp server ready", "tools", len(c.toolList()))

	ended := make(chan error, 1)
	go func() { ended <- cs.Wait() }()
	for {
		select {
		case <-ctx.Done():
			cs.Close()
			<-ended
			return ctx.Err()
		case err := <-ended:
			if err == nil {
				err = errors.New("session closed by server")
			}
			return fmt.Errorf("session ended: %w", err)
		case <-listChanged:
			lctx, cancel := context.WithTimeout(ctx, c.cfg.requestTimeout())
			err := c.refresh(lctx, cs)
			cancel()
			if err != nil {
				c.log.Warn("mcp tools/list after list_changed", "err", err)
			}
		}
	}
}

// refresh lists the server's tools and replaces the conn's tool set.
func (c *conn) refresh(ctx context.Context, cs *sdk.ClientSession) error {
	var list []tools.Tool
	seen := map[string]bool{}
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("list tools: %w", err)
		}
		if !keepTool(t.Name, c.cfg.Include, c.cfg.Exclude) {
			continue
		}
		name := toolName(c.cfg.Name, t.Name)
		if seen[lower(name)] {
			// Two remote names sanitized alike (registry names are
			// case-insensitive): tell them apart by the original.
			name = toolName(c.cfg.Name, sanitize(t.Name)+"_"+shortHash(t.Name))
		}
		seen[lower(name)] = true
		list = append(list, c.newTool(name, t))
	}
	c.mu.Lock()
	c.tools = list
	c.mu.Unlock()
	c.changed()
	return nil
}

// transport builds the SDK transport for the config; cmd is the child
// process of a stdio server, started by Connect.
func (c *conn) transport() (sdk.Transport, *exec.Cmd) {
	if c.cfg.URL != "" {
		hc := &http.Client{Transport: headerTransport{base: http.DefaultTransport, headers: c.cfg.Headers}}
		return &sdk.StreamableClientTransport{Endpoint: c.cfg.URL, HTTPClient: hc}, nil
	}
	cmd := exec.Command(c.cfg.Command, c.cfg.Args...)
	cmd.Dir = c.cfg.Cwd
	cmd.Env = os.Environ()
	for _, k := range slices.Sorted(maps.Keys(c.cfg.Env)) {
		cmd.Env = append(cmd.Env, k+"="+c.cfg.Env[k])
	}
	// The server's stderr is its log; it goes to ours, attributed.
	cmd.Stderr = stderrlog.New(c.log, "mcp server stderr")
	// A child of the server that keeps stderr open must not keep Wait,
	// and so the SDK's Close, from returning once the server has exited.
	cmd.WaitDelay = time.Second
	procgroup.Own(cmd)
	return &sdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, cmd
}

// headerTransport adds configured headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range h.headers {
			r.Header.Set(k, v)
		}
	}
	return h.base.RoundTrip(r)
}

// remoteTool is one tool of an MCP server.
type remoteTool struct {
	conn   *conn
	remote string
	spec   tools.Spec
}

var _ tools.Tool = (*remoteTool)(nil)

// newTool makes the registry tool of one server tool. It is dangerous
// (a non-owner's call waits for a person, unless a guard rule decides)
// unless the server marks it read-only: MCP servers run programs, write
// files and call services for whoever asks, and a chat stranger must not
// get through one of them what exec would have asked about. MCP's own
// default for a tool without annotations is "may destroy".
func (c *conn) newTool(name string, t *sdk.Tool) *remoteTool {
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	return &remoteTool{conn: c, remote: t.Name, spec: tools.Spec{
		Name:        name,
		Label:       t.Title,
		Description: "[mcp:" + c.cfg.Name + "] " + desc,
		Parameters:  objectSchema(t.InputSchema),
		Tier:        tools.TierExtension,
		Dangerous:   t.Annotations == nil || !t.Annotations.ReadOnlyHint,
		Timeout:     c.cfg.requestTimeout(),
		Source:      tools.SourceMCP,
		Groups:      []string{"group:plugins", "mcp:" + c.cfg.Name},
	}}
}

func (t *remoteTool) Spec() tools.Spec { return t.spec }

// Call runs tools/call on the server's current session. A server that is
// down answers at once with an error result rather than waiting for the
// reconnect, so a turn never hangs on it.
func (t *remoteTool) Call(ctx context.Context, call tools.Call) (tools.Result, error) {
	cs := t.conn.current()
	if cs == nil {
		return t.down(), nil
	}
	ctx, cancel := context.WithTimeout(ctx, t.conn.cfg.requestTimeout())
	defer cancel()
	args := call.Args
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: t.remote, Arguments: args})
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, fmt.Errorf("mcp tool %s on server %q: %w", t.remote, t.conn.cfg.Name, ctx.Err())
		}
		if transportFailed(err) {
			// Closing makes the session loop notice and reconnect.
			t.conn.log.Warn("mcp call failed; reconnecting", "tool", t.remote, "err", err)
			cs.Close()
			return t.down(), nil
		}
		return tools.Result{}, fmt.Errorf("mcp tool %s on server %q: %w", t.remote, t.conn.cfg.Name, err)
	}
	return toResult(res), nil
}

// JSON-RPC codes the SDK uses for failures on our side of the wire.
const (
	codeClientClosing = -32003
	codeServerClosing = -32004
	codeRejected      = -32005 // the transport refused to send: HTTP error, refused connection
)

// transportFailed tells a broken session (a dead process, an HTTP server
// that went away or forgot our session) from an answer the server gave.
func transportFailed(err error) bool {
	if errors.Is(err, sdk.ErrConnectionClosed) {
		return true
	}
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) {
		return true
	}
	switch rpcErr.Code {
	case codeClientClosing, codeServerClosing, codeRejected:
		return true
	}
	return false
}

func (t *remoteTool) down() tools.Result {
	st := t.conn.status()
	msg := fmt.Sprintf("MCP server %q is not connected (%s); it is reconnecting, try again later", st.Name, st.State)
	if st.State == StateStopped {
		msg = fmt.Sprintf("MCP server %q was stopped", st.Name)
	}
	if st.Error != "" {
		msg += ": last error: " + st.Error
	}
	return tools.Result{Text: msg, IsError: true}
}
