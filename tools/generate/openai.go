package generate

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// OpenAIBaseURL is the OpenAI API's public endpoint.
const OpenAIBaseURL = "https://api.openai.com/v1"

// maxOpenAIEdits is how many reference images OpenAI's edits take.
const maxOpenAIEdits = 5

// imageResult is what an image provider made.
type imageResult struct {
	assets  []asset
	revised string
	ignored []string
	applied map[string]any
}

// openAIImagesAnswer is the Images API's answer to generations and edits.
type openAIImagesAnswer struct {
	Data []struct {
		B64JSON       string `json:"b64_json"`
		URL           string `json:"url"`
		RevisedPrompt string `json:"revised_prompt"`
	} `json:"data"`
}

// openAIImages calls /images/generations, or /images/edits (multipart,
// image[] parts) when there are reference images.
func (e *env) openAIImages(ctx context.Context, c candidate, r imageRequest) (imageResult, error) {
	if len(r.inputs) > maxOpenAIEdits {
		return imageResult{}, fmt.Errorf("OpenAI edits take at most %d reference images, %d given", maxOpenAIEdits, len(r.inputs))
	}
	base := c.creds.BaseURL
	if base == "" {
		base = OpenAIBaseURL
	}
	res := imageResult{applied: map[string]any{}}
	fields := map[string]string{"model": c.model, "prompt": r.Prompt, "n": strconv.Itoa(r.Count)}
	size, ignored := openAISize(r.Size, r.AspectRatio)
	res.ignored = append(res.ignored, ignored...)
	if size != "" {
		fields["size"] = size
		res.applied["size"] = size
	}
	if r.Resolution != "" {
		res.ignored = append(res.ignored, "resolution")
	}
	if len(r.Fal) > 0 {
		res.ignored = append(res.ignored, "fal")
	}
	set := func(k, v string) {
		if v != "" {
			fields[k] = v
		}
	}
	set("quality", r.Quality)
	set("output_format", r.OutputFormat)
	bg := r.Background
	if o := r.OpenAI; o != nil {
		if o.Background != "" {
			bg = o.Background
		}
		set("moderation", o.Moderation)
		set("user", o.User)
		if o.OutputCompression != nil {
			fields["output_compression"] = strconv.Itoa(*o.OutputCompression)
		}
	}
	set("background", bg)
	// gpt-image-2 refuses transparent backgrounds; gpt-image-1.5 makes
	// them, so such a call goes there, as in OpenClaw.
	model := c.model
	if bg == "transparent" && model == "gpt-image-2" {
		model = "gpt-image-1.5"
		fields["model"] = model
		res.applied["model"] = "openai/" + model
	}

	var ans openAIImagesAnswer
	var err error
	if len(r.inputs) == 0 {
		body := map[string]any{}
		for k, v := range fields {
			body[k] = v
		}
		body["n"] = r.Count
		if v, ok := fields["output_compression"]; ok {
			n, _ := strconv.Atoi(v)
			body["output_compression"] = n
		}
		err = e.postJSON(ctx, "openai", joinURL(base, "/images/generations"), c.creds.APIKey, nil, body, &ans)
	} else {
		var buf bytes.Buffer
		ctype, werr := openAIEditForm(&buf, fields, r)
		if werr != nil {
			return imageResult{}, werr
		}
		err = e.do(ctx, request{provider: "openai", method: http.MethodPost, url: joinURL(base, "/images/edits"),
			key: c.creds.APIKey, body: &buf, ctype: ctype}, &ans)
	}
	if err != nil {
		return imageResult{}, err
	}
	limit := e.maxBytes(KindImage)
	for _, d := range ans.Data {
		var data []byte
		switch {
		case d.B64JSON != "":
			if int64(base64.StdEncoding.DecodedLen(len(d.B64JSON))) > limit {
				return imageResult{}, tooBig("openai", int64(base64.StdEncoding.DecodedLen(len(d.B64JSON))), limit)
			}
			data, err = base64.StdEncoding.DecodeString(d.B64JSON)
			if err != nil {
				return imageResult{}, fmt.Errorf("openai: b64_json is not base64: %v", err)
			}
		case d.URL != "":
			if data, err = e.fetchResult(ctx, "openai", d.URL, limit); err != nil {
				return imageResult{}, err
			}
		default:
			continue
		}
		a, err := imageAsset(data)
		if err != nil {
			return imageResult{}, fmt.Errorf("openai: %w", err)
		}
		res.assets = append(res.assets, a)
		if res.revised == "" {
			res.revised = d.RevisedPrompt
		}
	}
	if len(res.assets) == 0 {
		return imageResult{}, fmt.Errorf("openai: the answer held no images")
	}
	return res, nil
}

