package tools

import "context"

// Progress is a tool's word on a long call while it runs: a generation job
// queued, running at 40%, downloading its result.
type Progress struct {
	// Message says what is happening, in a few words.
	Message string
	// Fraction is how far the work is, 0 to 1; negative when unknown.
	Fraction float64
}

type progressKey struct{}

// WithProgress returns ctx carrying fn, which hears the Progress a tool
// called with that ctx reports. The agent loop puts one on each call and
// turns what it hears into tool update events; fn must not block.
func WithProgress(ctx context.Context, fn func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// ReportProgress tells the caller of the tool running under ctx how far it
// is. Without a listener (a CLI invocation, tools.invoke) it does nothing.
func ReportProgress(ctx context.Context, p Progress) {
	if fn, ok := ctx.Value(progressKey{}).(func(Progress)); ok && fn != nil {
		fn(p)
	}
}
