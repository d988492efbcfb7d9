// Package generate holds the generation tools: image_generate (OpenAI
// Images, text-to-image and edits), video_generate (OpenAI's Videos API or
// Runway's task API, both asynchronous jobs), music_generate (MiniMax's music_generation) and model3d_generate
// (Meshy's text- and image-to-3D tasks).
//
// Each call picks a provider/model (the call's model, else the configured
// chain, else the first provider with a key), runs the job to completion
// inside the call (a provider's asynchronous task is polled, with progress
// reports), saves every result in the caller's workspace under
// generated/, and delivers it: as a native attachment to the chat the
// conversation is in, or else as a one-time download link.
//
// What a provider sends back is not trusted: result URLs are fetched only
// through a netguard client (private and loopback addresses refused unless
// the operator allows them), downloads are capped, file names are made
// here, never taken from the response, and an API key never appears in an
// error, a log line or a URL.
package generate

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/fs"
	"github.com/openclaw-go/openclaw/tools/netguard"
)

// Kind is what a tool generates.
type Kind string

const (
	KindImage   Kind = "image"
	KindVideo   Kind = "video"
	KindMusic   Kind = "music"
	KindModel3D Kind = "model3d"
)

// Credentials reach one provider's API. BaseURL "" is the provider's
// public endpoint; APIKey "" means the provider is not set up.
type Credentials struct {
	BaseURL string
	APIKey  string
}

// Models is the configured model chain of one kind
// (agents.defaults.mediaModels.<kind>): "provider/model" refs tried in
// order, and how long the provider may take (0: the tool's timeout).
type Models struct {
	Primary   string
	Fallbacks []string
	Timeout   time.Duration
}

// Attacher sends a file to the chat the caller's conversation is in, as a
// native attachment. file is an absolute path to a private copy the
// channel may read later (retries). sent is false, with no error, when the
// conversation is not on a chat channel.
type Attacher interface {
	Attach(ctx context.Context, who tools.Who, file, caption, idempotencyKey string) (sent bool, err error)
}

// Config wires the tools to the gateway. Funcs are called at each call, so
// a reloaded config applies to the next one.
type Config struct {
	// Workspace maps a caller to its workspace directory. Required.
	Workspace func(who tools.Who) (string, error)
	// Credentials finds a provider's key and endpoint. Required.
	Credentials func(provider string) Credentials
	// Models is the configured chain of a kind; nil or an empty Primary
	// picks the first provider of that kind with a key.
	Models func(kind Kind) Models
	// Attach delivers results to the chat; nil: links only.
	Attach Attacher
	// Publish makes a one-time download link; nil: the path only.
	Publish tools.Publisher
	// Network says which internal addresses result and input URLs may
	// reach, read at each call. Nil: none.
	Network func() netguard.Policy
	// MaxBytes caps one downloaded result; 0 is DefaultMaxBytes.
	MaxBytes func(kind Kind) int64
	// API is the client for the providers' own endpoints, which come from
	// the operator's config. Nil: a client that follows no redirects (each
	// call is bounded by its context).
	API *http.Client
	// PollInterval is how often an asynchronous job is asked how far it
	// is. 0: 5 seconds.
	PollInterval time.Duration
}

// DefaultMaxBytes is the largest result downloaded or decoded by kind,
// unless Config.MaxBytes says otherwise.
var DefaultMaxBytes = map[Kind]int64{
	KindImage:   25 << 20,
	KindVideo:   100 << 20,
	KindMusic:   50 << 20,
	KindModel3D: 100 << 20,
}

// maxAttachBytes is the largest file sent as a chat attachment (send_file's
// limit); bigger results get a download link.
const maxAttachBytes = 20 << 20

// outDir is the workspace folder results are saved in.
const outDir = "generated"

// env is what every call shares: the config and the providers' client.
type env struct {
	cfg Config
	api *http.Client
}

// guard is the network policy of this call and a client held to it; the
// client is cheap, and one per call lets a reloaded policy apply at once.
type guard struct {
	policy netguard.Policy
	client *http.Client
}

func (e *env) guard() guard {
	var p netguard.Policy
	if e.cfg.Network != nil {
		p = e.cfg.Network()
	}
	return guard{policy: p, client: netguard.NewClient(netguard.Options{Policy: p})}
}

