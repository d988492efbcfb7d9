package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openclaw-go/openclaw/tools"
)

// maxToolName is the longest tool name the model providers accept.
const maxToolName = 64

// toolName makes the registry name of a remote tool: "<server>__<tool>"
// limited to the characters and length every provider accepts. A name that
// had to be cut keeps a hash of the original so two long names stay apart.
func toolName(server, tool string) string {
	full := server + "__" + tool
	name := sanitize(full)
	if len(name) <= maxToolName {
		return name
	}
	return name[:maxToolName-9] + "_" + shortHash(full)
}

func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

// keepTool applies a server's include and exclude globs to a remote tool
// name. No include list means every tool; exclude wins over include.
func keepTool(name string, include, exclude []string) bool {
	match := func(globs []string) bool {
		for _, g := range globs {
			if ok, _ := path.Match(g, name); ok || g == name {
				return true
			}
		}
		return false
	}
	if len(include) > 0 && !match(include) {
		return false
	}
	return !match(exclude)
}

// objectSchema returns schema as a JSON Schema object. Model providers
// reject tool parameters that are not an object, and some servers leave
// out the type or send no schema at all.
func objectSchema(schema any) json.RawMessage {
	empty := json.RawMessage(`{"type":"object","properties":{}}`)
	if schema == nil {
		return empty
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return empty
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return empty
	}
	if t, ok := m["type"]; ok && t == "object" {
		return raw
	}
	if _, ok := m["type"]; ok {
		// A non-object schema cannot describe named arguments.
		return empty
	}
	m["type"] = "object"
	if raw, err = json.Marshal(m); err != nil {
		return empty
	}
	return raw
}

// toResult turns a tools/call answer into what the model reads: text parts
// joined, pictures passed as images, anything else described in a line.
func toResult(res *sdk.CallToolResult) tools.Result {
	var out tools.Result
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			if len(c.Data) > tools.MaxResultImageBytes {
				parts = append(parts, fmt.Sprintf("[image %s of %d bytes omitted: too large]", c.MIMEType, len(c.Data)))
				continue
			}
			out.Images = append(out.Images, tools.Image{MediaType: c.MIMEType, Data: c.Data})
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s omitted]", c.MIMEType))
		case *sdk.ResourceLink:
			parts = append(parts, "resource: "+c.URI)
		case *sdk.EmbeddedResource:
			if c.Resource == nil {
				continue
			}
			if c.Resource.Text != "" {
				parts = append(parts, c.Resource.Text)
			} else {
				parts = append(parts, fmt.Sprintf("[resource %s (%s) omitted]", c.Resource.URI, c.Resource.MIMEType))
			}
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		// Servers with an output schema may answer with structured
		// content only; the model still needs to read it.
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	out.Text = strings.Join(parts, "\n")
	out.IsError = res.IsError
	if out.IsError && out.Text == "" {
		out.Text = "tool reported an error"
	}
	return out
}

func lower(s string) string { return strings.ToLower(s) }

// pathMatch checks a filter glob is well formed.
func pathMatch(glob string) (bool, error) { return path.Match(glob, "") }
