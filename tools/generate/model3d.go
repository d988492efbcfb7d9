package generate

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// Model3DArgs are model3d_generate's arguments. OpenClaw has no such tool;
// MateClaw names it. The provider is Meshy (text-to-3D and image-to-3D
// tasks), keyed by MESHY_API_KEY.
type Model3DArgs struct {
	Action    string `json:"action,omitempty" jsonschema:"enum=generate,enum=list,enum=status,description=generate (default); list shows the providers"`
	Prompt    string `json:"prompt,omitempty" jsonschema:"description=The object to model; required unless image is given"`
	Model     string `json:"model,omitempty" jsonschema:"description=provider/model to use (e.g. meshy/latest)"`
	Image     string `json:"image,omitempty" jsonschema:"description=A reference image (image-to-3D): a workspace path or an http(s) URL"`
	ArtStyle  string `json:"artStyle,omitempty" jsonschema:"enum=realistic,enum=sculpture,description=Text-to-3D style (default realistic)"`
	Format    string `json:"format,omitempty" jsonschema:"enum=glb,enum=fbx,enum=obj,enum=usdz,description=Model file format (default glb)"`
	Filename  string `json:"filename,omitempty" jsonschema:"description=File name hint for the saved model (saved under generated/)"`
	TimeoutMs int    `json:"timeoutMs,omitempty" jsonschema:"description=Job timeout in ms (at most 300000)"`
}

// model3dProviders are the 3D providers by id, with their default model.
var model3dProviders = map[string]string{"meshy": "latest"}

// MeshyBaseURL is Meshy's public API endpoint.
const MeshyBaseURL = "https://api.meshy.ai"

func (e *env) model3dTool() tools.Tool {
	return tools.NewTyped(spec("model3d_generate", "3D model generation",
		"Generate a 3D model (GLB by default) from a prompt or a reference image with Meshy. "+
			"The job is polled to completion; the model is saved under generated/ and sent to this chat (elsewhere: a download link)."),
		func(ctx context.Context, c tools.Call, a Model3DArgs) (tools.Result, error) {
			switch a.Action {
			case "list":
				return e.list(KindModel3D, model3dProviders)
			case "status":
				return statusResult()
			case "", "generate":
			default:
				return tools.Result{}, fmt.Errorf("unknown action %q: use generate, list or status", a.Action)
			}
			return e.generateModel3D(ctx, c, a)
		})
}

func (e *env) generateModel3D(ctx context.Context, c tools.Call, a Model3DArgs) (tools.Result, error) {
	a.Prompt = strings.TrimSpace(a.Prompt)
	if a.Format == "" {
		a.Format = "glb"
	}
	switch {
	case a.Prompt == "" && a.Image == "":
		return tools.Result{}, errors.New("give a prompt or an image")
	case len(a.Prompt) > 600:
		return tools.Result{}, fmt.Errorf("prompt is %d characters; Meshy takes at most 600", len(a.Prompt))
	case a.TimeoutMs < 0:
		return tools.Result{}, errors.New("timeoutMs must not be negative")
	}
	switch a.Format {
	case "glb", "fbx", "obj", "usdz":
	default:
		return tools.Result{}, fmt.Errorf("format %q: use glb, fbx, obj or usdz", a.Format)
	}
	cands, _, err := e.candidates(KindModel3D, a.Model, model3dProviders)
	if err != nil {
		return tools.Result{}, err
	}
	inputs, err := e.loadInputs(ctx, c.Who, a.Image, nil)
	if err != nil {
		return tools.Result{}, err
	}
	timeout := time.Duration(0)
	if a.TimeoutMs > 0 {
		timeout = time.Duration(min(a.TimeoutMs, maxTimeoutMs)) * time.Millisecond
	}
	pctx, cancel := withTimeout(ctx, timeout)
	defer cancel()
	m, used, err := try(pctx, cands, func(ctx context.Context, cand candidate) (asset, error) {
		switch cand.provider {
		case "meshy":
			var img string
			if len(inputs) > 0 {
				img = "data:" + inputs[0].MediaType + ";base64," + base64.StdEncoding.EncodeToString(inputs[0].Data)
			}
			return e.meshy(ctx, cand, a, img)
		}
		return asset{}, fmt.Errorf("no 3D provider %q", cand.provider)
	})
	if err != nil {
		return tools.Result{}, fmt.Errorf("model3d_generate: %w", err)
	}
	seed := a.Prompt
	if seed == "" {
		seed = "model"
	}
	files, err := e.deliver(ctx, c, []asset{m}, a.Filename, seed)
	if err != nil {
		return tools.Result{}, err
	}
	mode := "textTo3D"
	if len(inputs) > 0 {
		mode = "imageTo3D"
	}
	return jsonResult(map[string]any{"model": used.provider + "/" + used.model, "mode": mode, "format": a.Format, "files": files})
}

