package generate

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/generate/generatetest"
	"github.com/openclaw-go/openclaw/tools/netguard"
)

func TestSpecs(t *testing.T) {
	h := newHarness(t, loopbackOK, false)
	for _, name := range []string{"image_generate", "video_generate", "music_generate", "model3d_generate"} {
		tl, ok := h.tools[name]
		if !ok {
			t.Fatalf("no %s", name)
		}
		s := tl.Spec()
		if s.Tier != tools.TierExtension || s.Timeout != tools.TimeoutGeneration || len(s.Parameters) == 0 {
			t.Errorf("%s: tier %s timeout %s schema %d bytes; want extension, 300s, a schema", name, s.Tier, s.Timeout, len(s.Parameters))
		}
	}
}

func TestImageGenerate(t *testing.T) {
	h := newHarness(t, loopbackOK, false)
	res, err := h.call(t, "image_generate", `{"prompt":"a friendly robot mascot","count":2,"aspectRatio":"16:9","quality":"low","outputFormat":"png","openai":{"moderation":"low"}}`)
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	got := files(t, res)
	if len(got) != 2 {
		t.Fatalf("files %+v", got)
	}
	for _, f := range got {
		if !strings.HasPrefix(f.Path, "generated/a-friendly-robot-mascot-") || !strings.HasSuffix(f.Path, ".png") || f.Delivered != "link" {
			t.Errorf("file %+v", f)
		}
		if !bytes.Equal(h.read(t, f.Path), generatetest.PNG) {
			t.Errorf("%s does not hold the image", f.Path)
		}
	}
	body := h.f.Body("/v1/images/generations")
	want := map[string]any{"model": "gpt-image-2", "prompt": "a friendly robot mascot", "n": float64(2), "size": "1536x1024",
		"quality": "low", "output_format": "png", "moderation": "low"}
	for k, v := range want {
		if body[k] != v {
			t.Errorf("request %s = %v, want %v (body %v)", k, body[k], v, body)
		}
	}
	if len(h.links) != 2 {
		t.Errorf("links %v", h.links)
	}
}

func TestImageEdit(t *testing.T) {
	h := newHarness(t, loopbackOK, true)
	os.MkdirAll(filepath.Join(h.ws, "pics"), 0o700)
	os.WriteFile(filepath.Join(h.ws, "pics", "a.png"), generatetest.PNG, 0o600)
	jpeg := append([]byte("\xff\xd8\xff\xe0"), make([]byte, 32)...)
	os.WriteFile(filepath.Join(h.ws, "pics", "b.jpg"), jpeg, 0o600)
	res, err := h.call(t, "image_generate", `{"prompt":"combine them","images":["pics/a.png","pics/b.jpg"],"size":"1024x1536","filename":"combo"}`)
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	if len(h.f.Edits()) != 1 {
		t.Fatalf("edits %d", len(h.f.Edits()))
	}
	e := h.f.Edits()[0]
	if e.Fields["model"] != "gpt-image-2" || e.Fields["prompt"] != "combine them" || e.Fields["size"] != "1024x1536" || e.Fields["n"] != "1" {
		t.Errorf("edit fields %v", e.Fields)
	}
	if len(e.Images) != 2 || !bytes.Equal(e.Images[0], generatetest.PNG) || !bytes.Equal(e.Images[1], jpeg) || e.Types[1] != "image/jpeg" {
		t.Errorf("edit images %d, types %v", len(e.Images), e.Types)
	}
	got := files(t, res)
	if len(got) != 1 || got[0].Path != "generated/combo.png" || got[0].Delivered != "attachment" {
		t.Fatalf("files %+v", got)
	}
	if !bytes.Equal(h.att.files["combo.png"], generatetest.PNG) {
		t.Errorf("attached %v", h.att.files)
	}
	if len(h.links) != 0 {
		t.Errorf("a chat result also got a link: %v", h.links)
	}
}

