package contentstudio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/openclaw-go/openclaw/tools"
	wsfs "github.com/openclaw-go/openclaw/tools/fs"
)

// XhsCreatorURL is Xiaohongshu's creator publish page, where xhs_publish
// goes unless tools.contentStudio.xhsCreatorUrl says otherwise.
const XhsCreatorURL = "https://creator.xiaohongshu.com/publish/publish"

// XhsBrowser opens the tab xhs_publish drives; the browser tool's
// Manager is one.
type XhsBrowser interface {
	// Page opens a tab in the named profile's browser; closeTab closes it.
	Page(ctx context.Context, profile string) (tab context.Context, closeTab func(), err error)
	// ProfileDir names where the profile keeps its cookies, for the
	// "log in once" error.
	ProfileDir(profile string) string
}

// xhsSelectors is every part of the creator page xhs_publish touches, in
// one place: the page is Xiaohongshu's to change, and when it does, this
// table is what needs updating. Each entry lists CSS selectors tried in
// order (the page has moved between editors, and the first selector
// that matches wins, whatever the document order); a text narrows them
// to the element whose text contains it.
var xhsSelectors = struct {
	// The page asks for a login: a login form on the page, or a redirect
	// to a path containing LoginPath.
	Login     []string
	LoginPath string
	// The tab switching the page from video to image-text upload.
	ImageTab     []string
	ImageTabText string
	// The file input of the image-text tab; its accept list names image
	// types, which tells it from the video tab's.
	Upload []string
	// One per uploaded card once the page has taken it.
	Preview []string
	// The title input and the body editor (contenteditable).
	Title, Body []string
	// The buttons: publish, and save as a draft and leave. The side
	// menu has a "发布笔记" entry too, so the page's own button classes
	// come first.
	Publish     []string
	PublishText string
	Draft       []string
	DraftText   string
	// Shown, or navigated to, once the note is published or saved.
	Published     []string
	PublishedPath string
	Drafted       []string
}{
	Login:         []string{".login-box", "form.login", `input[placeholder*="手机号"]`},
	LoginPath:     "/login",
	ImageTab:      []string{".creator-tab", ".tab-item"},
	ImageTabText:  "上传图文",
	Upload:        []string{`input[type="file"][accept*="jpg"]`, `input[type="file"][accept*="png"]`, `input[type="file"][accept*="image"]`},
	Preview:       []string{".img-preview-area .pr", ".img-list .img-container", ".image-item"},
	Title:         []string{`input.d-text[placeholder*="标题"]`, `input[placeholder*="标题"]`},
	Body:          []string{`div.ql-editor[contenteditable="true"]`, `div.tiptap[contenteditable="true"]`, `.editor-container [contenteditable="true"]`},
	Publish:       []string{"button.publishBtn", ".publish-page-publish-btn button"},
	PublishText:   "发布",
	Draft:         []string{".publish-page-publish-btn button", ".submit button"},
	DraftText:     "暂存离开",
	Published:     []string{".success-container", ".publish-success"},
	PublishedPath: "/publish/success",
	Drafted:       []string{".draft-saved"},
}

// Waits on the page, which is slow to load and to take images. Vars, so
// a test of a page that never gets there need not wait half a minute.
var (
	xhsLoadWait    = 30 * time.Second
	xhsUploadWait  = 90 * time.Second
	xhsConfirmWait = 30 * time.Second
)

const xhsPoll = 200 * time.Millisecond

// XhsPublishArgs are xhs_publish's arguments. There is no URL among them:
// where the browser goes is the operator's config, never the model's.
type XhsPublishArgs struct {
	Package string `json:"package" jsonschema:"description=A folder xhs_package made (exports/xhs/…)"`
	Publish bool   `json:"publish,omitempty" jsonschema:"description=Press publish instead of saving a draft; a person must approve it"`
}

// xhsMeta is the part of note.json publishing reads.
type xhsMeta struct {
	Platform      string   `json:"platform"`
	Title         string   `json:"title"`
	Body          string   `json:"body"`
	Tags          []string `json:"tags"`
	Cards         []string `json:"cards"`
	ContentItemID string   `json:"contentItemId"`
}

// xhsPublisher fills the creator page from xhs packages.
type xhsPublisher struct {
	browser   XhsBrowser
	workspace func(tools.Who) (string, error)
	approver  tools.Approver
	cal       *Calendar
	url       func() string
	profile   func() string
	log       *slog.Logger
}