// openAIEditForm writes the edits request as multipart form data: the
// fields, then each reference image as an image[] part with its type.
func openAIEditForm(buf *bytes.Buffer, fields map[string]string, r imageRequest) (string, error) {
	w := multipart.NewWriter(buf)
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := w.WriteField(k, fields[k]); err != nil {
			return "", err
		}
	}
	for i, img := range r.inputs {
		h := textproto.MIMEHeader{}
		ext := strings.TrimPrefix(img.MediaType, "image/")
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="image[]"; filename="image-%d.%s"`, i+1, ext))
		h.Set("Content-Type", img.MediaType)
		part, err := w.CreatePart(h)
		if err != nil {
			return "", err
		}
		if _, err := part.Write(img.Data); err != nil {
			return "", err
		}
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	return w.FormDataContentType(), nil
}

// openAISizes are the sizes every GPT Image model takes.
var openAISizes = []string{"1024x1024", "1536x1024", "1024x1536", "auto"}

// openAISize picks the size sent: an explicit WIDTHxHEIGHT (the API checks
// its own limits), else the preset nearest the aspect ratio. It reports
// hints it could not apply.
func openAISize(size, aspect string) (string, []string) {
	size = strings.ToLower(strings.TrimSpace(size))
	if size != "" {
		if slices.Contains(openAISizes, size) || validDims(size) {
			if aspect != "" {
				return size, []string{"aspectRatio"}
			}
			return size, nil
		}
		return "", []string{"size"}
	}
	if aspect == "" {
		return "", nil
	}
	w, h, ok := ratio(aspect)
	switch {
	case !ok:
		return "", []string{"aspectRatio"}
	case w > h:
		return "1536x1024", nil
	case w < h:
		return "1024x1536", nil
	}
	return "1024x1024", nil
}

// validDims accepts WIDTHxHEIGHT with both sides 16 to 3840, multiples of 16.
func validDims(s string) bool {
	ws, hs, ok := strings.Cut(s, "x")
	if !ok {
		return false
	}
	w, err1 := strconv.Atoi(ws)
	h, err2 := strconv.Atoi(hs)
	return err1 == nil && err2 == nil && w >= 16 && h >= 16 && w <= 3840 && h <= 3840 && w%16 == 0 && h%16 == 0
}

// ratio parses "W:H" (decimals allowed, as in 19.5:9).
func ratio(s string) (float64, float64, bool) {
	ws, hs, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok {
		return 0, 0, false
	}
	w, err1 := strconv.ParseFloat(ws, 64)
	h, err2 := strconv.ParseFloat(hs, 64)
	if err1 != nil || err2 != nil || w <= 0 || h <= 0 || w > 100 || h > 100 {
		return 0, 0, false
	}
	return w, h, true
}

// imageAsset checks data is an image and names its extension from its
// bytes, whatever the answer or the request said.
func imageAsset(data []byte) (asset, error) {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return asset{data: data, ext: "png"}, nil
	case bytes.HasPrefix(data, []byte("\xff\xd8\xff")):
		return asset{data: data, ext: "jpeg"}, nil
	case len(data) >= 12 && bytes.Equal(data[:4], []byte("RIFF")) && bytes.Equal(data[8:12], []byte("WEBP")):
		return asset{data: data, ext: "webp"}, nil
	case bytes.HasPrefix(data, []byte("GIF8")):
		return asset{data: data, ext: "gif"}, nil
	}
	return asset{}, fmt.Errorf("the result is not a PNG, JPEG, WebP or GIF image (%s)", http.DetectContentType(data))
}

// sortedKeys is m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