// TestVideoJob runs Runway's task to completion: submit, PENDING, RUNNING
// at 50%, SUCCEEDED with an output URL the fake serves.
func TestVideoJob(t *testing.T) {
	h := newHarness(t, loopbackOK, true)
	res, err := h.call(t, "video_generate", `{"prompt":"a lobster surfing at sunset","model":"runway/gen4.5","aspectRatio":"9:16","durationSeconds":10,"resolution":"720P"}`)
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	got := files(t, res)
	if len(got) != 1 || !strings.HasSuffix(got[0].Path, ".mp4") || got[0].Delivered != "attachment" || !bytes.Equal(h.read(t, got[0].Path), generatetest.MP4) {
		t.Fatalf("files %+v", got)
	}
	body := h.f.Body("/v1/text_to_video")
	if body["model"] != "gen4.5" || body["promptText"] != "a lobster surfing at sunset" || body["ratio"] != "720:1280" || body["duration"] != float64(10) {
		t.Errorf("submitted %v", body)
	}
	mustContain(t, res.Text, `"ignoredOverrides":["resolution"]`)
	var saw []string
	for _, e := range h.events {
		saw = append(saw, fmt.Sprintf("%s@%.1f", e.Message, e.Fraction))
	}
	mustContain(t, strings.Join(saw, ","), "runway: pending@-1.0", "runway: running@0.5", "runway: succeeded@1.0", "downloading the result")
}

func TestImageToVideo(t *testing.T) {
	h := newHarness(t, loopbackOK, false)
	os.WriteFile(filepath.Join(h.ws, "frame.png"), generatetest.PNG, 0o600)
	res, err := h.call(t, "video_generate", `{"prompt":"make it move","image":"frame.png","model":"runway/gen4_turbo"}`)
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	body := h.f.Body("/v1/image_to_video")
	if body["model"] != "gen4_turbo" || body["promptImage"] != "data:image/png;base64,"+base64.StdEncoding.EncodeToString(generatetest.PNG) {
		t.Errorf("submitted %v", body)
	}
}

func TestMusic(t *testing.T) {
	h := newHarness(t, loopbackOK, true)
	res, err := h.call(t, "music_generate", `{"prompt":"upbeat synthwave","lyrics":"[verse]\nneon nights","durationSeconds":30}`)
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	got := files(t, res)
	if len(got) != 1 || !strings.HasSuffix(got[0].Path, ".mp3") || !bytes.Equal(h.read(t, got[0].Path), generatetest.MP3) {
		t.Fatalf("files %+v", got)
	}
	body := h.f.Body("/v1/music_generation")
	if body["model"] != "music-2.6" || body["lyrics"] != "[verse]\nneon nights" || body["output_format"] != "hex" {
		t.Errorf("submitted %v", body)
	}
	mustContain(t, res.Text, "durationSeconds")
}

func TestModel3D(t *testing.T) {
	h := newHarness(t, loopbackOK, false)
	res, err := h.call(t, "model3d_generate", `{"prompt":"a small wooden chair"}`)
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	got := files(t, res)
	if len(got) != 1 || !strings.HasSuffix(got[0].Path, ".glb") || !bytes.Equal(h.read(t, got[0].Path), generatetest.GLB) || got[0].Delivered != "link" {
		t.Fatalf("files %+v", got)
	}
	if b := h.f.Body("/openapi/v2/text-to-3d"); b["mode"] != "preview" || b["prompt"] != "a small wooden chair" {
		t.Errorf("submitted %v", b)
	}
}

