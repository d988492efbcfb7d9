package toolhost

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/nodes"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/canvas"
	nodestool "github.com/openclaw-go/openclaw/tools/nodes"
)

// canvases holds the canvas host (the pages served under
// /__openclaw__/canvas/) and the built-in renderer, started on first use
// once the gateway's address is known.
type canvases struct {
	host *canvas.Host

	mu       sync.Mutex
	renderer *canvas.Renderer
}

// canvasTool builds the agents' canvas tool: a canvas node when one is
// connected (or named), else the built-in headless renderer.
func (h *Host) canvasTool(workspace func(tools.Who) (string, error)) tools.Tool {
	h.canvas.host = canvas.NewHost()
	return canvas.Tool(canvasPicker{h}, workspace)
}

// canvasPrefix is where the canvas host is served, to this machine only
// (see localOnly): the pages carry what agents put there, and the
// built-in renderer is local.
const canvasPrefix = canvas.Prefix

// localRenderer returns the built-in renderer, making it on first use.
func (h *Host) localRenderer() (*canvas.Renderer, error) {
	h.canvas.mu.Lock()
	defer h.canvas.mu.Unlock()
	if h.canvas.renderer != nil {
		return h.canvas.renderer, nil
	}
	tcp, ok := h.opts.Addr().(*net.TCPAddr)
	if !ok {
		return nil, errors.New("the gateway is not listening yet")
	}
	base := fmt.Sprintf("http://127.0.0.1:%d%s", tcp.Port, canvas.Prefix)
	cfg := h.cfg().Browser
	r, err := canvas.NewRenderer(canvas.RendererConfig{
		BaseURL: base, Host: h.canvas.host, ExecPath: cfg.ExecutablePath,
		CheckURL: func(u *url.URL) error { return browserPolicy(h.cfg().Browser).CheckURL(u) },
	})
	if err != nil {
		return nil, err
	}
	h.canvas.renderer = r
	return r, nil
}

// closeCanvas stops the renderer's browser.
func (h *Host) closeCanvas() {
	h.canvas.mu.Lock()
	r := h.canvas.renderer
	h.canvas.mu.Unlock()
	if r != nil {
		r.Close()
	}
}

// canvasPicker chooses the canvas for a call.
type canvasPicker struct{ h *Host }

// localCanvasNames name the built-in renderer.
var localCanvasNames = []string{"local", "gateway", "headless"}

func (p canvasPicker) Surface(ctx context.Context, who tools.Who, node string) (canvas.Surface, error) {
	session := who.SessionKey
	if session == "" {
		session = canvas.DefaultSession
	}
	local := func() (canvas.Surface, error) {
		r, err := p.h.localRenderer()
		if err != nil {
			return nil, err
		}
		return r.Surface(session), nil
	}
	reg := p.h.opts.Nodes()
	if slices.Contains(localCanvasNames, strings.ToLower(node)) || reg == nil {
		if node != "" && !slices.Contains(localCanvasNames, strings.ToLower(node)) {
			return nil, fmt.Errorf("node %q: the node registry is not running", node)
		}
		return local()
	}
	var canvasNodes []nodes.Node
	for _, n := range reg.List(ctx) {
		if n.Connected && slices.Contains(n.Caps, "canvas") {
			canvasNodes = append(canvasNodes, n)
		}
	}
	if node == "" {
		if len(canvasNodes) == 1 {
			return nodeCanvas{nodes: reg, id: canvasNodes[0].NodeID}, nil
		}
		return local()
	}
	for _, n := range reg.List(ctx) {
		if n.NodeID == node || strings.EqualFold(n.DisplayName, node) {
			if !n.Connected {
				return nil, fmt.Errorf("node %q is not connected", node)
			}
			if !slices.ContainsFunc(n.Commands, func(c string) bool { return strings.HasPrefix(c, "canvas.") }) {
				return nil, fmt.Errorf("node %q has no canvas commands (it declares %s)", node, strings.Join(n.Commands, ", "))
			}
			return nodeCanvas{nodes: reg, id: n.NodeID}, nil
		}
	}
	return nil, fmt.Errorf("unknown node %q (use openclaw nodes status to list them, or node \"local\" for the built-in canvas)", node)
}