// Tools returns image_generate, video_generate, music_generate and
// model3d_generate.
func Tools(cfg Config) []tools.Tool {
	e := &env{cfg: cfg, api: cfg.API}
	if e.api == nil {
		// A provider's API answers where it was asked: a redirect (to
		// another host, or an internal one) is reported, never followed
		// with the request's body.
		e.api = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	return []tools.Tool{e.imageTool(), e.videoTool(), e.musicTool(), e.model3dTool()}
}

// spec is the shared shape of the generation tools: extension tier (shown
// as a directory line until enable_tool), the generation timeout.
func spec(name, label, desc string) tools.Spec {
	return tools.Spec{Name: name, Label: label, Description: desc, Tier: tools.TierExtension,
		Source: tools.SourceCore, Timeout: tools.TimeoutGeneration, Groups: []string{"group:media"}}
}

// asset is one generated file, in memory.
type asset struct {
	data []byte
	ext  string // without the dot: png, mp4, mp3, glb
}

// candidate is one provider/model to try.
type candidate struct {
	provider, model string
	creds           Credentials
}

// candidates resolves which provider/model refs a call tries: the call's
// model alone, else the configured chain, else each provider of the kind
// that has a key, with its default model.
func (e *env) candidates(kind Kind, requested string, known map[string]string) ([]candidate, time.Duration, error) {
	var m Models
	if e.cfg.Models != nil {
		m = e.cfg.Models(kind)
	}
	var refs []string
	switch {
	case strings.TrimSpace(requested) != "":
		refs = []string{strings.TrimSpace(requested)}
	case m.Primary != "":
		refs = append([]string{m.Primary}, m.Fallbacks...)
	default:
		for _, p := range sortedKeys(known) {
			if e.creds(p).APIKey != "" {
				refs = append(refs, p+"/"+known[p])
			}
		}
		if len(refs) == 0 {
			return nil, 0, fmt.Errorf("no %s generation provider has an API key: %s", kind, keyHint(kind))
		}
	}
	var out []candidate
	var skipped []string
	for _, ref := range refs {
		p, model, ok := strings.Cut(ref, "/")
		p = strings.ToLower(strings.TrimSpace(p))
		if _, has := known[p]; !has || !ok || model == "" {
			skipped = append(skipped, fmt.Sprintf("%s: not a %s provider/model here (have %s)", clip(ref, 80), kind, strings.Join(sortedKeys(known), ", ")))
			continue
		}
		c := e.creds(p)
		if c.APIKey == "" {
			skipped = append(skipped, fmt.Sprintf("%s: no API key (%s)", clip(ref, 80), keyHint(kind)))
			continue
		}
		out = append(out, candidate{provider: p, model: model, creds: c})
	}
	if len(out) == 0 {
		return nil, 0, errors.New(strings.Join(skipped, "; "))
	}
	return out, m.Timeout, nil
}

func (e *env) creds(provider string) Credentials {
	if e.cfg.Credentials == nil {
		return Credentials{}
	}
	return e.cfg.Credentials(provider)
}

// keyHint says which keys set a kind's providers up.
func keyHint(kind Kind) string {
	switch kind {
	case KindImage:
		return "set OPENAI_API_KEY or models.providers.openai.apiKey"
	case KindVideo:
		return "set OPENAI_API_KEY or models.providers.openai.apiKey (Sora), or RUNWAYML_API_SECRET (or RUNWAY_API_KEY) or models.providers.runway.apiKey"
	case KindMusic:
		return "set MINIMAX_API_KEY or models.providers.minimax.apiKey"
	case KindModel3D:
		return "set MESHY_API_KEY or models.providers.meshy.apiKey"
	}
	return "set a provider API key"
}

// try runs fn for each candidate until one succeeds; all failures are
// reported together, each naming its model.
func try[T any](ctx context.Context, cands []candidate, fn func(ctx context.Context, c candidate) (T, error)) (T, candidate, error) {
	var zero T
	var errs attempts
	for _, c := range cands {
		out, err := fn(ctx, c)
		if err == nil {
			return out, c, nil
		}
		errs = append(errs, fmt.Errorf("%s/%s: %w", c.provider, c.model, err))
		if ctx.Err() != nil {
			break
		}
	}
	return zero, candidate{}, errs
}

// attempts is every candidate's failure; errors.Is sees each (ErrQuota,
// netguard.ErrBlocked).
type attempts []error

func (a attempts) Error() string {
	s := make([]string, len(a))
	for i, e := range a {
		s[i] = e.Error()
	}
	return strings.Join(s, "; ")
}

func (a attempts) Unwrap() []error { return a }

// withTimeout bounds ctx by the configured provider timeout, if any.
func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

func (e *env) maxBytes(kind Kind) int64 {
	if e.cfg.MaxBytes != nil {
		if n := e.cfg.MaxBytes(kind); n > 0 {
			return n
		}
	}
	return DefaultMaxBytes[kind]
}

func (e *env) pollInterval() time.Duration {
	if e.cfg.PollInterval > 0 {
		return e.cfg.PollInterval
	}
	return 5 * time.Second
}

func (e *env) openWorkspace(who tools.Who) (*fs.Workspace, error) {
	if e.cfg.Workspace == nil {
		return nil, errors.New("no workspace configured")
	}
	dir, err := e.cfg.Workspace(who)
	if err != nil {
		return nil, fmt.Errorf("find workspace: %w", err)
	}
	return fs.OpenWorkspace(dir)
}

// saved is one result as the model reads it.
type saved struct {
	Path      string `json:"path"`
	Bytes     int    `json:"bytes"`
	Delivered string `json:"delivered"` // "attachment", "link" or "workspace"
	URL       string `json:"url,omitempty"`
	Note      string `json:"note,omitempty"`
}

// deliver saves assets under generated/ in the workspace (names made here:
// the filename hint keeps only a slug of its last element) and sends each
// to the chat, or publishes a link when there is no chat or it is too big.
func (e *env) deliver(ctx context.Context, c tools.Call, assets []asset, filename, seed string) ([]saved, error) {
	ws, err := e.openWorkspace(c.Who)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	if len(assets) == 0 {
		return nil, errors.New("the provider returned no results")
	}
	base := fs.ExportName(filename, assets[0].ext, seed)
	var out []saved
	for i, a := range assets {
		name := base
		if len(assets) > 1 {
			name = fmt.Sprintf("%s-%d", base, i+1)
		}
		rel, err := fs.WriteNew(ws.Root(), outDir, name, a.ext, a.data)
		if err != nil {
			return out, err
		}
		s := saved{Path: rel, Bytes: len(a.data), Delivered: "workspace"}
		if e.attach(ctx, c, rel, a.data, i, &s) {
			out = append(out, s)
			continue
		}
		if e.cfg.Publish != nil {
			if url, err := e.cfg.Publish(ctx, c.Who, rel); err != nil {
				s.Note = joinNote(s.Note, fmt.Sprintf("could not make a download link (%v)", err))
			} else {
				s.URL, s.Delivered = url, "link"
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// attach sends one saved result to the chat from a private copy (so a
// later swap of the workspace file for a link changes nothing); it reports
// whether it was sent.
func (e *env) attach(ctx context.Context, c tools.Call, rel string, data []byte, i int, s *saved) bool {
	if e.cfg.Attach == nil {
		return false
	}
	if len(data) > maxAttachBytes {
		s.Note = fmt.Sprintf("%.1f MB is over the 20 MB attachment limit", float64(len(data))/(1<<20))
		return false
	}
	copyPath, err := privateCopy(path.Base(rel), data)
	if err != nil {
		s.Note = fmt.Sprintf("could not stage the attachment (%v)", err)
		return false
	}
	sent, err := e.cfg.Attach.Attach(ctx, c.Who, copyPath, "", fmt.Sprintf("%s:%s:%d", c.Who.RunID, c.ID, i))
	if err != nil {
		s.Note = fmt.Sprintf("could not send it to the chat (%v)", err)
		return false
	}
	if sent {
		s.Delivered = "attachment"
	}
	return sent
}

// privateCopy writes data to a new private temp file named name.
func privateCopy(name string, data []byte) (string, error) {
	dir, err := os.MkdirTemp("", "openclaw-gen-")
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		return "", err
	}
	return p, nil
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
