package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openclaw-go/openclaw/tools"
)

// ToolSource is a tool set to expose over MCP. The gateway backs it with
// its Runner, so policy, Tool Guard, approvals and timeouts apply to every
// call exactly as to the agent's own. Both methods may be called
// concurrently; Call must honour ctx (cancelled when the client cancels).
type ToolSource interface {
	// Specs lists the tools who may see.
	Specs(who tools.Who) []tools.Spec
	// Call runs one tool; failures come back as error results.
	Call(ctx context.Context, name string, args json.RawMessage) tools.Result
}

// Serve exposes src's tools as an MCP server over t until the client
// disconnects or ctx ends. The tool list is read once, at start: the
// caller identity is the ToolSource's to bind (Specs gets a zero Who), so
// a source that must filter per caller does it itself.
func Serve(ctx context.Context, src ToolSource, t sdk.Transport) error {
	return newServer(src).Run(ctx, t)
}

// ServeStdio serves over newline-delimited JSON on stdin and stdout, the
// way an MCP host runs "openclaw mcp serve". Nothing else may write to
// stdout meanwhile.
func ServeStdio(ctx context.Context, src ToolSource, stdin io.Reader, stdout io.Writer) error {
	return Serve(ctx, src, &sdk.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}})
}

// Handler serves src over streamable HTTP; the caller mounts it behind
// its own authentication.
func Handler(src ToolSource) http.Handler {
	s := newServer(src)
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func newServer(src ToolSource) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "openclaw", Version: "1"}, &sdk.ServerOptions{HasTools: true})
	for _, spec := range src.Specs(tools.Who{}) {
		name := spec.Name
		s.AddTool(&sdk.Tool{
			Name:        name,
			Title:       spec.Label,
			Description: spec.Description,
			InputSchema: objectSchema(rawOrNil(spec.Parameters)),
		}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var args json.RawMessage
			if req.Params != nil {
				args = req.Params.Arguments
			}
			return fromResult(src.Call(ctx, name, args)), nil
		})
	}
	return s
}

// rawOrNil keeps an absent schema absent rather than a JSON null.
func rawOrNil(r json.RawMessage) any {
	if len(r) == 0 {
		return nil
	}
	return r
}

// fromResult turns a tool result into an MCP answer: a tool's failure is
// isError content the client's model can read, not a protocol error.
func fromResult(r tools.Result) *sdk.CallToolResult {
	out := &sdk.CallToolResult{IsError: r.IsError, Content: []sdk.Content{}}
	if r.Text != "" || len(r.Images) == 0 {
		out.Content = append(out.Content, &sdk.TextContent{Text: r.Text})
	}
	for _, img := range r.Images {
		out.Content = append(out.Content, &sdk.ImageContent{MIMEType: img.MediaType, Data: img.Data})
	}
	return out
}
