package agents

import (
	"fmt"
	"math"

	"github.com/openclaw-go/openclaw/agents/providers"
	"github.com/openclaw-go/openclaw/gateway/config"
)

// usageCost prices usage with the model's cost in models.providers
// (dollars per million tokens), in OpenClaw's usage.cost shape. ok is
// false when the model declares no price.
func usageCost(cfg *config.Config, ref string, u providers.Usage) (map[string]float64, bool) {
	m, ok := cfg.ModelDefinition(ref)
	if !ok || m.Cost == (config.ModelCost{}) {
		return nil, false
	}
	part := func(tokens int64, perMillion float64) float64 {
		return roundMicros(float64(tokens) * perMillion / 1e6)
	}
	c := map[string]float64{
		"input":      part(u.InputTokens, m.Cost.Input),
		"output":     part(u.OutputTokens, m.Cost.Output),
		"cacheRead":  part(u.CacheReadTokens, m.Cost.CacheRead),
		"cacheWrite": part(u.CacheWriteTokens, m.Cost.CacheWrite),
	}
	c["total"] = roundMicros(c["input"] + c["output"] + c["cacheRead"] + c["cacheWrite"])
	return c, true
}

// roundMicros keeps costs to a millionth of a dollar, so float noise does
// not show.
func roundMicros(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// withoutImagesFor drops image parts from msgs when ref's models.providers
// entry declares an input list without "image", leaving a line that says
// why, so a text-only model is never sent a picture.
func withoutImagesFor(cfg *config.Config, ref string, msgs []providers.Message) []providers.Message {
	if !cfg.ModelRefusesImages(ref) {
		return msgs
	}
	var out []providers.Message
	for i, m := range msgs {
		if len(m.Images) == 0 {
			continue
		}
		if out == nil {
			out = append([]providers.Message(nil), msgs...)
		}
		note := fmt.Sprintf("[%d image(s) not sent: %s takes only text (its input in models.providers has no \"image\")]", len(m.Images), ref)
		if m.Text != "" {
			note = m.Text + "\n" + note
		}
		m.Text, m.Images = note, nil
		out[i] = m
	}
	if out == nil {
		return msgs
	}
	return out
}