// TestProviderErrors: quota, billing and key failures are said plainly,
// and a provider echoing the key does not get it into the error.
func TestProviderErrors(t *testing.T) {
	cases := []struct {
		name   string
		tool   string
		args   string
		status int
		body   string
		is     error
		says   []string
	}{
		{"openai insufficient quota", "image_generate", `{"prompt":"x"}`, 429,
			`{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`,
			ErrQuota, []string{"HTTP 429", "exceeded your current quota", "billing"}},
		{"openai billing limit", "image_generate", `{"prompt":"x"}`, 400,
			`{"error":{"message":"Billing hard limit has been reached","type":"invalid_request_error","code":"billing_hard_limit_reached"}}`,
			ErrQuota, []string{"Billing hard limit"}},
		{"openai key echoed", "image_generate", `{"prompt":"x"}`, 401,
			`{"error":{"message":"Incorrect API key provided: ` + generatetest.Key + `.","type":"invalid_request_error","code":"invalid_api_key"}}`,
			ErrAuth, []string{"Incorrect API key provided: [redacted]", "check its API key"}},
		{"runway credits", "video_generate", `{"prompt":"x","model":"runway/gen4.5"}`, 400, `{"error":"You do not have enough credits to run this task."}`,
			ErrQuota, []string{"enough credits"}},
		{"meshy payment", "model3d_generate", `{"prompt":"x"}`, 402, `{"message":"Insufficient credits"}`,
			ErrQuota, []string{"HTTP 402", "Insufficient credits"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, loopbackOK, false)
			h.f.Status, h.f.ErrBody = c.status, c.body
			_, err := h.call(t, c.tool, c.args)
			if err == nil || !errors.Is(err, c.is) {
				t.Fatalf("error %v, want %v", err, c.is)
			}
			if strings.Contains(err.Error(), generatetest.Key) {
				t.Fatalf("the key is in the error: %v", err)
			}
			mustContain(t, err.Error(), c.says...)
		})
	}
}

func TestMiniMaxBalance(t *testing.T) {
	h := newHarness(t, loopbackOK, false)
	h.f.Status, h.f.ErrBody = 200, `{"data":null,"base_resp":{"status_code":1008,"status_msg":"insufficient balance"}}`
	_, err := h.call(t, "music_generate", `{"prompt":"x"}`)
	if !errors.Is(err, ErrQuota) {
		t.Fatalf("error %v", err)
	}
	mustContain(t, err.Error(), "insufficient balance", "1008")
}

func TestVideoTaskFailed(t *testing.T) {
	h := newHarness(t, loopbackOK, false)
	h.f.FailTask = true
	_, err := h.call(t, "video_generate", `{"prompt":"x","model":"runway/gen4.5"}`)
	if err == nil {
		t.Fatal("a failed task succeeded")
	}
	mustContain(t, err.Error(), "failed", "Content moderation", "SAFETY.INPUT.TEXT")
}

func TestNoKey(t *testing.T) {
	h := newHarness(t, loopbackOK, false)
	for _, tl := range Tools(Config{Workspace: func(tools.Who) (string, error) { return h.ws, nil }}) {
		h.tools[tl.Spec().Name] = tl
	}
	_, err := h.call(t, "image_generate", `{"prompt":"x"}`)
	if err == nil {
		t.Fatal("no error without a key")
	}
	mustContain(t, err.Error(), "OPENAI_API_KEY")
	_, err = h.call(t, "video_generate", `{"prompt":"x","model":"pika/pika-2"}`)
	mustContain(t, fmt.Sprint(err), "not a video provider/model here")
}

func TestList(t *testing.T) {
	h := newHarness(t, loopbackOK, false)
	res, err := h.call(t, "video_generate", `{"action":"list"}`)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, res.Text, `"provider":"runway"`, `"defaultModel":"runway/gen4.5"`, `"defaultModel":"openai/sora-2"`, `"configured":true`)
}

// The attacks: a prompt-injected model choosing paths and file names, and
// a malicious provider choosing URLs, ids, sizes and contents.

func TestResultURLToPrivateAddressRefused(t *testing.T) {
	for _, c := range []struct{ name, url string }{
		{"the fake on loopback", ""},
		{"cloud metadata", "http://169.254.169.254/latest/meta-data/"},
		{"private network", "http://10.0.0.7/video.mp4"},
		{"not http", "file:///etc/passwd"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, netguard.Policy{}, false) // no allowlist
			h.f.ResultURL = c.url
			_, err := h.call(t, "video_generate", `{"prompt":"x","model":"runway/gen4.5"}`)
			if err == nil {
				t.Fatal("a result URL to an internal address was fetched")
			}
			if !errors.Is(err, netguard.ErrBlocked) && !strings.Contains(err.Error(), "not an http(s) URL") {
				t.Fatalf("error %v", err)
			}
			if h.f.Saw("GET /results/video.mp4") {
				t.Fatal("the download reached the loopback server")
			}
		})
	}
}

