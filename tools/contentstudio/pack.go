package contentstudio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // cover and card formats
	_ "image/png"
	"io/fs"
	"net/http"
	"path"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/openclaw-go/openclaw/tools"
	wsfs "github.com/openclaw-go/openclaw/tools/fs"
)

// Platform limits, as the two editors enforce them.
const (
	gzhTitleRunes   = 64
	gzhDigestRunes  = 120
	gzhBodyRunes    = 20_000
	xhsTitleRunes   = 20
	xhsBodyRunes    = 1000
	xhsMinCards     = 3
	xhsMaxCards     = 18
	xhsMaxTags      = 10
	maxImageBytes   = 20 << 20
	exportsDir      = "exports"
	packageDirPerms = 0o755
)

// packer writes packages into agents' workspaces and records them.
type packer struct {
	workspace func(tools.Who) (string, error)
	cal       *Calendar
	now       func() time.Time
}

// GzhArgs are gzh_package's arguments.
type GzhArgs struct {
	Title            string   `json:"title" jsonschema:"description=Article title (at most 64 characters)"`
	Author           string   `json:"author,omitempty"`
	Digest           string   `json:"digest,omitempty" jsonschema:"description=Summary shown in the feed (at most 120 characters)"`
	Markdown         string   `json:"markdown" jsonschema:"description=The article body in Markdown; raw HTML is dropped"`
	Cover            string   `json:"cover" jsonschema:"description=Cover image in your workspace (JPEG or PNG)"`
	Topic            string   `json:"topic,omitempty" jsonschema:"description=What it is about, for the content calendar (default: the title)"`
	ExtraBannedWords []string `json:"extraBannedWords,omitempty"`
	Force            bool     `json:"force,omitempty" jsonschema:"description=Package even when the compliance scan finds terms (they are listed in the package)"`
}

// XhsArgs are xhs_package's arguments.
type XhsArgs struct {
	Title            string   `json:"title" jsonschema:"description=Note title (at most 20 characters)"`
	Body             string   `json:"body" jsonschema:"description=Note text (at most 1000 characters)"`
	Cards            []string `json:"cards" jsonschema:"description=3 to 18 vertical images in your workspace (JPEG or PNG, taller than wide), in order"`
	Tags             []string `json:"tags,omitempty" jsonschema:"description=Topic tags without #"`
	Topic            string   `json:"topic,omitempty"`
	ExtraBannedWords []string `json:"extraBannedWords,omitempty"`
	Force            bool     `json:"force,omitempty"`
}

var gzhMarkdown = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough))

// inlineStyles are the WeChat editor's stand-in for a stylesheet, which
// it strips: each tag carries its own style.
var inlineStyles = map[string]string{
	"h1": "font-size:22px;font-weight:bold;margin:24px 0 12px;", "h2": "font-size:19px;font-weight:bold;margin:20px 0 10px;",
	"h3": "font-size:17px;font-weight:bold;margin:16px 0 8px;", "p": "font-size:16px;line-height:1.75;margin:0 0 16px;",
	"blockquote": "border-left:4px solid #ddd;padding:4px 12px;color:#666;margin:0 0 16px;", "ul": "padding-left:24px;margin:0 0 16px;",
	"ol": "padding-left:24px;margin:0 0 16px;", "li": "line-height:1.75;", "code": "font-family:Menlo,monospace;background:#f5f5f5;padding:2px 4px;",
	"pre": "background:#f5f5f5;padding:12px;overflow-x:auto;", "table": "border-collapse:collapse;margin:0 0 16px;",
	"th": "border:1px solid #ddd;padding:6px 10px;", "td": "border:1px solid #ddd;padding:6px 10px;", "img": "max-width:100%;",
}

var openTag = regexp.MustCompile(`<(h1|h2|h3|p|blockquote|ul|ol|li|code|pre|table|th|td|img)([ >/])`)

// articleHTML renders the body for the WeChat editor.
func articleHTML(md string) (string, error) {
	var b bytes.Buffer
	if err := gzhMarkdown.Convert([]byte(md), &b); err != nil {
		return "", fmt.Errorf("render markdown: %w", err)
	}
	return openTag.ReplaceAllStringFunc(b.String(), func(m string) string {
		sub := openTag.FindStringSubmatch(m)
		return "<" + sub[1] + ` style="` + inlineStyles[sub[1]] + `"` + sub[2]
	}), nil
}