// RemoteSurface is the canvas of a node paired with another gateway: the
// one connected canvas node there, or the one the call names. That
// gateway's own built-in canvas is not reachable from here.
func (p canvasPicker) RemoteSurface(ctx context.Context, url, token, node string) (canvas.Surface, func(), error) {
	conn, err := gatewayDialer{}.DialGateway(ctx, url, token)
	if err != nil {
		return nil, nil, err
	}
	reg := nodestool.Remote(conn)
	list, err := reg.List(ctx)
	if err != nil {
		conn.Close()
		return nil, nil, fmt.Errorf("list the nodes of the gateway at %s: %w", url, err)
	}
	var found []nodestool.Node
	for _, n := range list {
		hasCanvas := slices.Contains(n.Caps, "canvas") ||
			slices.ContainsFunc(n.Commands, func(c string) bool { return strings.HasPrefix(c, "canvas.") })
		if !n.Connected || !hasCanvas {
			continue
		}
		if node == "" || n.NodeID == node || strings.EqualFold(n.DisplayName, node) {
			found = append(found, n)
		}
	}
	switch {
	case len(found) == 1:
		return nodeCanvas{nodes: reg, id: found[0].NodeID}, func() { conn.Close() }, nil
	case node != "":
		conn.Close()
		return nil, nil, fmt.Errorf("no connected canvas node %q on the gateway at %s", node, url)
	default:
		conn.Close()
		return nil, nil, fmt.Errorf("the gateway at %s has %d connected canvas nodes; name one with node", url, len(found))
	}
}

// canvasInvoker runs a command on a node: this gateway's registry or
// another gateway's, over its node.invoke.
type canvasInvoker interface {
	Invoke(ctx context.Context, nodeID, command string, params any, timeout time.Duration) (json.RawMessage, error)
}

// nodeCanvas is a paired node's canvas, driven with node.invoke as
// OpenClaw's node apps serve it.
type nodeCanvas struct {
	nodes canvasInvoker
	id    string
}

const nodeCanvasTimeout = 30 * time.Second

func (n nodeCanvas) invoke(ctx context.Context, command string, params any) (json.RawMessage, error) {
	return n.nodes.Invoke(ctx, n.id, command, params, nodeCanvasTimeout)
}

func (n nodeCanvas) Present(ctx context.Context, u string) error {
	params := map[string]any{}
	if u != "" {
		params["url"] = u
	}
	_, err := n.invoke(ctx, "canvas.present", params)
	return err
}

func (n nodeCanvas) Hide(ctx context.Context) error {
	_, err := n.invoke(ctx, "canvas.hide", map[string]any{})
	return err
}

func (n nodeCanvas) Navigate(ctx context.Context, u string) error {
	_, err := n.invoke(ctx, "canvas.navigate", map[string]any{"url": u})
	return err
}

func (n nodeCanvas) Eval(ctx context.Context, js string) (json.RawMessage, error) {
	out, err := n.invoke(ctx, "canvas.eval", map[string]any{"javaScript": js})
	if err != nil {
		return nil, err
	}
	var r struct {
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(out, &r) == nil && len(r.Result) > 0 {
		return r.Result, nil
	}
	return out, nil
}

func (n nodeCanvas) Snapshot(ctx context.Context) ([]byte, error) {
	out, err := n.invoke(ctx, "canvas.snapshot", map[string]any{"format": "png"})
	if err != nil {
		return nil, err
	}
	var r struct {
		Base64 string `json:"base64"`
	}
	if err := json.Unmarshal(out, &r); err != nil || r.Base64 == "" {
		return nil, fmt.Errorf("node %s sent no snapshot image", n.id)
	}
	return base64.StdEncoding.DecodeString(r.Base64)
}

func (n nodeCanvas) A2UIPush(ctx context.Context, jsonl string) error {
	_, err := n.invoke(ctx, "canvas.a2ui.pushJSONL", map[string]any{"jsonl": jsonl})
	return err
}

func (n nodeCanvas) A2UIReset(ctx context.Context) error {
	_, err := n.invoke(ctx, "canvas.a2ui.reset", map[string]any{})
	return err
}
