// Package testserver is the MCP server the mcp package's tests talk to,
// run both as a child process (../main.go) and in-process over HTTP.
package testserver

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options shape the server's misbehaviour.
type Options struct {
	// CrashAfter > 0 calls Crash on that many-th tool call, before answering.
	CrashAfter int
	Crash      func()
}

type textIn struct {
	Text string `json:"text"`
}

type addIn struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type slowIn struct {
	Ms int `json:"ms,omitempty"`
}

type noIn struct{}

// New makes the server with tools echo, add, boom, slow, picture and grow
// (which adds the tool "extra" and so sends tools/list_changed).
func New(opts Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "testserver", Version: "1"}, nil)
	var calls atomic.Int64
	count := func() {
		if n := calls.Add(1); opts.CrashAfter > 0 && n >= int64(opts.CrashAfter) && opts.Crash != nil {
			opts.Crash()
		}
	}
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echoes text"}, func(_ context.Context, _ *mcp.CallToolRequest, in textIn) (*mcp.CallToolResult, any, error) {
		count()
		return text(in.Text), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "adds a and b", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, any, error) {
		count()
		return text(fmt.Sprint(in.A + in.B)), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "boom", Description: "always fails"}, func(_ context.Context, _ *mcp.CallToolRequest, _ noIn) (*mcp.CallToolResult, any, error) {
		count()
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "boom failed"}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "sleeps ms (default 10 s)"}, func(ctx context.Context, _ *mcp.CallToolRequest, in slowIn) (*mcp.CallToolResult, any, error) {
		count()
		d := 10 * time.Second
		if in.Ms > 0 {
			d = time.Duration(in.Ms) * time.Millisecond
		}
		select {
		case <-time.After(d):
			return text("slept"), nil, nil
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	})
	mcp.AddTool(s, &mcp.Tool{Name: "picture", Description: "a 1x1 PNG"}, func(_ context.Context, _ *mcp.CallToolRequest, _ noIn) (*mcp.CallToolResult, any, error) {
		count()
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "a picture"},
			&mcp.ImageContent{MIMEType: "image/png", Data: PNG()},
		}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "grow", Description: "adds the tool extra"}, func(_ context.Context, _ *mcp.CallToolRequest, _ noIn) (*mcp.CallToolResult, any, error) {
		count()
		mcp.AddTool(s, &mcp.Tool{Name: "extra", Description: "added at runtime"}, func(context.Context, *mcp.CallToolRequest, noIn) (*mcp.CallToolResult, any, error) {
			return text("extra here"), nil, nil
		})
		return text("grown"), nil, nil
	})
	return s
}

// PNG is a 1x1 red PNG.
func PNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}