// image reads a workspace image, checks its type and size, and returns
// its bytes, extension and dimensions.
func readImage(ws *wsfs.Workspace, p string) (data []byte, ext string, cfg image.Config, err error) {
	rel, err := ws.Rel(p)
	if err != nil {
		return nil, "", cfg, err
	}
	st, err := ws.Root().Stat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, "", cfg, fmt.Errorf("%s does not exist in the workspace", p)
	case err != nil:
		return nil, "", cfg, err
	case !st.Mode().IsRegular():
		return nil, "", cfg, fmt.Errorf("%s is not a regular file", p)
	case st.Size() > maxImageBytes:
		return nil, "", cfg, fmt.Errorf("%s is over 20 MB", p)
	}
	if data, err = ws.ReadFile(rel); err != nil {
		return nil, "", cfg, err
	}
	switch http.DetectContentType(data) {
	case "image/jpeg":
		ext = ".jpg"
	case "image/png":
		ext = ".png"
	default:
		return nil, "", cfg, fmt.Errorf("%s is not a JPEG or PNG image", p)
	}
	if cfg, _, err = image.DecodeConfig(bytes.NewReader(data)); err != nil {
		return nil, "", cfg, fmt.Errorf("%s: %w", p, err)
	}
	return data, ext, cfg, nil
}

// slug names a package folder: the date and time, and the title's
// letters and digits; never a path of the caller's choosing.
func (p *packer) slug(title string) string {
	var b strings.Builder
	for _, r := range title {
		if b.Len() >= 40 {
			break
		}
		if ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') || r > 0x2E80 && r < 0xA000 {
			b.WriteRune(r)
		} else if b.Len() > 0 && !strings.HasSuffix(b.String(), "-") {
			b.WriteByte('-')
		}
	}
	name := strings.Trim(b.String(), "-")
	if name == "" {
		name = "post"
	}
	return p.now().UTC().Format("20060102-150405") + "-" + name
}