// meshyTask is a Meshy task's answer.
type meshyTask struct {
	ID        string            `json:"id"`
	Status    string            `json:"status"` // PENDING, IN_PROGRESS, SUCCEEDED, FAILED, CANCELED
	Progress  *float64          `json:"progress"`
	ModelURLs map[string]string `json:"model_urls"`
	TaskError struct {
		Message string `json:"message"`
	} `json:"task_error"`
}

// meshy submits a text-to-3D preview task (or an image-to-3D task), polls
// it and downloads the model in the asked format.
func (e *env) meshy(ctx context.Context, c candidate, a Model3DArgs, image string) (asset, error) {
	base := c.creds.BaseURL
	if base == "" {
		base = MeshyBaseURL
	}
	endpoint := "/openapi/v2/text-to-3d"
	body := map[string]any{"mode": "preview", "prompt": a.Prompt, "ai_model": c.model}
	if a.ArtStyle != "" {
		body["art_style"] = a.ArtStyle
	}
	if image != "" {
		endpoint = "/openapi/v1/image-to-3d"
		body = map[string]any{"image_url": image, "ai_model": c.model}
	}
	var submitted struct {
		Result string `json:"result"`
	}
	if err := e.postJSON(ctx, "meshy", joinURL(base, endpoint), c.creds.APIKey, nil, body, &submitted); err != nil {
		return asset{}, err
	}
	if err := validID("meshy", submitted.Result); err != nil {
		return asset{}, err
	}
	st, err := e.poll(ctx, "meshy", func(ctx context.Context) (jobState, error) {
		var t meshyTask
		if err := e.do(ctx, request{provider: "meshy", method: http.MethodGet, url: joinURL(base, endpoint+"/"+url.PathEscape(submitted.Result)),
			key: c.creds.APIKey}, &t); err != nil {
			return jobState{}, err
		}
		return meshyState(t, a.Format), nil
	})
	if err != nil {
		return asset{}, err
	}
	if len(st.urls) == 0 || st.urls[0] == "" {
		return asset{}, fmt.Errorf("meshy: the task succeeded without a %s model URL", a.Format)
	}
	data, err := e.fetchResult(ctx, "meshy", st.urls[0], e.maxBytes(KindModel3D))
	if err != nil {
		return asset{}, err
	}
	if a.Format == "glb" && !bytes.HasPrefix(data, []byte("glTF")) {
		return asset{}, fmt.Errorf("meshy: the model is not a GLB file (%s)", http.DetectContentType(data))
	}
	return asset{data: data, ext: a.Format}, nil
}

// meshyState reads a task's answer; progress is a percentage.
func meshyState(t meshyTask, format string) jobState {
	st := jobState{status: t.Status, fraction: -1}
	if t.Progress != nil && *t.Progress >= 0 && *t.Progress <= 100 {
		st.fraction = *t.Progress / 100
	}
	switch strings.ToUpper(t.Status) {
	case "SUCCEEDED":
		st.done = true
		st.urls = []string{t.ModelURLs[format]}
	case "FAILED", "CANCELED", "CANCELLED", "EXPIRED":
		msg := clip(t.TaskError.Message, maxErrorText)
		if msg == "" {
			msg = "no reason given"
		}
		st.failed = fmt.Errorf("meshy: the task %s: %s", strings.ToLower(t.Status), msg)
	}
	return st
}
