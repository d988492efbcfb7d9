package generate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// VideoArgs are video_generate's arguments, OpenClaw's names and meanings.
// Reference videos and audio are accepted for compatibility and refused by
// the providers here.
type VideoArgs struct {
	Action          string         `json:"action,omitempty" jsonschema:"enum=generate,enum=list,enum=status,description=generate (default); list shows the providers; status reports tasks (calls here run to completion)"`
	Prompt          string         `json:"prompt,omitempty" jsonschema:"description=What the video shows; required for generate"`
	Model           string         `json:"model,omitempty" jsonschema:"description=provider/model to use alone (e.g. openai/sora-2\\, runway/gen4.5); default: agents.defaults.mediaModels.video"`
	Image           string         `json:"image,omitempty" jsonschema:"description=A reference image (first frame): a workspace path or an http(s) URL"`
	Images          []string       `json:"images,omitempty" jsonschema:"description=Reference images; the providers here take one"`
	ImageRoles      []string       `json:"imageRoles,omitempty" jsonschema:"description=Role of each image: first_frame\\, last_frame\\, reference_image"`
	Video           string         `json:"video,omitempty" jsonschema:"description=A reference video (not supported by the providers here)"`
	Videos          []string       `json:"videos,omitempty" jsonschema:"description=Reference videos (not supported here)"`
	VideoRoles      []string       `json:"videoRoles,omitempty"`
	AudioRef        string         `json:"audioRef,omitempty" jsonschema:"description=Reference audio (not supported here)"`
	AudioRefs       []string       `json:"audioRefs,omitempty"`
	AudioRoles      []string       `json:"audioRoles,omitempty"`
	AspectRatio     string         `json:"aspectRatio,omitempty" jsonschema:"description=16:9 (default) or 9:16; Runway with an image also 1:1\\, 4:3\\, 3:4\\, 21:9"`
	Resolution      string         `json:"resolution,omitempty" jsonschema:"description=Resolution hint such as 720P"`
	DurationSeconds int            `json:"durationSeconds,omitempty" jsonschema:"description=Length in seconds (rounded: OpenAI 4\\, 8 or 12; Runway 5 or 10)"`
	Size            string         `json:"size,omitempty" jsonschema:"description=Size hint"`
	Audio           *bool          `json:"audio,omitempty" jsonschema:"description=Generated audio in the output where supported"`
	Watermark       *bool          `json:"watermark,omitempty" jsonschema:"description=Provider watermark where supported"`
	Filename        string         `json:"filename,omitempty" jsonschema:"description=File name hint for the saved video (saved under generated/)"`
	TimeoutMs       int            `json:"timeoutMs,omitempty" jsonschema:"description=Job timeout in ms (at most 300000)"`
	ProviderOptions map[string]any `json:"providerOptions,omitempty" jsonschema:"description=Provider-specific options (Runway: seed)"`
}

// videoProviders are the video providers by id, with their default model.
var videoProviders = map[string]string{"openai": "sora-2", "runway": "gen4.5"}

// videoResult is what a video provider made.
type videoResult struct {
	asset   asset
	ignored []string
	applied map[string]any
}

func (e *env) videoTool() tools.Tool {
	return tools.NewTyped(spec("video_generate", "Video generation",
		"Generate a short video from a prompt, optionally from a reference image (image: a workspace path or URL), with the configured video provider (OpenAI Sora or Runway). "+
			"The job is polled to completion (minutes); the video is saved under generated/ and sent to this chat (elsewhere: a download link)."),
		func(ctx context.Context, c tools.Call, a VideoArgs) (tools.Result, error) {
			switch a.Action {
			case "list":
				return e.list(KindVideo, videoProviders)
			case "status":
				return statusResult()
			case "", "generate":
			default:
				return tools.Result{}, fmt.Errorf("unknown action %q: use generate, list or status", a.Action)
			}
			return e.generateVideo(ctx, c, a)
		})
}

func (e *env) generateVideo(ctx context.Context, c tools.Call, a VideoArgs) (tools.Result, error) {
	a.Prompt = strings.TrimSpace(a.Prompt)
	switch {
	case a.Prompt == "":
		return tools.Result{}, errors.New("prompt is required: say what the video shows")
	case len(a.Prompt) > maxPromptChars:
		return tools.Result{}, fmt.Errorf("prompt is %d characters; at most %d", len(a.Prompt), maxPromptChars)
	case a.Video != "" || len(a.Videos) > 0:
		return tools.Result{}, errors.New("reference videos (video-to-video) are not supported by the video providers here")
	case a.AudioRef != "" || len(a.AudioRefs) > 0:
		return tools.Result{}, errors.New("reference audio is not supported by the video providers here")
	case a.DurationSeconds < 0 || a.TimeoutMs < 0:
		return tools.Result{}, errors.New("durationSeconds and timeoutMs must not be negative")
	}
	cands, timeout, err := e.candidates(KindVideo, a.Model, videoProviders)
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
	if len(inputs) > 1 {
		return tools.Result{}, fmt.Errorf("%d reference images; the video providers here take one (the first frame)", len(inputs))
	}
	pctx, cancel := withTimeout(ctx, timeout)
	defer cancel()
	res, used, err := try(pctx, cands, func(ctx context.Context, cand candidate) (videoResult, error) {
		switch cand.provider {
		case "runway":
			return e.runwayVideo(ctx, cand, a, inputs)
		case "openai":
			return e.soraVideoJob(ctx, cand, a, inputs)
		}
		return videoResult{}, fmt.Errorf("no video provider %q", cand.provider)
	})
	if err != nil {
		return tools.Result{}, fmt.Errorf("video_generate: %w", err)
	}
	files, err := e.deliver(ctx, c, []asset{res.asset}, a.Filename, a.Prompt)
	if err != nil {
		return tools.Result{}, err
	}
	mode := "generate"
	if len(inputs) > 0 {
		mode = "imageToVideo"
	}
	out := map[string]any{"model": used.provider + "/" + used.model, "mode": mode, "files": files, "applied": res.applied}
	if len(res.ignored) > 0 {
		out["ignoredOverrides"] = res.ignored
	}
	return jsonResult(out)
}
