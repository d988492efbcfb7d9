package generate

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/openclaw-go/openclaw/tools"
)

// MusicArgs are music_generate's arguments, OpenClaw's names and meanings.
type MusicArgs struct {
	Action          string   `json:"action,omitempty" jsonschema:"enum=generate,enum=list,enum=status,description=generate (default); list shows the providers; status reports tasks (calls here run to completion)"`
	Prompt          string   `json:"prompt,omitempty" jsonschema:"description=Style\\, mood and instruments of the track; required for generate"`
	Model           string   `json:"model,omitempty" jsonschema:"description=provider/model to use alone (e.g. minimax/music-2.6); default: agents.defaults.mediaModels.music"`
	Lyrics          string   `json:"lyrics,omitempty" jsonschema:"description=Lyrics to sing ([verse]\\, [chorus] section tags allowed)"`
	Instrumental    bool     `json:"instrumental,omitempty" jsonschema:"description=No vocals"`
	Image           string   `json:"image,omitempty" jsonschema:"description=Reference image (not supported by the providers here)"`
	Images          []string `json:"images,omitempty" jsonschema:"description=Reference images (not supported here)"`
	DurationSeconds int      `json:"durationSeconds,omitempty" jsonschema:"description=Target length in seconds (MiniMax chooses its own; reported as ignored)"`
	Format          string   `json:"format,omitempty" jsonschema:"enum=mp3,enum=wav,description=Audio format (MiniMax: mp3)"`
	Filename        string   `json:"filename,omitempty" jsonschema:"description=File name hint for the saved track (saved under generated/)"`
}

// musicProviders are the music providers by id, with their default model.
var musicProviders = map[string]string{"minimax": "music-2.6"}

// MiniMaxBaseURL is MiniMax's global API host.
const MiniMaxBaseURL = "https://api.minimax.io"

// maxLyricsChars is MiniMax's limit on lyrics.
const maxLyricsChars = 3500

func (e *env) musicTool() tools.Tool {
	return tools.NewTyped(spec("music_generate", "Music generation",
		"Generate a music track from a prompt, with optional lyrics or instrumental, with the configured music provider (MiniMax). "+
			"The track is saved under generated/ and sent to this chat (elsewhere: a download link)."),
		func(ctx context.Context, c tools.Call, a MusicArgs) (tools.Result, error) {
			switch a.Action {
			case "list":
				return e.list(KindMusic, musicProviders)
			case "status":
				return statusResult()
			case "", "generate":
			default:
				return tools.Result{}, fmt.Errorf("unknown action %q: use generate, list or status", a.Action)
			}
			return e.generateMusic(ctx, c, a)
		})
}

func (e *env) generateMusic(ctx context.Context, c tools.Call, a MusicArgs) (tools.Result, error) {
	a.Prompt = strings.TrimSpace(a.Prompt)
	switch {
	case a.Prompt == "":
		return tools.Result{}, errors.New("prompt is required: describe the track")
	case len(a.Prompt) > 2000:
		return tools.Result{}, fmt.Errorf("prompt is %d characters; at most 2000", len(a.Prompt))
	case len(a.Lyrics) > maxLyricsChars:
		return tools.Result{}, fmt.Errorf("lyrics are %d characters; at most %d", len(a.Lyrics), maxLyricsChars)
	case a.Instrumental && strings.TrimSpace(a.Lyrics) != "":
		return tools.Result{}, errors.New("give lyrics or instrumental, not both")
	case a.Image != "" || len(a.Images) > 0:
		return tools.Result{}, errors.New("reference images are not supported by the music providers here")
	}
	cands, timeout, err := e.candidates(KindMusic, a.Model, musicProviders)
	if err != nil {
		return tools.Result{}, err
	}
	pctx, cancel := withTimeout(ctx, timeout)
	defer cancel()
	var ignored []string
	if a.DurationSeconds != 0 {
		ignored = append(ignored, "durationSeconds")
	}
	if a.Format != "" && a.Format != "mp3" {
		ignored = append(ignored, "format")
	}
	track, used, err := try(pctx, cands, func(ctx context.Context, cand candidate) (asset, error) {
		switch cand.provider {
		case "minimax":
			return e.miniMaxMusic(ctx, cand, a)
		}
		return asset{}, fmt.Errorf("no music provider %q", cand.provider)
	})
	if err != nil {
		return tools.Result{}, fmt.Errorf("music_generate: %w", err)
	}
	files, err := e.deliver(ctx, c, []asset{track}, a.Filename, a.Prompt)
	if err != nil {
		return tools.Result{}, err
	}
	out := map[string]any{"model": used.provider + "/" + used.model, "files": files}
	if len(ignored) > 0 {
		out["ignoredOverrides"] = ignored
	}
	return jsonResult(out)
}