// write saves files into exports/<platform>/<slug>/ and returns the
// folder, relative to the workspace.
func write(ws *wsfs.Workspace, dir string, files map[string][]byte) error {
	if err := ws.Root().MkdirAll(dir, packageDirPerms); err != nil {
		return fmt.Errorf("make %s: %w", dir, err)
	}
	for name, data := range files {
		if err := ws.Root().WriteFile(path.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	return nil
}

func (p *packer) open(who tools.Who) (*wsfs.Workspace, error) {
	dir, err := p.workspace(who)
	if err != nil {
		return nil, err
	}
	return wsfs.OpenWorkspace(dir)
}

// flagged refuses a package whose scan found terms, unless forced.
func flagged(scan ScanResult, force bool) error {
	if scan.Passed || force {
		return nil
	}
	terms := make([]string, len(scan.Hits))
	for i, h := range scan.Hits {
		terms[i] = fmt.Sprintf("%s (%s)", h.Term, h.Category)
	}
	return fmt.Errorf("the compliance scan found %s; rewrite those passages, or package with force to keep them", strings.Join(terms, ", "))
}

func (p *packer) gzh(ctx context.Context, c tools.Call, a GzhArgs) (tools.Result, error) {
	switch {
	case strings.TrimSpace(a.Title) == "" || strings.TrimSpace(a.Markdown) == "" || a.Cover == "":
		return tools.Result{}, errors.New("gzh_package needs title, markdown and cover")
	case utf8.RuneCountInString(a.Title) > gzhTitleRunes:
		return tools.Result{}, errTooLong("title", gzhTitleRunes)
	case utf8.RuneCountInString(a.Digest) > gzhDigestRunes:
		return tools.Result{}, errTooLong("digest", gzhDigestRunes)
	case utf8.RuneCountInString(a.Markdown) > gzhBodyRunes:
		return tools.Result{}, errTooLong("markdown", gzhBodyRunes)
	}
	if err := checkScanArgs("", a.ExtraBannedWords); err != nil {
		return tools.Result{}, err
	}
	scan := Scan(a.Title+"\n"+a.Digest+"\n"+a.Markdown, a.ExtraBannedWords)
	if err := flagged(scan, a.Force); err != nil {
		return tools.Result{}, err
	}
	ws, err := p.open(c.Who)
	if err != nil {
		return tools.Result{}, err
	}
	defer ws.Close()
	cover, ext, _, err := readImage(ws, a.Cover)
	if err != nil {
		return tools.Result{}, fmt.Errorf("cover: %w", err)
	}
	html, err := articleHTML(a.Markdown)
	if err != nil {
		return tools.Result{}, err
	}
	dir := path.Join(exportsDir, "gzh", p.slug(a.Title))
	topic := cmpOr(a.Topic, a.Title)
	item, err := p.cal.Record(ctx, c.Who.AgentID, "gzh", topic, a.Title, dir)
	if err != nil {
		return tools.Result{}, err
	}
	meta := map[string]any{"platform": "gzh", "title": a.Title, "author": a.Author, "digest": a.Digest,
		"cover": "cover" + ext, "content": "article.html", "scan": scan, "contentItemId": item.ID}
	if err := write(ws, dir, map[string][]byte{"article.html": []byte(html), "cover" + ext: cover, "meta.json": []byte(tools.EncodeJSON(meta))}); err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Text: tools.EncodeJSON(map[string]any{"package": dir, "files": []string{"article.html", "cover" + ext, "meta.json"},
		"scan": scan, "contentItemId": item.ID})}, nil
}

func (p *packer) xhs(ctx context.Context, c tools.Call, a XhsArgs) (tools.Result, error) {
	switch {
	case strings.TrimSpace(a.Title) == "" || strings.TrimSpace(a.Body) == "":
		return tools.Result{}, errors.New("xhs_package needs title and body")
	case utf8.RuneCountInString(a.Title) > xhsTitleRunes:
		return tools.Result{}, errTooLong("title", xhsTitleRunes)
	case utf8.RuneCountInString(a.Body) > xhsBodyRunes:
		return tools.Result{}, errTooLong("body", xhsBodyRunes)
	case len(a.Cards) < xhsMinCards:
		return tools.Result{}, fmt.Errorf("a Xiaohongshu note needs at least %d cards; got %d", xhsMinCards, len(a.Cards))
	case len(a.Cards) > xhsMaxCards:
		return tools.Result{}, errTooMany("cards", xhsMaxCards)
	case len(a.Tags) > xhsMaxTags:
		return tools.Result{}, errTooMany("tags", xhsMaxTags)
	}
	if err := checkScanArgs("", a.ExtraBannedWords); err != nil {
		return tools.Result{}, err
	}
	scan := Scan(a.Title+"\n"+a.Body+"\n"+strings.Join(a.Tags, " "), a.ExtraBannedWords)
	if err := flagged(scan, a.Force); err != nil {
		return tools.Result{}, err
	}
	ws, err := p.open(c.Who)
	if err != nil {
		return tools.Result{}, err
	}
	defer ws.Close()
	files := map[string][]byte{}
	var names []string
	for i, card := range a.Cards {
		data, ext, cfg, err := readImage(ws, card)
		if err != nil {
			return tools.Result{}, fmt.Errorf("card %d: %w", i+1, err)
		}
		if cfg.Height <= cfg.Width {
			return tools.Result{}, fmt.Errorf("card %d (%s) is %dx%d: cards must be vertical (taller than wide, 3:4 is the usual)", i+1, card, cfg.Width, cfg.Height)
		}
		name := fmt.Sprintf("card-%02d%s", i+1, ext)
		files[name], names = data, append(names, name)
	}
	dir := path.Join(exportsDir, "xhs", p.slug(a.Title))
	item, err := p.cal.Record(ctx, c.Who.AgentID, "xhs", cmpOr(a.Topic, a.Title), a.Title, dir)
	if err != nil {
		return tools.Result{}, err
	}
	tags := a.Tags
	if tags == nil {
		tags = []string{}
	}
	note := map[string]any{"platform": "xhs", "title": a.Title, "body": a.Body, "tags": tags, "cards": names, "scan": scan, "contentItemId": item.ID}
	files["note.json"] = []byte(tools.EncodeJSON(note))
	if err := write(ws, dir, files); err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Text: tools.EncodeJSON(map[string]any{"package": dir, "cards": names, "scan": scan, "contentItemId": item.ID})}, nil
}

func cmpOr(a, b string) string { // cmp.Or, but blank counts as empty
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}
