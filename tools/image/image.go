// Package image holds the image tool (OpenClaw's `image`): it shows one
// or more images, from the caller's workspace or from http(s) URLs, to the
// configured image model with a prompt and returns the model's answer.
//
// The package does not call models itself: the gateway hands it an
// Analyzer (the agents service, which resolves agents.defaults.imageModel
// into a provider chain), so tools never import agents. Files are opened
// only through the workspace's os.Root, URLs are fetched only through a
// netguard client, and an image's type is taken from its bytes: a
// renamed or mislabelled file is still sent with its real media type, and
// anything but PNG, JPEG, GIF or WebP is refused.
package image

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/fs"
	"github.com/openclaw-go/openclaw/tools/netguard"
)

// Limits of one call.
const (
	// MaxImages is the most images one call sends.
	MaxImages = 8
	// DefaultMaxBytesMb is the per-image size cap when maxBytesMb is not
	// given; CapMaxBytesMb is the most maxBytesMb may raise it to, since
	// every image is held in memory and sent inline as base64.
	DefaultMaxBytesMb = 10
	CapMaxBytesMb     = 50
	// DefaultPrompt is asked when the call gives none.
	DefaultPrompt = "Describe the image."
)

// Image is one image ready for a model: its bytes and the media type
// read from them.
type Image struct {
	// Source is the path or URL the image came from, for messages.
	Source string
	// MediaType is image/png, image/jpeg, image/gif or image/webp.
	MediaType string
	Data      []byte
}

// Analyzer shows images to an image model. Analyze may block for as long
// as the model takes and must honour ctx. It returns ErrNoImageModel
// (wrapped or not) when no image model is configured. Implementations are
// safe for concurrent use.
type Analyzer interface {
	Analyze(ctx context.Context, agentID, prompt string, imgs []Image) (string, error)
}

// ErrNoImageModel is returned by an Analyzer with no image model to ask.
// The caller reports it: only an operator's config change fixes it.
var ErrNoImageModel = errors.New("no image model configured: set agents.defaults.imageModel")

// Config configures the image tool.
type Config struct {
	// Workspace maps a caller to its workspace directory. Required.
	Workspace func(who tools.Who) (string, error)
	// Analyzer answers the prompt about the images. Nil: every call
	// fails with ErrNoImageModel.
	Analyzer Analyzer
	// Network says which internal addresses image URLs may reach.
	// Default: none (loopback, private, link-local, metadata… refused).
	Network netguard.Policy
}

// Args are the image tool's arguments.
type Args struct {
	Prompt     string   `json:"prompt,omitempty" jsonschema:"description=What to ask about the images (default: Describe the image.)"`
	Image      string   `json:"image,omitempty" jsonschema:"description=One image: a path in your workspace or an http(s) URL"`
	Images     []string `json:"images,omitempty" jsonschema:"description=Several images (up to 8)\\, each a workspace path or an http(s) URL"`
	MaxBytesMb float64  `json:"maxBytesMb,omitempty" jsonschema:"description=Largest image accepted in MB (default 10\\, at most 50); bigger ones are refused"`
}

// Tool returns the image tool.
func Tool(cfg Config) tools.Tool {
	client := netguard.NewClient(netguard.Options{Policy: cfg.Network})
	return tools.NewTyped(tools.Spec{
		Name:  "image",
		Label: "Image",
		Description: "Analyze one or more images (PNG, JPEG, GIF, WebP) with the configured image model and return its answer. " +
			"Give image (one) or images (up to 8), each a path in your workspace or an http(s) URL, and a prompt saying what to look for.",
		Tier:   tools.TierCore,
		Source: tools.SourceCore,
		// One vision call may be retried and fall back to other models.
		Timeout: tools.TimeoutGeneration,
		Groups:  []string{"group:media"},
	}, func(ctx context.Context, c tools.Call, a Args) (tools.Result, error) {
		text, err := run(ctx, cfg, client, c.Who, a)
		if err != nil {
			return tools.Result{}, err
		}
		return tools.Result{Text: text}, nil
	})
}

// run loads the images a names and asks the analyzer about them.
func run(ctx context.Context, cfg Config, client *http.Client, who tools.Who, a Args) (string, error) {
	sources, limit, err := a.check()
	if err != nil {
		return "", err
	}
	if cfg.Analyzer == nil {
		return "", ErrNoImageModel
	}
	var ws *fs.Workspace
	imgs := make([]Image, 0, len(sources))
	for _, src := range sources {
		var img Image
		if isURL(src) {
			img, err = fetch(ctx, client, src, limit)
		} else {
			if ws == nil {
				if ws, err = openWorkspace(cfg, who); err != nil {
					return "", err
				}
				defer ws.Close()
			}
			img, err = readFile(ws, src, limit)
		}
		if err != nil {
			return "", err
		}
		imgs = append(imgs, img)
	}
	prompt := strings.TrimSpace(a.Prompt)
	if prompt == "" {
		prompt = DefaultPrompt
	}
	answer, err := cfg.Analyzer.Analyze(ctx, who.AgentID, prompt, imgs)
	if err != nil {
		if errors.Is(err, ErrNoImageModel) {
			return "", err
		}
		return "", fmt.Errorf("analyze %d image(s): %w", len(imgs), err)
	}
	return answer, nil
}

// check validates the arguments and returns the image sources, in order
// without repeats, and the per-image byte limit.
func (a Args) check() ([]string, int64, error) {
	var sources []string
	seen := map[string]bool{}
	for _, s := range append([]string{a.Image}, a.Images...) {
		s = strings.TrimSpace(s)
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		sources = append(sources, s)
	}
	switch {
	case len(sources) == 0:
		return nil, 0, errors.New("give image (a workspace path or an http(s) URL) or images")
	case len(sources) > MaxImages:
		return nil, 0, fmt.Errorf("%d images given; at most %d per call", len(sources), MaxImages)
	}
	mb := a.MaxBytesMb
	switch {
	case mb < 0:
		return nil, 0, fmt.Errorf("maxBytesMb %g is negative", mb)
	case mb == 0:
		mb = DefaultMaxBytesMb
	case mb > CapMaxBytesMb:
		mb = CapMaxBytesMb
	}
	return sources, int64(mb * (1 << 20)), nil
}

func openWorkspace(cfg Config, who tools.Who) (*fs.Workspace, error) {
	dir, err := cfg.Workspace(who)
	if err != nil {
		return nil, fmt.Errorf("resolve workspace: %w", err)
	}
	return fs.OpenWorkspace(dir)
}

// isURL reports whether src names an http(s) URL rather than a path.
func isURL(src string) bool {
	lower := strings.ToLower(src)
	return strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://")
}
