package browser

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"math"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/fs"
)

// maxUploadFiles bounds one upload.
const maxUploadFiles = 20

// shotSeq numbers saved files within a process so names never clash.
var shotSeq atomic.Int64

// screenshot captures the viewport, the whole page, or one ref's element
// as PNG.
func (t *tab) screenshot(ctx context.Context, fullPage bool, ref string) ([]byte, error) {
	cctx, cancel := t.bound(ctx, 30*time.Second)
	defer cancel()
	p := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng}
	switch {
	case ref != "":
		id, err := t.ref(ref)
		if err != nil {
			return nil, err
		}
		clip, err := boxOf(cctx, ref, id)
		if err != nil {
			return nil, err
		}
		p.Clip = clip
		p.CaptureBeyondViewport = ptr(true)
	case fullPage:
		m, err := chromedp.Call(cctx, page.GetLayoutMetrics, cdp.Empty{})
		if err != nil {
			return nil, fmt.Errorf("page size: %w", err)
		}
		if m.CSSContentSize != nil {
			p.Clip = &page.Viewport{Width: math.Ceil(m.CSSContentSize.Width), Height: math.Ceil(m.CSSContentSize.Height), Scale: 1}
			p.CaptureBeyondViewport = ptr(true)
		}
	}
	t.settle(cctx, 10*time.Second)
	var res page.CaptureScreenshotResult
	err := whileNavigating(cctx, func() (err error) {
		// A navigation that started after settle looked can still swallow
		// the request; one unanswered attempt is abandoned and asked again
		// once the page has settled, within the call's bound.
		for {
			actx, acancel := context.WithTimeout(cctx, 8*time.Second)
			res, err = chromedp.Call(actx, page.CaptureScreenshot, p)
			acancel()
			if err == nil || cctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) {
				return err
			}
			t.settle(cctx, 10*time.Second)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("screenshot: %w", err)
	}
	return res.Data, nil
}

// boxOf returns the page-coordinates box of a node, for a clip.
func boxOf(ctx context.Context, ref string, id cdp.BackendNodeID) (*page.Viewport, error) {
	if _, err := chromedp.Call(ctx, dom.ScrollIntoViewIfNeeded, dom.ScrollIntoViewIfNeededParams{BackendNodeID: id}); err != nil {
		return nil, staleRef(ref)
	}
	q, err := chromedp.Call(ctx, dom.GetContentQuads, dom.GetContentQuadsParams{BackendNodeID: id})
	if err != nil || len(q.Quads) == 0 || len(q.Quads[0]) < 8 {
		return nil, fmt.Errorf("%s has no box on the page (hidden?)", ref)
	}
	quad := q.Quads[0]
	minX, minY, maxX, maxY := quad[0], quad[1], quad[0], quad[1]
	for i := 0; i < 8; i += 2 {
		minX, maxX = math.Min(minX, quad[i]), math.Max(maxX, quad[i])
		minY, maxY = math.Min(minY, quad[i+1]), math.Max(maxY, quad[i+1])
	}
	// Quads are in viewport coordinates; a clip is in page coordinates.
	m, err := chromedp.Call(ctx, page.GetLayoutMetrics, cdp.Empty{})
	if err == nil && m.CSSVisualViewport != nil {
		minX += m.CSSVisualViewport.PageX
		minY += m.CSSVisualViewport.PageY
	}
	return &page.Viewport{X: minX, Y: minY, Width: math.Max(1, maxX-minX), Height: math.Max(1, maxY-minY), Scale: 1}, nil
}

func (t *tab) pdf(ctx context.Context) ([]byte, error) {
	cctx, cancel := t.bound(ctx, 60*time.Second)
	defer cancel()
	t.settle(cctx, 10*time.Second)
	var data []byte
	err := whileNavigating(cctx, func() (err error) {
		data, err = chromedp.Run(cctx, chromedp.PrintToPDF(func(p *page.PrintToPDFParams) { p.PrintBackground = ptr(true) }))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("print to PDF: %w", err)
	}
	return data, nil
}

// pngSize reads a PNG's dimensions.
func pngSize(data []byte) (int, int) {
	c, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0, 0
	}
	return c.Width, c.Height
}

// save writes data through an os.Root on the caller's workspace to
// browser/<date>/<prefix>-<n>.<ext> and returns the absolute and the
// workspace-relative path.
func (m *Manager) save(workspace, prefix, ext string, data []byte) (abs, rel string, err error) {
	root, err := os.OpenRoot(workspace)
	if err != nil {
		return "", "", err
	}
	defer root.Close()
	now := m.now()
	sub := path.Join("browser", now.Format("2006-01-02"))
	if err := root.MkdirAll(sub, 0o700); err != nil {
		return "", "", err
	}
	for {
		rel = path.Join(sub, fmt.Sprintf("%s-%s-%d.%s", prefix, now.Format("150405"), shotSeq.Add(1), ext))
		f, err := root.OpenFile(rel, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", "", err
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			root.Remove(rel)
			return "", "", err
		}
		return filepath.Join(workspace, filepath.FromSlash(rel)), rel, nil
	}
}

