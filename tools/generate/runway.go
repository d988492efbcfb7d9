package generate

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	imagetool "github.com/openclaw-go/openclaw/tools/image"
)

// RunwayBaseURL is Runway's public API endpoint; RunwayVersion is the API
// version every request names.
const (
	RunwayBaseURL = "https://api.dev.runwayml.com"
	RunwayVersion = "2024-11-06"
)

// runwayTextModels can make a video from text alone; the others need an
// image.
var runwayTextModels = map[string]bool{"gen4.5": true, "veo3.1": true, "veo3.1_fast": true, "veo3": true}

// runwayRatios maps aspect ratios to Runway's pixel ratios.
var runwayRatios = map[string]string{
	"16:9": "1280:720", "9:16": "720:1280", "1:1": "960:960", "4:3": "1104:832", "3:4": "832:1104", "21:9": "1584:672",
}

// runwayTask is GET /v1/tasks/{id}'s answer.
type runwayTask struct {
	ID          string   `json:"id"`
	Status      string   `json:"status"` // PENDING, THROTTLED, RUNNING, SUCCEEDED, FAILED, CANCELLED
	Progress    *float64 `json:"progress"`
	Output      []string `json:"output"`
	Failure     string   `json:"failure"`
	FailureCode string   `json:"failureCode"`
}

// runwayVideo submits text_to_video or image_to_video, polls the task and
// downloads its first output.
func (e *env) runwayVideo(ctx context.Context, c candidate, a VideoArgs, inputs []imagetool.Image) (videoResult, error) {
	base := c.creds.BaseURL
	if base == "" {
		base = RunwayBaseURL
	}
	headers := map[string]string{"X-Runway-Version": RunwayVersion}
	res := videoResult{applied: map[string]any{}}
	aspect := a.AspectRatio
	if aspect == "" {
		aspect = "16:9"
	}
	ratio, ok := runwayRatios[aspect]
	if !ok || (len(inputs) == 0 && aspect != "16:9" && aspect != "9:16") {
		res.ignored = append(res.ignored, "aspectRatio")
		ratio, aspect = runwayRatios["16:9"], "16:9"
	}
	duration := 5
	if a.DurationSeconds > 7 {
		duration = 10
	}
	res.applied["aspectRatio"], res.applied["durationSeconds"] = aspect, duration
	for _, hint := range []struct {
		name string
		set  bool
	}{{"resolution", a.Resolution != ""}, {"size", a.Size != ""}, {"audio", a.Audio != nil}, {"watermark", a.Watermark != nil}} {
		if hint.set {
			res.ignored = append(res.ignored, hint.name)
		}
	}
	body := map[string]any{"model": c.model, "promptText": a.Prompt, "ratio": ratio, "duration": duration}
	if seed, ok := a.ProviderOptions["seed"].(float64); ok {
		body["seed"] = int64(seed)
	}
	endpoint := "/v1/text_to_video"
	if len(inputs) > 0 {
		endpoint = "/v1/image_to_video"
		img := inputs[0]
		body["promptImage"] = "data:" + img.MediaType + ";base64," + base64.StdEncoding.EncodeToString(img.Data)
	} else if !runwayTextModels[c.model] {
		return videoResult{}, fmt.Errorf("runway/%s needs a reference image; for text-to-video use gen4.5, veo3.1, veo3.1_fast or veo3", c.model)
	}
	var submitted struct {
		ID string `json:"id"`
	}
	if err := e.postJSON(ctx, "runway", joinURL(base, endpoint), c.creds.APIKey, headers, body, &submitted); err != nil {
		return videoResult{}, err
	}
	if err := validID("runway", submitted.ID); err != nil {
		return videoResult{}, err
	}
	st, err := e.poll(ctx, "runway", func(ctx context.Context) (jobState, error) {
		var t runwayTask
		err := e.do(ctx, request{provider: "runway", method: http.MethodGet, url: joinURL(base, "/v1/tasks/"+url.PathEscape(submitted.ID)),
			key: c.creds.APIKey, headers: headers}, &t)
		if err != nil {
			return jobState{}, err
		}
		return runwayState(t), nil
	})
	if err != nil {
		return videoResult{}, err
	}
	if len(st.urls) == 0 {
		return videoResult{}, fmt.Errorf("runway: the task succeeded without an output URL")
	}
	data, err := e.fetchResult(ctx, "runway", st.urls[0], e.maxBytes(KindVideo))
	if err != nil {
		return videoResult{}, err
	}
	if !isMP4(data) {
		return videoResult{}, fmt.Errorf("runway: the output is not an MP4 video (%s)", http.DetectContentType(data))
	}
	res.asset = asset{data: data, ext: "mp4"}
	return res, nil
}

// runwayState reads a task's answer.
func runwayState(t runwayTask) jobState {
	st := jobState{status: t.Status, fraction: -1, urls: t.Output}
	if t.Progress != nil && *t.Progress >= 0 && *t.Progress <= 1 {
		st.fraction = *t.Progress
	}
	switch strings.ToUpper(t.Status) {
	case "SUCCEEDED":
		st.done = true
	case "FAILED", "CANCELLED", "CANCELED":
		msg := clip(t.Failure, maxErrorText)
		if msg == "" {
			msg = "no reason given"
		}
		if t.FailureCode != "" {
			msg += " (" + clip(t.FailureCode, 60) + ")"
		}
		st.failed = fmt.Errorf("runway: the task %s: %s", strings.ToLower(t.Status), msg)
	}
	return st
}

// isMP4 checks for an ISO media file (MP4, MOV): "ftyp" at offset 4.
func isMP4(data []byte) bool {
	return len(data) >= 12 && bytes.Equal(data[4:8], []byte("ftyp"))
}