// readNote loads and checks a package, and copies its cards into a
// private folder: Chromium reads uploads by path, outside the workspace's
// os.Root, so it must get files we wrote, not paths a model could have
// turned into symlinks.
func (p *xhsPublisher) readNote(c tools.Call, pkg string) (rel string, m xhsMeta, cards []string, cleanup func(), err error) {
	dir, err := p.workspace(c.Who)
	if err != nil {
		return "", m, nil, nil, err
	}
	ws, err := wsfs.OpenWorkspace(dir)
	if err != nil {
		return "", m, nil, nil, err
	}
	defer ws.Close()
	if rel, err = ws.Rel(pkg); err != nil {
		return "", m, nil, nil, err
	}
	if !strings.HasPrefix(rel+"/", exportsDir+"/xhs/") || rel == exportsDir+"/xhs" {
		return "", m, nil, nil, fmt.Errorf("%s is not an xhs_package folder (exports/xhs/…)", pkg)
	}
	raw, err := ws.ReadFile(path.Join(rel, "note.json"))
	if err != nil {
		return "", m, nil, nil, fmt.Errorf("read the package: %w", err)
	}
	if err := json.Unmarshal(raw, &m); err != nil || m.Platform != "xhs" || strings.TrimSpace(m.Title) == "" {
		return "", m, nil, nil, fmt.Errorf("%s/note.json is not an xhs package's", pkg)
	}
	if len(m.Cards) < xhsMinCards || len(m.Cards) > xhsMaxCards {
		return "", m, nil, nil, fmt.Errorf("%s/note.json lists %d cards; a note takes %d to %d", pkg, len(m.Cards), xhsMinCards, xhsMaxCards)
	}
	tmp, err := os.MkdirTemp("", "xhs-cards-")
	if err != nil {
		return "", m, nil, nil, fmt.Errorf("stage the cards: %w", err)
	}
	cleanup = func() { os.RemoveAll(tmp) }
	for i, n := range m.Cards {
		// The names come from a file the model can edit.
		if n == "" || strings.ContainsAny(n, `/\`) || n == "." || n == ".." {
			cleanup()
			return "", m, nil, nil, fmt.Errorf("%s/note.json names a file outside the package", pkg)
		}
		data, ext, _, err := readImage(ws, path.Join(rel, n))
		if err != nil {
			cleanup()
			return "", m, nil, nil, fmt.Errorf("card %d: %w", i+1, err)
		}
		f := filepath.Join(tmp, fmt.Sprintf("card-%02d%s", i+1, ext))
		if err := os.WriteFile(f, data, 0o600); err != nil {
			cleanup()
			return "", m, nil, nil, fmt.Errorf("stage card %d: %w", i+1, err)
		}
		cards = append(cards, f)
	}
	return rel, m, cards, cleanup, nil
}

func (p *xhsPublisher) call(ctx context.Context, c tools.Call, a XhsPublishArgs) (tools.Result, error) {
	rel, m, cards, cleanup, err := p.readNote(c, a.Package)
	if err != nil {
		return tools.Result{}, err
	}
	defer cleanup()
	// Re-scan what goes out: the package may have been edited since.
	if scan := Scan(m.Title+"\n"+m.Body+"\n"+strings.Join(m.Tags, " "), nil); !scan.Passed && a.Publish {
		return tools.Result{}, flagged(scan, false)
	}
	if a.Publish {
		// Ask before the page is even opened: a published note is public,
		// and the model asking is no reason to believe a person wants it.
		if p.approver == nil {
			return tools.Result{}, errors.New("publish needs a person's approval, and this gateway has no approver")
		}
		args, _ := json.Marshal(map[string]any{"package": rel, "title": m.Title, "cards": len(cards), "publish": true})
		ok, _, err := p.approver.Approve(ctx, tools.ApprovalRequest{Tool: "xhs_publish", Args: args, Who: c.Who, Reason: "publish the Xiaohongshu note " + m.Title})
		if err != nil {
			return tools.Result{}, fmt.Errorf("publishing was not approved; nothing was uploaded: %w", err)
		}
		if !ok {
			return tools.Result{}, errors.New("publishing was not approved; nothing was uploaded")
		}
	}
	if p.browser == nil {
		return tools.Result{}, errors.New("xhs_publish needs the browser, and this gateway has none")
	}
	profile := p.profile()
	tab, closeTab, err := p.browser.Page(ctx, profile)
	if err != nil {
		return tools.Result{}, fmt.Errorf("open the creator page: %w", err)
	}
	defer closeTab()
	// Commands run on the tab's context, and end with the call's.
	run, cancel := context.WithCancel(tab)
	defer cancel()
	defer context.AfterFunc(ctx, cancel)()

	d := &xhsDriver{ctx: run}
	creator := p.url()
	if err := d.fill(creator, m, cards); err != nil {
		if errors.Is(err, errXhsLogin) {
			which := "the browser's default profile"
			if profile != "" {
				which = fmt.Sprintf("browser profile %q", profile)
			}
			p.log.Warn("xhs creator page asks for a login", "agent", c.Who.AgentID, "profile", profile)
			return tools.Result{}, fmt.Errorf("Xiaohongshu asks for a login: log in once at %s in %s (%s), then call xhs_publish again; the gateway never stores your password: %w", creator, which, p.browser.ProfileDir(profile), err)
		}
		return tools.Result{}, err
	}
	out := map[string]any{"package": rel, "cards": len(cards), "published": false}
	if !a.Publish {
		if err := d.press(xhsSelectors.Draft, xhsSelectors.DraftText, xhsSelectors.Drafted, "", strings.SplitN(creator, "?", 2)[0]); err != nil {
			return tools.Result{}, fmt.Errorf("save the draft: %w", err)
		}
		out["draft"] = true
		p.log.Info("xhs note saved as a draft", "agent", c.Who.AgentID, "package", rel)
		return tools.Result{Text: tools.EncodeJSON(out)}, nil
	}
	if err := d.press(xhsSelectors.Publish, xhsSelectors.PublishText, xhsSelectors.Published, xhsSelectors.PublishedPath, ""); err != nil {
		return tools.Result{}, fmt.Errorf("publish: %w", err)
	}
	out["published"] = true
	p.log.Info("xhs note published", "agent", c.Who.AgentID, "package", rel)
	if m.ContentItemID != "" {
		ref := "xhs:browser:" + p.cal.now().UTC().Format(time.RFC3339)
		if err := p.cal.MarkPublished(ctx, c.Who.AgentID, m.ContentItemID, ref); err != nil {
			out["calendar"] = err.Error()
		}
	}
	return tools.Result{Text: tools.EncodeJSON(out)}, nil
}

var errXhsLogin = errors.New("login required")

// xhsDriver drives one creator tab.
type xhsDriver struct{ ctx context.Context }

// pageJS finds elements the way xhsSelectors describes them: the first
// match of the first selector that has one, in the table's order (not
// the document's), narrowed by text when one is given.
const pageJS = `(sels, text) => {
	for (const sel of sels) {
		for (const el of document.querySelectorAll(sel)) {
			if (!text || (el.textContent || "").includes(text)) return el;
		}
	}
	return null;
}`

// eval runs fn(args...) in the page and decodes its answer into out.
func (d *xhsDriver) eval(out any, body string, args ...any) error {
	js, _ := json.Marshal(args)
	expr := "((find, args) => {" + body + "})(" + pageJS + ", " + string(js) + ")"
	v, err := chromedp.Run(d.ctx, chromedp.Evaluate[json.RawMessage](expr))
	if err != nil {
		return err
	}
	return json.Unmarshal(v, out)
}

// waitFor polls the page until check says done, or d passes.
func (d *xhsDriver) waitFor(what string, max time.Duration, check func() (bool, error)) error {
	deadline := time.Now().Add(max)
	for {
		ok, err := check()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: the page did not get there within %s (if the creator page changed, its selectors need updating)", what, max)
		}
		select {
		case <-d.ctx.Done():
			return fmt.Errorf("%s: %w", what, d.ctx.Err())
		case <-time.After(xhsPoll):
		}
	}
}

// mark tags the element a selector and text find, so chromedp can act on
// it with real input events; it reports whether there was one.
func (d *xhsDriver) mark(sel []string, text, name string) (bool, error) {
	var ok bool
	err := d.eval(&ok, `const el = find(args[0], args[1]);
		document.querySelectorAll('[data-oc-xhs="'+args[2]+'"]').forEach(e => e.removeAttribute("data-oc-xhs"));
		if (!el) return false;
		el.setAttribute("data-oc-xhs", args[2]);
		return true;`, sel, text, name)
	return ok, err
}

func marked(name string) string { return `[data-oc-xhs="` + name + `"]` }

// fill opens the page, uploads the cards and types title, body and tags.
func (d *xhsDriver) fill(creator string, m xhsMeta, cards []string) error {
	if err := chromedp.Do(d.ctx, chromedp.Navigate(creator)); err != nil {
		return fmt.Errorf("open %s: %w", creator, err)
	}
	s := xhsSelectors
	state := ""
	err := d.waitFor("load the creator page", xhsLoadWait, func() (bool, error) {
		err := d.eval(&state, `if (location.pathname.includes(args[0]) || find(args[1])) return "login";
			if (find(args[2])) return "upload";
			if (find(args[3], args[4])) return "tab";
			return "";`, s.LoginPath, s.Login, s.Upload, s.ImageTab, s.ImageTabText)
		return state != "", err
	})
	if err != nil {
		return err
	}
	switch state {
	case "login":
		return errXhsLogin
	case "tab":
		if _, err := d.mark(s.ImageTab, s.ImageTabText, "tab"); err != nil {
			return err
		}
		if err := chromedp.Do(d.ctx, chromedp.Click(chromedp.CSS(marked("tab")))); err != nil {
			return fmt.Errorf("open the image-text tab: %w", err)
		}
		if err := d.waitFor("open the image-text tab", xhsLoadWait, func() (bool, error) {
			var ok bool
			err := d.eval(&ok, `return !!find(args[0]);`, s.Upload)
			return ok, err
		}); err != nil {
			return err
		}
	}
	if _, err := d.mark(s.Upload, "", "upload"); err != nil {
		return err
	}
	if err := chromedp.Do(d.ctx, chromedp.SetUploadFiles(chromedp.CSS(marked("upload")), cards)); err != nil {
		return fmt.Errorf("upload the cards: %w", err)
	}
	if err := d.waitFor(fmt.Sprintf("upload %d cards", len(cards)), xhsUploadWait, func() (bool, error) {
		var ok bool
		err := d.eval(&ok, `const n = Math.max(...args[0].map(s => document.querySelectorAll(s).length));
			return n >= args[1] && !!find(args[2]) && !!find(args[3]);`,
			s.Preview, len(cards), s.Title, s.Body)
		return ok, err
	}); err != nil {
		return err
	}
	if err := d.typeInto(s.Title, "title", []string{m.Title}); err != nil {
		return err
	}
	lines := strings.Split(strings.ReplaceAll(m.Body, "\r\n", "\n"), "\n")
	if len(m.Tags) > 0 {
		// Tags go in as #words on a line of their own, the way the page's
		// editor turns them into topics.
		tags := make([]string, len(m.Tags))
		for i, t := range m.Tags {
			tags[i] = "#" + strings.TrimPrefix(strings.TrimSpace(t), "#")
		}
		lines = append(lines, strings.Join(tags, " ")+" ")
	}
	return d.typeInto(s.Body, "body", lines)
}

// typeInto focuses a field and inserts its lines as text input, with
// Enter between them, as a person typing (or an input method committing)
// would: the page's editors listen to input events, not to value writes.
func (d *xhsDriver) typeInto(sel []string, name string, lines []string) error {
	ok, err := d.mark(sel, "", name)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("the creator page has no %s field (if it changed, its selectors need updating)", name)
	}
	if err := chromedp.Do(d.ctx, chromedp.Focus(chromedp.CSS(marked(name)))); err != nil {
		return fmt.Errorf("fill the %s: %w", name, err)
	}
	for i, line := range lines {
		if i > 0 {
			if err := chromedp.Do(d.ctx, chromedp.KeyEvent(kb.Enter)); err != nil {
				return fmt.Errorf("fill the %s: %w", name, err)
			}
		}
		if line == "" {
			continue
		}
		if _, err := chromedp.Call(d.ctx, input.InsertText, input.InsertTextParams{Text: line}); err != nil {
			return fmt.Errorf("fill the %s: %w", name, err)
		}
	}
	return nil
}

// press clicks a button and waits for the page to confirm: the done
// selector shows, the page goes to donePath, or, when left is set, it
// leaves that page (which is what saving a draft does). Leaving is not
// taken as a publish: a page that sends the user to log in also leaves.
func (d *xhsDriver) press(sel []string, text string, done []string, donePath, left string) error {
	ok, err := d.mark(sel, text, "button")
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("the creator page has no %q button (if it changed, its selectors need updating)", text)
	}
	if err := chromedp.Do(d.ctx, chromedp.Click(chromedp.CSS(marked("button")))); err != nil {
		return fmt.Errorf("press %q: %w", text, err)
	}
	return d.waitFor("confirm "+text, xhsConfirmWait, func() (bool, error) {
		var ok bool
		err := d.eval(&ok, `return !!find(args[0]) || (args[1] !== "" && location.pathname.includes(args[1])) ||
			(args[2] !== "" && (location.origin + location.pathname) !== args[2]);`, done, donePath, left)
		if err != nil && strings.Contains(err.Error(), "Execution context was destroyed") {
			return false, nil // navigating; look again
		}
		return ok, err
	})
}

func xhsPublishTool(p *xhsPublisher) tools.Tool {
	return tools.NewTyped(tools.Spec{
		Name: "xhs_publish", Label: "Publish a Xiaohongshu note",
		Description: "Fill Xiaohongshu's creator page from an xhs_package folder in the user's logged-in browser: upload the cards, type title, body and tags, and save a draft; with publish, press publish once a person approves.",
		Source:      tools.SourceCore, Groups: []string{"group:mateclaw"}, Dangerous: true, OwnerOnly: true,
		Tier: tools.TierExtension, Timeout: 5 * time.Minute,
	}, p.call)
}
