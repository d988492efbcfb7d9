// Package canvas holds OpenClaw's `canvas` agent tool and the built-in
// canvas it drives when no node shows one.
//
// A canvas is a web page on a surface: a paired node's window (reached by
// the gateway through node.invoke canvas.*) or this package's headless
// Chromium Renderer. The tool talks to either through Surface, chosen per
// call by a gateway-implemented Picker. Host serves the canvas page under
// Prefix and keeps each session's A2UI v0.8 messages; the page long-polls
// it and draws them. ParseJSONL validates A2UI input and refuses v0.9.
//
// Snapshots are saved in the caller's workspace under canvas/<date>/ and
// named to the model as MEDIA:<path>.
package canvas

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// Surface is one canvas. Methods may block on I/O and are called from
// concurrent tool calls; an implementation serialises them as it needs.
type Surface interface {
	// Present shows the canvas, on url when it is not empty.
	Present(ctx context.Context, url string) error
	// Hide takes the canvas off screen.
	Hide(ctx context.Context) error
	// Navigate opens url in the canvas, subject to the surface's URL policy.
	Navigate(ctx context.Context, url string) error
	// Eval runs JavaScript in the canvas page and returns its value as JSON.
	Eval(ctx context.Context, js string) (json.RawMessage, error)
	// Snapshot returns a PNG of the canvas.
	Snapshot(ctx context.Context) ([]byte, error)
	// A2UIPush adds A2UI v0.8 JSONL (already validated by the tool) and
	// returns once it is shown.
	A2UIPush(ctx context.Context, jsonl string) error
	// A2UIReset clears every A2UI surface.
	A2UIReset(ctx context.Context) error
}

// Picker chooses the canvas for a call. With node empty it picks the only
// connected canvas node, else the local renderer; a named node that is
// unknown, offline or without canvas commands is an error naming it.
type Picker interface {
	Surface(ctx context.Context, who tools.Who, node string) (Surface, error)
}

// MaxSnapshotBytes caps one saved snapshot.
const MaxSnapshotBytes = 20 << 20

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// Args are the canvas tool's arguments.
type Args struct {
	Action     string `json:"action" jsonschema:"enum=present,enum=hide,enum=navigate,enum=eval,enum=snapshot,enum=a2ui_push,enum=a2ui_reset,description=What to do"`
	Node       string `json:"node,omitempty" jsonschema:"description=Node id or name showing the canvas (default: the only connected canvas node, else the built-in canvas)"`
	URL        string `json:"url,omitempty" jsonschema:"description=present (optional) and navigate: page to open"`
	JavaScript string `json:"javaScript,omitempty" jsonschema:"description=eval: JavaScript expression; a returned promise is awaited"`
	JSONL      string `json:"jsonl,omitempty" jsonschema:"description=a2ui_push: A2UI v0.8 messages, one JSON object per line (surfaceUpdate, dataModelUpdate, beginRendering, deleteSurface)"`
	Text       string `json:"text,omitempty" jsonschema:"description=a2ui_push: instead of jsonl, show this text as a one-component surface"`

	tools.GatewayTarget
}

// RemotePicker is an optional capability of a Picker: the canvas of a node
// paired with another gateway (gatewayUrl), reached with the call's own
// token. done releases the connection.
type RemotePicker interface {
	RemoteSurface(ctx context.Context, url, token, node string) (s Surface, done func(), err error)
}

// Tool returns the canvas tool. workspace maps a caller to its workspace
// directory, where snapshots are saved.
func Tool(p Picker, workspace func(tools.Who) (string, error)) tools.Tool {
	t := &tool{p: p, workspace: workspace, now: time.Now}
	return t.typed()
}

type tool struct {
	p         Picker
	workspace func(tools.Who) (string, error)
	now       func() time.Time
}

func (t *tool) typed() *tools.Typed[Args] {
	return tools.NewTyped(tools.Spec{
		Name: "canvas", Label: "Canvas",
		Description: "Drive the canvas, a web page on a paired node or the built-in headless canvas: present, hide, navigate (url), eval (javaScript), " +
			"snapshot (returns MEDIA:<path>), a2ui_push (A2UI v0.8 JSONL in jsonl, or text for a quick test; v0.9 createSurface is refused), a2ui_reset.",
		Tier: tools.TierExtension, Source: tools.SourceCore, Groups: []string{"group:ui"}, Timeout: tools.TimeoutShell,
	}, t.call)
}

