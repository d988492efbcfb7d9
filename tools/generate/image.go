package generate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/fs"
	imagetool "github.com/openclaw-go/openclaw/tools/image"
)

// Limits of image_generate.
const (
	maxImageCount  = 4
	maxEditImages  = 16 // the shared limit; a provider's own may be lower
	maxInputImageB = 20 << 20
	maxPromptChars = 32000
	maxTimeoutMs   = 300000
)

// ImageArgs are image_generate's arguments, OpenClaw's names and meanings.
type ImageArgs struct {
	Action       string         `json:"action,omitempty" jsonschema:"enum=generate,enum=list,enum=status,description=generate (default); list shows the providers and which have keys; status reports tasks (calls here run to completion)"`
	Prompt       string         `json:"prompt,omitempty" jsonschema:"description=What to draw; required for generate"`
	Model        string         `json:"model,omitempty" jsonschema:"description=provider/model to use alone (e.g. openai/gpt-image-2); default: agents.defaults.mediaModels.image"`
	Image        string         `json:"image,omitempty" jsonschema:"description=One reference image to edit: a path in your workspace or an http(s) URL"`
	Images       []string       `json:"images,omitempty" jsonschema:"description=Several reference images (workspace paths or http(s) URLs)\\, up to 16; OpenAI takes 5"`
	Size         string         `json:"size,omitempty" jsonschema:"description=WIDTHxHEIGHT such as 1024x1024\\, 1536x1024\\, 1024x1536\\, or auto"`
	AspectRatio  string         `json:"aspectRatio,omitempty" jsonschema:"description=Aspect ratio such as 1:1\\, 3:2\\, 16:9; mapped to the nearest size the provider has"`
	Resolution   string         `json:"resolution,omitempty" jsonschema:"enum=1K,enum=2K,enum=4K,description=Resolution hint (reported as ignored by providers without it)"`
	Quality      string         `json:"quality,omitempty" jsonschema:"enum=low,enum=medium,enum=high,enum=xhigh,enum=max,enum=auto,description=Quality hint"`
	OutputFormat string         `json:"outputFormat,omitempty" jsonschema:"enum=png,enum=jpeg,enum=webp,description=File format (default png)"`
	Background   string         `json:"background,omitempty" jsonschema:"enum=transparent,enum=opaque,enum=auto,description=Background hint; transparent needs png or webp"`
	Count        int            `json:"count,omitempty" jsonschema:"minimum=1,maximum=4,description=How many images (1-4\\, default 1)"`
	TimeoutMs    int            `json:"timeoutMs,omitempty" jsonschema:"description=Provider timeout in ms (at most 300000)"`
	Filename     string         `json:"filename,omitempty" jsonschema:"description=File name hint for the saved image (saved under generated/)"`
	OpenAI       *OpenAIHints   `json:"openai,omitempty" jsonschema:"description=OpenAI-only hints"`
	Fal          map[string]any `json:"fal,omitempty" jsonschema:"description=fal-only hints (fal is not available here; ignored)"`
}

// OpenAIHints are image_generate's openai object.
type OpenAIHints struct {
	Background        string `json:"background,omitempty" jsonschema:"enum=transparent,enum=opaque,enum=auto"`
	Moderation        string `json:"moderation,omitempty" jsonschema:"enum=low,enum=auto"`
	OutputCompression *int   `json:"outputCompression,omitempty" jsonschema:"minimum=0,maximum=100"`
	User              string `json:"user,omitempty"`
}

// imageProviders are the image providers by id, with their default model.
var imageProviders = map[string]string{"openai": "gpt-image-2"}

// imageRequest is image_generate's call as a provider gets it.
type imageRequest struct {
	ImageArgs
	inputs []imagetool.Image
}

func (e *env) imageTool() tools.Tool {
	return tools.NewTyped(spec("image_generate", "Image generation",
		"Generate images from a prompt, or edit reference images (image / images: workspace paths or URLs), with the configured image provider (OpenAI Images). "+
			"Results are saved under generated/ in your workspace and sent to this chat as attachments (elsewhere: a download link)."),
		func(ctx context.Context, c tools.Call, a ImageArgs) (tools.Result, error) {
			switch a.Action {
			case "list":
				return e.list(KindImage, imageProviders)
			case "status":
				return statusResult()
			case "", "generate":
			default:
				return tools.Result{}, fmt.Errorf("unknown action %q: use generate, list or status", a.Action)
			}
			return e.generateImage(ctx, c, a)
		})
}