// uploadPaths turns the model's paths into absolute paths of regular
// files inside the workspace. os.Root does the confinement, so "..",
// absolute paths elsewhere and symlinks that leave the workspace all fail;
// fs.CheckLinks refuses hard links.
func uploadPaths(workspace string, paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, errors.New("upload needs paths (workspace-relative files)")
	}
	if len(paths) > maxUploadFiles {
		return nil, fmt.Errorf("upload takes at most %d files", maxUploadFiles)
	}
	root, err := os.OpenRoot(workspace)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		rel := p
		if filepath.IsAbs(p) {
			r, err := filepath.Rel(workspace, p)
			if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				return nil, fmt.Errorf("upload %q: outside the workspace", p)
			}
			rel = r
		}
		fi, err := root.Stat(rel)
		if err != nil {
			return nil, fmt.Errorf("upload %q: %w", p, err)
		}
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("upload %q: not a regular file", p)
		}
		// Chromium opens the file by its path, outside any os.Root, so
		// the check on what the path names is made here.
		if err := fs.CheckLinks(fi); err != nil {
			return nil, fmt.Errorf("upload %q: %w", p, err)
		}
		out = append(out, filepath.Join(workspace, filepath.Clean(rel)))
	}
	return out, nil
}

// upload sets files on a file input found by ref or CSS selector; with
// only clickRef, it clicks that element and answers the file chooser the
// click opens.
func (t *tab) upload(ctx context.Context, files []string, inputRef, element, clickRef string) (string, error) {
	cctx, cancel := t.bound(ctx, 30*time.Second)
	defer cancel()
	var id cdp.BackendNodeID
	var err error
	switch {
	case inputRef != "":
		id, err = t.ref(inputRef)
	case element != "":
		id, err = t.querySelector(cctx, element)
	case clickRef != "":
		return t.uploadByChooser(cctx, files, clickRef)
	default:
		return "", errors.New("upload needs inputRef, element or ref")
	}
	if err != nil {
		return "", err
	}
	if _, err := chromedp.Call(cctx, dom.SetFileInputFiles, dom.SetFileInputFilesParams{Files: files, BackendNodeID: id}); err != nil {
		return "", fmt.Errorf("set files: %w", err)
	}
	return fmt.Sprintf("set %d file(s) on the input", len(files)), nil
}

func (t *tab) uploadByChooser(ctx context.Context, files []string, clickRef string) (string, error) {
	if _, err := chromedp.Call(ctx, page.SetInterceptFileChooserDialog, page.SetInterceptFileChooserDialogParams{Enabled: true}); err != nil {
		return "", fmt.Errorf("intercept file chooser: %w", err)
	}
	defer chromedp.Call(ctx, page.SetInterceptFileChooserDialog, page.SetInterceptFileChooserDialogParams{Enabled: false})
	opened := make(chan cdp.BackendNodeID, 1)
	lctx, stop := context.WithCancel(t.ctx)
	defer stop()
	if err := chromedp.Listen(lctx, func(ev any) {
		if ev, ok := ev.(*page.EventFileChooserOpened); ok {
			select {
			case opened <- ev.BackendNodeID:
			default:
			}
		}
	}); err != nil {
		return "", err
	}
	x, y, err := t.center(ctx, clickRef)
	if err != nil {
		return "", err
	}
	if err := chromedp.Do(ctx, chromedp.MouseClickXY(x, y)); err != nil {
		return "", fmt.Errorf("click %s: %w", clickRef, err)
	}
	select {
	case id := <-opened:
		if _, err := chromedp.Call(ctx, dom.SetFileInputFiles, dom.SetFileInputFilesParams{Files: files, BackendNodeID: id}); err != nil {
			return "", fmt.Errorf("set files: %w", err)
		}
		return fmt.Sprintf("set %d file(s) on the chooser %s opened", len(files), clickRef), nil
	case <-time.After(10 * time.Second):
		return "", fmt.Errorf("clicking %s opened no file chooser", clickRef)
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// resultImage shows the model a PNG beside the MEDIA: path when it is
// small enough for the model APIs to take.
func resultImage(png []byte) []tools.Image {
	if len(png) > tools.MaxResultImageBytes {
		return nil
	}
	return []tools.Image{{MediaType: "image/png", Data: png}}
}

// whileNavigating runs fn and, when it fails because the tab is between
// two documents (a click that submitted a form, say), retries it for a
// few seconds until the new document is there.
func whileNavigating(ctx context.Context, fn func() error) error {
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := fn()
		if err == nil || !detached(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// detached reports CDP's errors for a page that is navigating away.
func detached(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Not attached to an active page") || strings.Contains(msg, "Cannot find context") ||
		strings.Contains(msg, "Execution context was destroyed")
}
