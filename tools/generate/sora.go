package generate

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"

	imagetool "github.com/openclaw-go/openclaw/tools/image"
)

// soraSizes maps aspect ratios to the sizes OpenAI's video models take.
var soraSizes = map[string]string{"16:9": "1280x720", "9:16": "720x1280"}

// soraVideo is OpenAI's video object, as POST /videos and GET
// /videos/{id} answer.
type soraVideo struct {
	ID       string   `json:"id"`
	Status   string   `json:"status"` // queued, in_progress, completed, failed
	Progress *float64 `json:"progress"`
	Error    *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// soraVideoJob creates a video with OpenAI's Videos API (multipart, an
// optional input_reference image as the first frame), polls it, and
// downloads GET /videos/{id}/content.
func (e *env) soraVideoJob(ctx context.Context, c candidate, a VideoArgs, inputs []imagetool.Image) (videoResult, error) {
	base := c.creds.BaseURL
	if base == "" {
		base = OpenAIBaseURL
	}
	res := videoResult{applied: map[string]any{}}
	aspect := a.AspectRatio
	if aspect == "" {
		aspect = "16:9"
	}
	size, ok := soraSizes[aspect]
	if !ok {
		res.ignored = append(res.ignored, "aspectRatio")
		aspect, size = "16:9", soraSizes["16:9"]
	}
	if a.Size != "" {
		size = a.Size
		res.applied["size"] = size
	}
	seconds := 4
	switch {
	case a.DurationSeconds > 10:
		seconds = 12
	case a.DurationSeconds > 6:
		seconds = 8
	}
	res.applied["aspectRatio"], res.applied["durationSeconds"] = aspect, seconds
	for _, hint := range []struct {
		name string
		set  bool
	}{{"resolution", a.Resolution != ""}, {"audio", a.Audio != nil}, {"watermark", a.Watermark != nil}} {
		if hint.set {
			res.ignored = append(res.ignored, hint.name)
		}
	}
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, f := range [][2]string{{"model", c.model}, {"prompt", a.Prompt}, {"seconds", strconv.Itoa(seconds)}, {"size", size}} {
		if err := w.WriteField(f[0], f[1]); err != nil {
			return videoResult{}, err
		}
	}
	if len(inputs) > 0 {
		img := inputs[0]
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="input_reference"; filename="reference.%s"`, strings.TrimPrefix(img.MediaType, "image/")))
		h.Set("Content-Type", img.MediaType)
		part, err := w.CreatePart(h)
		if err != nil {
			return videoResult{}, err
		}
		if _, err := part.Write(img.Data); err != nil {
			return videoResult{}, err
		}
	}
	if err := w.Close(); err != nil {
		return videoResult{}, err
	}
	var v soraVideo
	if err := e.do(ctx, request{provider: "openai", method: http.MethodPost, url: joinURL(base, "/videos"), key: c.creds.APIKey,
		body: &buf, ctype: w.FormDataContentType()}, &v); err != nil {
		return videoResult{}, err
	}
	if err := validID("openai", v.ID); err != nil {
		return videoResult{}, err
	}
	item := joinURL(base, "/videos/"+url.PathEscape(v.ID))
	if _, err := e.poll(ctx, "openai", func(ctx context.Context) (jobState, error) {
		var v soraVideo
		if err := e.do(ctx, request{provider: "openai", method: http.MethodGet, url: item, key: c.creds.APIKey}, &v); err != nil {
			return jobState{}, err
		}
		return soraState(v), nil
	}); err != nil {
		return videoResult{}, err
	}
	data, err := e.content(ctx, "openai", item+"/content", c.creds.APIKey, e.maxBytes(KindVideo))
	if err != nil {
		return videoResult{}, err
	}
	if !isMP4(data) {
		return videoResult{}, fmt.Errorf("openai: the video is not MP4 (%s)", http.DetectContentType(data))
	}
	res.asset = asset{data: data, ext: "mp4"}
	return res, nil
}

// soraState reads a video object; progress is a percentage.
func soraState(v soraVideo) jobState {
	st := jobState{status: v.Status, fraction: -1}
	if v.Progress != nil && *v.Progress >= 0 && *v.Progress <= 100 {
		st.fraction = *v.Progress / 100
	}
	switch strings.ToLower(v.Status) {
	case "completed":
		st.done = true
	case "failed", "cancelled", "canceled", "expired":
		msg := "no reason given"
		if v.Error != nil && v.Error.Message != "" {
			msg = clip(v.Error.Message, maxErrorText)
			if v.Error.Code != "" {
				msg += " (" + clip(v.Error.Code, 60) + ")"
			}
		}
		st.failed = fmt.Errorf("openai: the video %s: %s", strings.ToLower(v.Status), msg)
	}
	return st
}

// content downloads a provider's own content endpoint with the key. If it
// answers with a redirect (to storage), the target is fetched as a result
// URL: through the guarded client, without the key.
func (e *env) content(ctx context.Context, provider, u, key string, limit int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("User-Agent", "openclaw-go generate")
	resp, err := e.api.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: GET %s: %v", provider, safeURL(u), scrubErr(unwrapURLError(err), key))
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode >= 300 && resp.StatusCode < 400 && resp.Header.Get("Location") != "":
		loc, err := resp.Request.URL.Parse(resp.Header.Get("Location"))
		if err != nil {
			return nil, fmt.Errorf("%s: content redirect is not a URL", provider)
		}
		return e.fetchResult(ctx, provider, loc.String(), limit)
	case resp.StatusCode != http.StatusOK:
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return nil, apiError(provider, resp.StatusCode, body, key)
	case resp.ContentLength > limit:
		return nil, tooBig(provider, resp.ContentLength, limit)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: download content: %w", provider, err)
	}
	if int64(len(data)) > limit {
		return nil, tooBig(provider, int64(len(data)), limit)
	}
	return data, nil
}