func (e *env) generateImage(ctx context.Context, c tools.Call, a ImageArgs) (tools.Result, error) {
	prompt := strings.TrimSpace(a.Prompt)
	switch {
	case prompt == "":
		return tools.Result{}, errors.New("prompt is required: say what to draw")
	case len(prompt) > maxPromptChars:
		return tools.Result{}, fmt.Errorf("prompt is %d characters; at most %d", len(prompt), maxPromptChars)
	case a.Count < 0 || a.Count > maxImageCount:
		return tools.Result{}, fmt.Errorf("count %d: give 1 to %d", a.Count, maxImageCount)
	case a.TimeoutMs < 0:
		return tools.Result{}, fmt.Errorf("timeoutMs %d is negative", a.TimeoutMs)
	}
	if a.Count == 0 {
		a.Count = 1
	}
	cands, timeout, err := e.candidates(KindImage, a.Model, imageProviders)
	if err != nil {
		return tools.Result{}, err
	}
	if a.TimeoutMs > 0 {
		timeout = time.Duration(min(a.TimeoutMs, maxTimeoutMs)) * time.Millisecond
	}
	inputs, err := e.loadInputs(ctx, c.Who, a.Image, a.Images)
	if err != nil {
		return tools.Result{}, err
	}
	req := imageRequest{ImageArgs: a, inputs: inputs}
	req.Prompt = prompt
	mode := "generate"
	if len(inputs) > 0 {
		mode = "edit"
	}
	tools.ReportProgress(ctx, tools.Progress{Message: fmt.Sprintf("%s: %d image(s)", mode, a.Count), Fraction: -1})
	pctx, cancel := withTimeout(ctx, timeout)
	defer cancel()
	res, used, err := try(pctx, cands, func(ctx context.Context, cand candidate) (imageResult, error) {
		switch cand.provider {
		case "openai":
			return e.openAIImages(ctx, cand, req)
		}
		return imageResult{}, fmt.Errorf("no image provider %q", cand.provider)
	})
	if err != nil {
		return tools.Result{}, fmt.Errorf("image_generate: %w", err)
	}
	files, err := e.deliver(ctx, c, res.assets, a.Filename, prompt)
	if err != nil {
		return tools.Result{}, err
	}
	out := map[string]any{"model": used.provider + "/" + used.model, "mode": mode, "files": files}
	if len(res.ignored) > 0 {
		out["ignoredOverrides"] = res.ignored
	}
	if res.revised != "" {
		out["revisedPrompt"] = res.revised
	}
	if len(res.applied) > 0 {
		out["applied"] = res.applied
	}
	return jsonResult(out)
}

// loadInputs reads reference images: workspace paths through the
// workspace root only (no way out by .., an absolute path elsewhere or a
// link), URLs through the guarded client.
func (e *env) loadInputs(ctx context.Context, who tools.Who, one string, many []string) ([]imagetool.Image, error) {
	var srcs []string
	seen := map[string]bool{}
	for _, s := range append([]string{one}, many...) {
		if s = strings.TrimSpace(s); s != "" && !seen[s] {
			seen[s] = true
			srcs = append(srcs, s)
		}
	}
	if len(srcs) == 0 {
		return nil, nil
	}
	if len(srcs) > maxEditImages {
		return nil, fmt.Errorf("%d reference images; at most %d", len(srcs), maxEditImages)
	}
	var ws *fs.Workspace
	g := e.guard()
	out := make([]imagetool.Image, 0, len(srcs))
	for _, src := range srcs {
		var img imagetool.Image
		var err error
		if imagetool.IsURL(src) {
			img, err = imagetool.Fetch(ctx, g.client, src, maxInputImageB)
		} else {
			if ws == nil {
				if ws, err = e.openWorkspace(who); err != nil {
					return nil, err
				}
				defer ws.Close()
			}
			img, err = imagetool.LoadFile(ws, src, maxInputImageB)
		}
		if err != nil {
			return nil, fmt.Errorf("reference image: %w", err)
		}
		out = append(out, img)
	}
	return out, nil
}

// list answers action=list: the providers of a kind, their default models
// and whether each has a key.
func (e *env) list(kind Kind, known map[string]string) (tools.Result, error) {
	var ps []map[string]any
	for _, p := range sortedKeys(known) {
		ps = append(ps, map[string]any{"provider": p, "defaultModel": p + "/" + known[p], "configured": e.creds(p).APIKey != ""})
	}
	out := map[string]any{"kind": kind, "providers": ps, "setup": keyHint(kind)}
	if e.cfg.Models != nil {
		if m := e.cfg.Models(kind); m.Primary != "" {
			out["primary"], out["fallbacks"] = m.Primary, m.Fallbacks
		}
	}
	return jsonResult(out)
}

func statusResult() (tools.Result, error) {
	return jsonResult(map[string]any{"active": false,
		"note": "generation runs within the call here: a call returns once its files are saved and delivered, so no task is pending"})
}

func jsonResult(v any) (tools.Result, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return tools.Result{}, fmt.Errorf("encode result: %w", err)
	}
	return tools.Result{Text: string(b)}, nil
}