func TestOversizedResultRefused(t *testing.T) {
	h := newHarness(t, loopbackOK, false)
	h.f.BigResult = true // 4 MB, limit 1 MB, no Content-Length
	_, err := h.call(t, "video_generate", `{"prompt":"x","model":"runway/gen4.5"}`)
	if err == nil {
		t.Fatal("an oversized result was accepted")
	}
	mustContain(t, err.Error(), "download limit")
	if entries, _ := os.ReadDir(filepath.Join(h.ws, "generated")); len(entries) != 0 {
		t.Errorf("something was saved: %v", entries)
	}

	h.f.BigResult = false
	h.f.ImageB64 = base64.StdEncoding.EncodeToString(make([]byte, 2<<20))
	_, err = h.call(t, "image_generate", `{"prompt":"x"}`)
	mustContain(t, fmt.Sprint(err), "download limit")
}

func TestNotAnImageRefused(t *testing.T) {
	h := newHarness(t, loopbackOK, false)
	h.f.ImageB64 = base64.StdEncoding.EncodeToString([]byte("<script>alert(1)</script>"))
	_, err := h.call(t, "image_generate", `{"prompt":"x"}`)
	mustContain(t, fmt.Sprint(err), "not a PNG, JPEG, WebP or GIF")
}

func TestHostileTaskIDRefused(t *testing.T) {
	for _, id := range []string{"../../v1/organization", "a/b", "..", "x?y=1", strings.Repeat("a", 200)} {
		h := newHarness(t, loopbackOK, false)
		h.f.TaskID = id
		for _, model := range []string{"runway/gen4.5", "openai/sora-2"} {
			_, err := h.call(t, "video_generate", `{"prompt":"x","model":"`+model+`"}`)
			mustContain(t, fmt.Sprint(err), "job id")
		}
	}
}