func (t *tool) call(ctx context.Context, c tools.Call, a Args) (tools.Result, error) {
	// Arguments are checked before a surface is picked, so a bad call
	// never wakes a node or starts Chromium.
	var jsonl string
	switch a.Action {
	case "present", "hide", "snapshot", "a2ui_reset":
	case "navigate":
		if strings.TrimSpace(a.URL) == "" {
			return tools.Result{}, errors.New("navigate needs url")
		}
	case "eval":
		if strings.TrimSpace(a.JavaScript) == "" {
			return tools.Result{}, errors.New("eval needs javaScript")
		}
	case "a2ui_push":
		var err error
		if jsonl, err = pushJSONL(a); err != nil {
			return tools.Result{}, err
		}
	default:
		return tools.Result{}, fmt.Errorf("unknown action %q (want present, hide, navigate, eval, snapshot, a2ui_push or a2ui_reset)", a.Action)
	}
	remote, err := a.Remote()
	if err != nil {
		return tools.Result{}, err
	}
	ctx, cancel := a.WithTimeout(ctx)
	defer cancel()
	var s Surface
	if remote {
		// The canvas is open to chat turns, unlike nodes and automations:
		// a stranger's model must not make the gateway dial addresses of
		// its choosing (an inner port scan by error text).
		if !c.Who.Owner {
			return tools.Result{}, errors.New("gatewayUrl is for the owner's turns only")
		}
		rp, ok := t.p.(RemotePicker)
		if !ok {
			return tools.Result{}, errors.New("gatewayUrl: this gateway cannot reach other gateways")
		}
		var done func()
		if s, done, err = rp.RemoteSurface(ctx, a.GatewayURL, a.GatewayToken, strings.TrimSpace(a.Node)); err != nil {
			return tools.Result{}, err
		}
		defer done()
	} else if s, err = t.p.Surface(ctx, c.Who, strings.TrimSpace(a.Node)); err != nil {
		return tools.Result{}, err
	}
	switch a.Action {
	case "present":
		err = s.Present(ctx, strings.TrimSpace(a.URL))
	case "hide":
		err = s.Hide(ctx)
	case "navigate":
		err = s.Navigate(ctx, strings.TrimSpace(a.URL))
	case "eval":
		v, err := s.Eval(ctx, a.JavaScript)
		if err != nil {
			return tools.Result{}, fmt.Errorf("eval: %w", err)
		}
		return tools.Result{Text: string(v)}, nil
	case "snapshot":
		return t.snapshot(ctx, c.Who, s)
	case "a2ui_push":
		err = s.A2UIPush(ctx, jsonl)
	case "a2ui_reset":
		err = s.A2UIReset(ctx)
	}
	if err != nil {
		return tools.Result{}, fmt.Errorf("%s: %w", a.Action, err)
	}
	return tools.Result{Text: fmt.Sprintf(`{"ok":true,"action":%q}`, a.Action)}, nil
}

// pushJSONL returns the validated, normalised JSONL of an a2ui_push.
func pushJSONL(a Args) (string, error) {
	hasJSONL, hasText := strings.TrimSpace(a.JSONL) != "", strings.TrimSpace(a.Text) != ""
	switch {
	case hasJSONL && hasText:
		return "", errors.New("a2ui_push takes jsonl or text, not both")
	case hasText:
		return EncodeJSONL(TextMessages(a.Text)), nil
	case !hasJSONL:
		return "", errors.New("a2ui_push needs jsonl (A2UI v0.8 JSONL) or text")
	}
	msgs, err := ParseJSONL(a.JSONL)
	if err != nil {
		return "", fmt.Errorf("jsonl: %w", err)
	}
	return EncodeJSONL(msgs), nil
}

// snapshot saves the surface's PNG to canvas/<date>/snap-<n>.png in the
// caller's workspace, through an os.Root so the path cannot escape it.
func (t *tool) snapshot(ctx context.Context, who tools.Who, s Surface) (tools.Result, error) {
	png, err := s.Snapshot(ctx)
	if err != nil {
		return tools.Result{}, fmt.Errorf("snapshot: %w", err)
	}
	if !bytes.HasPrefix(png, pngSignature) {
		return tools.Result{}, errors.New("snapshot: the canvas did not return a PNG")
	}
	if len(png) > MaxSnapshotBytes {
		return tools.Result{}, fmt.Errorf("snapshot: larger than %d MB", MaxSnapshotBytes>>20)
	}
	if t.workspace == nil {
		return tools.Result{}, errors.New("snapshot: no workspace to save into")
	}
	dir, err := t.workspace(who)
	if err != nil {
		return tools.Result{}, fmt.Errorf("snapshot: workspace: %w", err)
	}
	if dir == "" {
		return tools.Result{}, errors.New("snapshot: no workspace directory for this agent")
	}
	rel, err := saveNumbered(dir, path.Join("canvas", t.now().UTC().Format("2006-01-02")), png)
	if err != nil {
		return tools.Result{}, fmt.Errorf("snapshot: save: %w", err)
	}
	meta, _ := json.Marshal(map[string]any{"path": rel, "bytes": len(png), "format": "png"})
	res := tools.Result{Text: fmt.Sprintf("%s\nMEDIA:%s", meta, filepath.Join(dir, filepath.FromSlash(rel)))}
	if len(png) <= tools.MaxResultImageBytes {
		// The model sees the picture too, beside the path.
		res.Images = []tools.Image{{MediaType: "image/png", Data: png}}
	}
	return res, nil
}

// saveNumbered writes data to sub/snap-<n>.png under dir with the first
// free n; O_EXCL makes concurrent snapshots take different numbers.
func saveNumbered(dir, sub string, data []byte) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	if err := root.MkdirAll(sub, 0o700); err != nil {
		return "", err
	}
	for n := 1; n <= 100_000; n++ {
		rel := path.Join(sub, fmt.Sprintf("snap-%d.png", n))
		f, err := root.OpenFile(rel, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			root.Remove(rel)
			return "", err
		}
		return rel, nil
	}
	return "", fmt.Errorf("too many snapshots in %s", sub)
}