// miniMaxMusicAnswer is /v1/music_generation's answer: data.audio is hex
// (output_format hex, the default) or a URL (output_format url).
type miniMaxMusicAnswer struct {
	Data struct {
		Audio  string `json:"audio"`
		Status int    `json:"status"`
	} `json:"data"`
	BaseResp struct {
		StatusCode int    `json:"status_code"`
		StatusMsg  string `json:"status_msg"`
	} `json:"base_resp"`
}

// miniMaxMusic calls MiniMax's batch music endpoint, which answers when the
// track is done.
func (e *env) miniMaxMusic(ctx context.Context, c candidate, a MusicArgs) (asset, error) {
	base := c.creds.BaseURL
	if base == "" {
		base = MiniMaxBaseURL
	}
	body := map[string]any{
		"model": c.model, "prompt": a.Prompt, "output_format": "hex",
		"audio_setting": map[string]any{"sample_rate": 44100, "bitrate": 256000, "format": "mp3"},
	}
	if l := strings.TrimSpace(a.Lyrics); l != "" {
		body["lyrics"] = l
	}
	if a.Instrumental {
		body["is_instrumental"] = true
	}
	tools.ReportProgress(ctx, tools.Progress{Message: "minimax: composing", Fraction: -1})
	var ans miniMaxMusicAnswer
	if err := e.postJSON(ctx, "minimax", joinURL(base, "/v1/music_generation"), c.creds.APIKey, nil, body, &ans); err != nil {
		return asset{}, err
	}
	if err := miniMaxStatus(ans.BaseResp.StatusCode, ans.BaseResp.StatusMsg, c.creds.APIKey); err != nil {
		return asset{}, err
	}
	limit := e.maxBytes(KindMusic)
	var data []byte
	audio := strings.TrimSpace(ans.Data.Audio)
	switch {
	case audio == "":
		return asset{}, errors.New("minimax: the answer held no audio")
	case strings.HasPrefix(audio, "http://") || strings.HasPrefix(audio, "https://"):
		var err error
		if data, err = e.fetchResult(ctx, "minimax", audio, limit); err != nil {
			return asset{}, err
		}
	default:
		if int64(len(audio)/2) > limit {
			return asset{}, tooBig("minimax", int64(len(audio)/2), limit)
		}
		var err error
		if data, err = hex.DecodeString(audio); err != nil {
			return asset{}, fmt.Errorf("minimax: audio is not hex: %v", err)
		}
	}
	if !isMP3(data) {
		return asset{}, fmt.Errorf("minimax: the audio is not MP3 (%s)", http.DetectContentType(data))
	}
	return asset{data: data, ext: "mp3"}, nil
}

// miniMaxStatus reads base_resp: MiniMax answers HTTP 200 with its own
// codes. 1002 is the rate limit, 1008 an empty balance, 1004 a bad key.
func miniMaxStatus(code int, msg, key string) error {
	msg = clip(scrub(msg, key), maxErrorText)
	switch code {
	case 0:
		return nil
	case 1002, 1008, 1039:
		return fmt.Errorf("minimax: %s (code %d): %w; wait and try again later, or check the account's balance", msg, code, ErrQuota)
	case 1004:
		return fmt.Errorf("minimax: %s (code %d): %w; check its API key", msg, code, ErrAuth)
	}
	return fmt.Errorf("minimax: %s (code %d)", msg, code)
}

// isMP3 checks for an ID3 tag or an MPEG audio frame sync.
func isMP3(data []byte) bool {
	return bytes.HasPrefix(data, []byte("ID3")) || (len(data) >= 2 && data[0] == 0xFF && data[1]&0xE0 == 0xE0)
}
