// Package pdfrender holds PdfRenderTool (a MateClaw tool name): it renders
// Markdown to a PDF in the caller's workspace under exports/ and hands
// back a one-time download link made by an injected Publisher.
//
// Rendering is in-process (goldmark parses, fpdf draws) so no external
// binary or browser is needed. fpdf's core fonts only cover cp1252; text
// beyond it needs a Unicode TTF given as Config.FontPath, otherwise those
// characters become '?' and the result says how to enable them.
package pdfrender

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/fs"
)

// MaxMarkdownBytes bounds the input: larger documents would hold the
// renderer's memory and the call's time budget for little benefit.
const MaxMarkdownBytes = 2 << 20

// exportDir is where rendered files land inside the workspace.
const exportDir = "exports"

// Config wires the tool to the gateway. Workspace maps a caller to its
// workspace directory; Publish may be nil (no link is made); FontPath is
// an optional Unicode TTF used for all body text when set; Font, when
// FontPath is empty, finds one at the first render (FindFont walks font
// folders, which start-up should not pay for).
type Config struct {
	Workspace func(who tools.Who) (string, error)
	Publish   tools.Publisher
	FontPath  string
	Font      func() string
}

// Args are PdfRenderTool's arguments. Pointers tell "absent" from an
// explicit false or zero where the default is not the zero value.
type Args struct {
	Markdown    string   `json:"markdown" jsonschema:"description=Markdown document to render (GFM tables supported; at most 2 MB)"`
	Filename    string   `json:"filename,omitempty" jsonschema:"description=File name for the PDF (saved under exports/; default from the title or first heading)"`
	Title       string   `json:"title,omitempty" jsonschema:"description=Document title (PDF metadata and cover page)"`
	Cover       bool     `json:"cover,omitempty" jsonschema:"description=Add a cover page with the title and date"`
	Margins     *float64 `json:"margins,omitempty" jsonschema:"description=Page margins in millimetres (default 20)"`
	PageNumbers *bool    `json:"pageNumbers,omitempty" jsonschema:"description=Print page numbers in the footer (default true)"`
	PageSize    string   `json:"pageSize,omitempty" jsonschema:"enum=A4,enum=Letter,description=Paper size: A4 or Letter (default A4)"`
}

// result is the JSON the model reads.
type result struct {
	Path  string `json:"path"`
	Bytes int    `json:"bytes"`
	Pages int    `json:"pages"`
	URL   string `json:"url,omitempty"`
	Note  string `json:"note,omitempty"`
}

// Tools returns PdfRenderTool.
func Tools(cfg Config) []tools.Tool {
	t := tools.NewTyped(tools.Spec{
		Name:  "PdfRenderTool",
		Label: "Render Markdown to PDF",
		Description: "Render a Markdown document (headings, lists, tables, code, emphasis) to a PDF saved under exports/ " +
			"in your workspace, and get a one-time download link for it.",
		Tier:    tools.TierCore,
		Source:  tools.SourceCore,
		Timeout: tools.TimeoutFast,
		Groups:  []string{"group:fs"},
	}, func(ctx context.Context, c tools.Call, a Args) (tools.Result, error) {
		return run(ctx, cfg, c.Who, a)
	})
	return []tools.Tool{t}
}

func run(ctx context.Context, cfg Config, who tools.Who, a Args) (tools.Result, error) {
	if len(a.Markdown) > MaxMarkdownBytes {
		return tools.Result{}, fmt.Errorf("markdown is %d bytes, more than the %d-byte limit: split the document", len(a.Markdown), MaxMarkdownBytes)
	}
	if strings.TrimSpace(a.Markdown) == "" {
		return tools.Result{}, errors.New("markdown is empty")
	}
	opts := options{title: a.Title, cover: a.Cover, margin: 20, pageNumbers: true, size: "A4", fontPath: cfg.FontPath, now: time.Now()}
	if opts.fontPath == "" && cfg.Font != nil {
		opts.fontPath = cfg.Font()
	}
	if a.Margins != nil {
		if *a.Margins < 0 || *a.Margins > 80 {
			return tools.Result{}, fmt.Errorf("margins %g mm out of range 0-80", *a.Margins)
		}
		opts.margin = *a.Margins
	}
	if a.PageNumbers != nil {
		opts.pageNumbers = *a.PageNumbers
	}
	switch strings.ToLower(a.PageSize) {
	case "", "a4":
	case "letter":
		opts.size = "Letter"
	default:
		return tools.Result{}, fmt.Errorf("pageSize %q: use A4 or Letter", a.PageSize)
	}
	if cfg.Workspace == nil {
		return tools.Result{}, errors.New("pdfrender: no workspace resolver configured")
	}
	if err := ctx.Err(); err != nil {
		return tools.Result{}, err
	}
	out, err := render([]byte(a.Markdown), opts)
	if err != nil {
		return tools.Result{}, fmt.Errorf("render PDF: %w", err)
	}
	dir, err := cfg.Workspace(who)
	if err != nil {
		return tools.Result{}, fmt.Errorf("resolve workspace: %w", err)
	}
	ws, err := fs.OpenWorkspace(dir)
	if err != nil {
		return tools.Result{}, fmt.Errorf("open workspace %s: %w", dir, err)
	}
	defer ws.Close()
	base := fs.ExportName(a.Filename, "pdf", a.Title, out.heading)
	rel, err := fs.WriteNew(ws.Root(), exportDir, base, "pdf", out.data)
	if err != nil {
		return tools.Result{}, err
	}
	res := result{Path: rel, Bytes: len(out.data), Pages: out.pages}
	var notes []string
	if out.replaced > 0 {
		notes = append(notes, fmt.Sprintf("%d character(s) outside the built-in fonts' Latin (cp1252) range were printed as '?': "+
			"no Unicode TrueType font is configured or found in the system's font folders; set tools.pdfFont to one "+
			"(for CJK, e.g. DroidSansFallbackFull.ttf from Debian's fonts-droid-fallback, or a Noto Sans CJK .ttf) to render them", out.replaced))
	}
	if out.missing > 0 {
		notes = append(notes, fmt.Sprintf("%d character(s) (such as %q) have no glyph in the font %s and print blank; "+
			"set tools.pdfFont to a .ttf font that covers them (for CJK, e.g. DroidSansFallbackFull.ttf from Debian's fonts-droid-fallback, or a Noto Sans CJK .ttf)",
			out.missing, string(out.missingSample), filepath.Base(opts.fontPath)))
	}
	if cfg.Publish == nil {
		notes = append(notes, "no download link: publishing is not configured; the file is saved in your workspace")
	} else if url, err := cfg.Publish(ctx, who, rel); err != nil {
		notes = append(notes, fmt.Sprintf("no download link: publish failed (%v); the file is saved in your workspace", err))
	} else {
		res.URL = url
	}
	res.Note = strings.Join(notes, "; ")
	text, err := json.Marshal(res)
	if err != nil {
		return tools.Result{}, fmt.Errorf("encode result: %w", err)
	}
	return tools.Result{Text: string(text)}, nil
}