func TestFilenameCannotEscape(t *testing.T) {
	h := newHarness(t, loopbackOK, false)
	for _, name := range []string{"../../../etc/cron.d/evil", "/tmp/evil", `..\..\evil`, ".hidden", "a/../../b"} {
		res, err := h.call(t, "image_generate", fmt.Sprintf(`{"prompt":"x","filename":%q}`, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, f := range files(t, res) {
			if !strings.HasPrefix(f.Path, "generated/") || strings.Contains(f.Path[len("generated/"):], "/") || strings.Contains(f.Path, "..") ||
				strings.HasPrefix(f.Path[len("generated/"):], ".") {
				t.Errorf("filename %q saved at %q", name, f.Path)
			}
		}
	}
}

func TestInputsConfinedToWorkspace(t *testing.T) {
	h := newHarness(t, loopbackOK, false)
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.png")
	os.WriteFile(secret, generatetest.PNG, 0o600)
	os.Symlink(secret, filepath.Join(h.ws, "link.png"))
	if err := os.Link(secret, filepath.Join(h.ws, "hard.png")); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{secret, "../" + filepath.Base(outside) + "/secret.png", "link.png", "hard.png", "/etc/passwd"} {
		_, err := h.call(t, "image_generate", fmt.Sprintf(`{"prompt":"x","image":%q}`, src))
		if err == nil {
			t.Errorf("%s: a file outside the workspace was read", src)
		}
	}
	if len(h.f.Edits()) != 0 {
		t.Errorf("%d edits reached the provider", len(h.f.Edits()))
	}
	// A reference URL on an internal address is refused too.
	h2 := newHarness(t, netguard.Policy{}, false)
	_, err := h2.call(t, "image_generate", fmt.Sprintf(`{"prompt":"x","image":%q}`, h2.f.URL+"/results/x.png"))
	if !errors.Is(err, netguard.ErrBlocked) {
		t.Errorf("internal reference URL: %v", err)
	}
}

func TestKeyNeverInURLs(t *testing.T) {
	h := newHarness(t, loopbackOK, false)
	for _, name := range []string{"image_generate", "video_generate", "music_generate", "model3d_generate"} {
		if _, err := h.call(t, name, `{"prompt":"x"}`); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	for _, r := range h.f.Requests() {
		if strings.Contains(r, generatetest.Key) {
			t.Errorf("request %s carries the key", r)
		}
	}
}

// TestAPIRedirectNotFollowed: a provider endpoint answering with a
// redirect (here to a loopback path) gets an error, and the request with
// its key and body is not replayed there.
func TestAPIRedirectNotFollowed(t *testing.T) {
	h := newHarness(t, loopbackOK, false)
	h.f.Redirect = h.f.URL + "/results/stolen"
	_, err := h.call(t, "image_generate", `{"prompt":"x"}`)
	mustContain(t, fmt.Sprint(err), "HTTP 307")
	if h.f.Saw("POST /results/stolen") || h.f.Saw("GET /results/stolen") {
		t.Fatal("the redirect was followed")
	}
}

func TestTransparentGoesToGPTImage15(t *testing.T) {
	h := newHarness(t, loopbackOK, false)
	res, err := h.call(t, "image_generate", `{"prompt":"a sticker","background":"transparent","outputFormat":"png"}`)
	if err != nil {
		t.Fatal(err)
	}
	if b := h.f.Body("/v1/images/generations"); b["model"] != "gpt-image-1.5" || b["background"] != "transparent" {
		t.Errorf("asked %v", b)
	}
	mustContain(t, res.Text, `"model":"openai/gpt-image-1.5"`)
}

// TestSoraJob runs OpenAI's video job: a multipart create, queued →
// in_progress 50% → completed, then the content endpoint; the default
// pick when OpenAI has a key.
func TestSoraJob(t *testing.T) {
	h := newHarness(t, loopbackOK, true)
	os.WriteFile(filepath.Join(h.ws, "first.png"), generatetest.PNG, 0o600)
	res, err := h.call(t, "video_generate", `{"prompt":"a paper boat on a river","image":"first.png","aspectRatio":"9:16","durationSeconds":8}`)
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	got := files(t, res)
	if len(got) != 1 || got[0].Delivered != "attachment" || !bytes.Equal(h.read(t, got[0].Path), generatetest.MP4) {
		t.Fatalf("files %+v", got)
	}
	b := h.f.Body("/v1/videos")
	if b["model"] != "sora-2" || b["prompt"] != "a paper boat on a river" || b["size"] != "720x1280" || b["seconds"] != "8" || b["input_reference"] != "image/png" {
		t.Errorf("created %v", b)
	}
	mustContain(t, res.Text, `"model":"openai/sora-2"`, `"mode":"imageToVideo"`)
	var saw []string
	for _, e := range h.events {
		saw = append(saw, fmt.Sprintf("%s@%.1f", e.Message, e.Fraction))
	}
	mustContain(t, strings.Join(saw, ","), "openai: queued@0.0", "openai: in_progress@0.5", "openai: completed@1.0")
}

// TestSoraContentRedirect: when the content endpoint redirects to storage,
// the target is fetched without the key and through the network guard.
func TestSoraContentRedirect(t *testing.T) {
	h := newHarness(t, loopbackOK, false)
	h.f.ContentRedirect = true
	if _, err := h.call(t, "video_generate", `{"prompt":"x"}`); err != nil {
		t.Fatal(err)
	}
	if !h.f.Saw("GET /results/video.mp4") {
		t.Fatal("the redirect target was not fetched")
	}
	h2 := newHarness(t, netguard.Policy{}, false)
	h2.f.ContentRedirect = true
	_, err := h2.call(t, "video_generate", `{"prompt":"x"}`)
	if !errors.Is(err, netguard.ErrBlocked) || h2.f.Saw("GET /results/video.mp4") {
		t.Fatalf("a redirect to loopback storage: %v", err)
	}
}

func TestSoraFailed(t *testing.T) {
	h := newHarness(t, loopbackOK, false)
	h.f.FailTask = true
	_, err := h.call(t, "video_generate", `{"prompt":"x"}`)
	mustContain(t, fmt.Sprint(err), "failed", "blocked by our moderation system", "moderation_blocked")
}
