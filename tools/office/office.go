// Package office holds MateClaw's render tools (XlsxRenderTool,
// DocxRenderTool, PptxRenderTool): they turn Markdown into an Office file
// in the caller's workspace, in-process, and hand back a one-time download
// link made by an injected publisher.
package office

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/fs"
)

// Config wires the tools to the gateway: Workspace maps a caller to its
// workspace directory; Publish may be nil (then results carry no link).
type Config struct {
	Workspace func(who tools.Who) (string, error)
	Publish   tools.Publisher
}

// Limits that keep one call cheap enough for TimeoutFast.
const (
	maxMarkdown = 2 << 20
	maxSlides   = 200
	maxSheets   = 100
	exportDir   = "exports"
)

// RenderArgs are the arguments of XlsxRenderTool and DocxRenderTool.
type RenderArgs struct {
	Markdown string `json:"markdown" jsonschema:"description=Markdown source to render"`
	Filename string `json:"filename,omitempty" jsonschema:"description=Base name of the file to create under exports/ (extension added; default derived from the content)"`
}

// PptxArgs are PptxRenderTool's arguments.
type PptxArgs struct {
	Markdown string `json:"markdown" jsonschema:"description=Markdown source; lines of --- (after a blank line) split slides and the first heading of a slide is its title"`
	Filename string `json:"filename,omitempty" jsonschema:"description=Base name of the file to create under exports/ (extension added)"`
	Aspect   string `json:"aspect,omitempty" jsonschema:"description=Slide shape: 16:9 (default) or 4:3,enum=16:9,enum=4:3"`
}

// Tools returns the render tools.
func Tools(cfg Config) []tools.Tool {
	spec := func(name, desc string) tools.Spec {
		return tools.Spec{
			Name: name, Description: desc, Tier: tools.TierCore, Source: tools.SourceCore,
			Groups: []string{"group:fs"}, Timeout: tools.TimeoutFast,
		}
	}
	xlsx := tools.NewTyped(spec("XlsxRenderTool",
		"Render Markdown tables into an Excel workbook (a ## heading starts a new sheet) and return a download link."),
		func(ctx context.Context, c tools.Call, a RenderArgs) (tools.Result, error) {
			return cfg.render(ctx, c.Who, a.Markdown, a.Filename, "xlsx", func(doc []block) ([]byte, map[string]any, error) {
				data, n, err := renderXlsx(doc)
				return data, map[string]any{"sheets": n}, err
			})
		})
	docx := tools.NewTyped(spec("DocxRenderTool",
		"Render Markdown (headings, lists, tables, code) into a Word document and return a download link."),
		func(ctx context.Context, c tools.Call, a RenderArgs) (tools.Result, error) {
			return cfg.render(ctx, c.Who, a.Markdown, a.Filename, "docx", func(doc []block) ([]byte, map[string]any, error) {
				data, n, err := renderDocx(doc)
				return data, map[string]any{"paragraphs": n}, err
			})
		})
	pptx := tools.NewTyped(spec("PptxRenderTool",
		"Render Markdown into a PowerPoint deck (--- splits slides; the first heading is the slide title) and return a download link."),
		func(ctx context.Context, c tools.Call, a PptxArgs) (tools.Result, error) {
			return cfg.render(ctx, c.Who, a.Markdown, a.Filename, "pptx", func(doc []block) ([]byte, map[string]any, error) {
				data, n, err := renderPptx(doc, a.Aspect)
				return data, map[string]any{"slides": n}, err
			})
		})
	return []tools.Tool{xlsx, docx, pptx}
}

type renderFunc func(doc []block) ([]byte, map[string]any, error)

// render is the part shared by all tools: check, parse, render, write
// without overwriting, publish.
func (cfg Config) render(ctx context.Context, who tools.Who, md, filename, ext string, fn renderFunc) (tools.Result, error) {
	if len(md) > maxMarkdown {
		return tools.Result{}, fmt.Errorf("markdown is %d bytes; at most %d (2 MB) can be rendered", len(md), maxMarkdown)
	}
	if strings.TrimSpace(md) == "" {
		return tools.Result{}, errors.New("markdown is empty")
	}
	if cfg.Workspace == nil {
		return tools.Result{}, errors.New("no workspace configured")
	}
	doc := parseMarkdown([]byte(md))
	data, extra, err := fn(doc)
	if err != nil {
		return tools.Result{}, fmt.Errorf("render %s: %w", ext, err)
	}
	dir, err := cfg.Workspace(who)
	if err != nil {
		return tools.Result{}, fmt.Errorf("find workspace: %w", err)
	}
	ws, err := fs.OpenWorkspace(dir)
	if err != nil {
		return tools.Result{}, fmt.Errorf("open workspace: %w", err)
	}
	defer ws.Close()
	rel, err := fs.WriteNew(ws.Root(), exportDir, fs.ExportName(filename, ext, firstText(doc)), ext, data)
	if err != nil {
		return tools.Result{}, err
	}
	out := map[string]any{"path": rel, "bytes": len(data)}
	for k, v := range extra {
		out[k] = v
	}
	if cfg.Publish == nil {
		out["note"] = "no download link available; the file is in your workspace at " + rel
	} else if url, err := cfg.Publish(ctx, who, rel); err != nil {
		out["note"] = fmt.Sprintf("could not make a download link (%v); the file is in your workspace at %s", err, rel)
	} else {
		out["url"] = url
	}
	text, err := json.Marshal(out)
	if err != nil {
		return tools.Result{}, fmt.Errorf("encode result: %w", err)
	}
	return tools.Result{Text: string(text)}, nil
}

// firstText is the document's first words, to name an unnamed export.
func firstText(doc []block) string {
	for _, b := range doc {
		if t := b.plain(); strings.TrimSpace(t) != "" {
			return t
		}
	}
	return ""
}
