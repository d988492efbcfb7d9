package agents

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers"
	"github.com/openclaw-go/openclaw/tools/image"
)

var _ image.Analyzer = (*Service)(nil)

// Analyze asks agents.defaults.imageModel (its primary, then its
// fallbacks, with the same retries as agent turns, all within its
// timeoutMs when set) about imgs, and returns the answer's text. It is
// the image tool's Analyzer. agentID names the caller for the log; every
// agent shares the one image model. Without an image model it returns
// image.ErrNoImageModel rather than trying the agent's own model, which
// may not take images at all.
func (s *Service) Analyze(ctx context.Context, agentID, prompt string, imgs []image.Image) (string, error) {
	cfg := s.config()
	im := cfg.Agents.Defaults.ImageModel
	refs := im.Chain()
	if len(refs) == 0 {
		return "", image.ErrNoImageModel
	}
	// A model whose input list leaves out "image" is never sent one.
	var textOnly []string
	refs = slices.DeleteFunc(slices.Clone(refs), func(r string) bool {
		if cfg.ModelRefusesImages(r) {
			textOnly = append(textOnly, r)
			return true
		}
		return false
	})
	if len(refs) == 0 {
		return "", fmt.Errorf("agents.defaults.imageModel: %s take only text (their input in models.providers has no \"image\"); name a model that accepts images", strings.Join(textOnly, ", "))
	}
	if im.TimeoutMs > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(im.TimeoutMs)*time.Millisecond)
		defer cancel()
	}
	chain, err := s.chain(refs)
	if err != nil {
		return "", fmt.Errorf("agents.defaults.imageModel: %w", err)
	}
	msg := providers.Message{Role: providers.RoleUser, Text: prompt, Images: make([]providers.Image, len(imgs))}
	for i, img := range imgs {
		msg.Images[i] = providers.Image{MediaType: img.MediaType, Data: img.Data}
	}
	resp, _, err := chain.Complete(ctx, providers.Request{Messages: []providers.Message{msg}}, providers.Hooks{})
	if err != nil {
		return "", err
	}
	s.log.Debug("image analysed", "agent", agentID, "model", resp.Provider+"/"+resp.Model, "images", len(imgs),
		"input_tokens", resp.Usage.InputTokens, "output_tokens", resp.Usage.OutputTokens)
	return resp.Text, nil
}
