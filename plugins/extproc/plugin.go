package extproc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/plugins/procgroup"
	"github.com/openclaw-go/openclaw/plugins/stderrlog"
	"github.com/openclaw-go/openclaw/plugins/supervisor"
	"github.com/openclaw-go/openclaw/tools"
)

// State is where a plugin's process is.
type State string

const (
	StateStarting   State = "starting"
	StateReady      State = "ready"
	StateRestarting State = "restarting" // it failed or died; waiting out the backoff
	StateStopped    State = "stopped"
)

// Status reports one plugin.
type Status struct {
	ID       string
	State    State
	Error    string // the last failure, cleared when it is ready again
	Tools    int
	PID      int
	Restarts int
	Since    time.Time
}

// states names the supervisor's states as Status shows them.
var states = [...]State{
	supervisor.Starting: StateStarting,
	supervisor.Ready:    StateReady,
	supervisor.Down:     StateRestarting,
	supervisor.Stopped:  StateStopped,
}

// proc is the supervised process of one plugin.
type proc struct {
	plug         Plugin
	log          *slog.Logger
	unit         *supervisor.Unit // runs runOnce, restarting it with backoff
	startTimeout time.Duration
	changed      func()

	mu     sync.Mutex
	client *rpcClient
	pid    int
	tools  []tools.Tool
	hooks  []HookDef
}

func (p *proc) status() Status {
	u := p.unit.Status()
	p.mu.Lock()
	defer p.mu.Unlock()
	return Status{
		ID: p.plug.Manifest.ID, State: states[u.State], Error: u.Error,
		Tools: len(p.tools), PID: p.pid, Restarts: u.Restarts, Since: u.Since,
	}
}

func (p *proc) toolList() []tools.Tool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.tools)
}

// current returns the live client and its hooks; nil while down.
func (p *proc) current() (*rpcClient, []HookDef) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.client, p.hooks
}

// runOnce runs one process: start, initialize, serve until it ends. It
// calls ready once the plugin has registered.
func (p *proc) runOnce(ctx context.Context, ready func()) (err error) {
	m := p.plug.Manifest
	cmd := exec.CommandContext(ctx, m.commandPath(), m.Args...)
	cmd.Dir = m.Dir
	cmd.Env = os.Environ()
	for k, v := range m.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, "OPENCLAW_PLUGIN_ID="+m.ID)
	cmd.Stderr = stderrlog.New(p.log, "plugin stderr")
	// How long a stopped plugin gets to leave after its stdin closes
	// before it is killed (and its pipes closed, so Wait cannot hang).
	cmd.WaitDelay = time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("start: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("start: %w", err)
	}
	// Stopping asks politely first: stdin closes, and WaitDelay later the
	// process is killed if it has not left.
	cmd.Cancel = stdin.Close
	// Its own process group, so that what it starts ends with it.
	procgroup.Own(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start: %w", err)
	}

	listChanged := make(chan struct{}, 1)
	client := newRPCClient(stdin, func(method string, _ json.RawMessage) {
		if method == NotifyToolsChanged {
			// Listing from the read loop would deadlock it; the serve
			// loop below does it.
			select {
			case listChanged <- struct{}{}:
			default:
			}
		}
	})
	go client.readLoop(stdout)
	p.mu.Lock()
	p.pid = cmd.Process.Pid
	p.mu.Unlock()

	defer func() {
		p.mu.Lock()
		p.client, p.pid = nil, 0
		p.mu.Unlock()
		stdin.Close()
		// Give it a moment to leave on its own after EOF, then end it
		// and everything it started (SIGTERM, then SIGKILL), reaping it
		// meanwhile so that its exit is seen at once.
		select {
		case <-client.done:
		case <-time.After(time.Second):
		}
		waited := make(chan error, 1)
		go func() { waited <- cmd.Wait() }()
		procgroup.Stop(cmd.Process.Pid, procgroup.Grace)
		werr := <-waited
		switch {
		case err == nil:
			err = fmt.Errorf("%w: %v", ErrPluginExited, werr)
		case werr != nil && ctx.Err() == nil:
			// The exit status says more than the EOF that revealed it.
			err = fmt.Errorf("%w (%v)", err, werr)
		}
	}()

	ictx, cancel := context.WithTimeout(ctx, p.startTimeout)
	var init InitializeResult
	config := p.plug.Config
	if len(config) == 0 {
		config = json.RawMessage(`{}`)
	}
	err = client.call(ictx, MethodInitialize, InitializeParams{ProtocolVersion: ProtocolVersion, PluginID: m.ID, Config: config}, &init)
	cancel()
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	hooks := validHooks(p.log, init.Hooks)
	p.mu.Lock()
	p.client, p.hooks = client, hooks
	p.tools = p.makeTools(init.Tools)
	p.mu.Unlock()
	ready()
	p.log.Info("plugin ready", "tools", len(init.Tools), "hooks", len(hooks), "pid", cmd.Process.Pid)
	p.changed()

	for {
		select {
		case <-ctx.Done():
			return nil
		case <-client.done:
			return client.err
		case <-listChanged:
			lctx, cancel := context.WithTimeout(ctx, p.startTimeout)
			var list ToolsListResult
			err := client.call(lctx, MethodToolsList, struct{}{}, &list)
			cancel()
			if err != nil {
				if errors.Is(err, ErrPluginExited) || ctx.Err() != nil {
					continue // the cases above end this run
				}
				p.log.Warn("plugin tools/list failed; keeping the old list", "err", err)
				continue
			}
			p.mu.Lock()
			p.tools = p.makeTools(list.Tools)
			p.mu.Unlock()
			p.changed()
		}
	}
}

// validHooks drops hook registrations we cannot honour, saying so.
func validHooks(log *slog.Logger, hs []HookDef) []HookDef {
	var out []HookDef
	for _, h := range hs {
		if h.On != tools.HookBeforeTool && h.On != tools.HookAfterTool {
			log.Warn("plugin hook ignored: on must be before_tool or after_tool", "on", h.On)
			continue
		}
		if h.Tool == "" {
			h.Tool = "*"
		}
		out = append(out, h)
	}
	return out
}
