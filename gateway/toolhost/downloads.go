package toolhost

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/fs"
)

// downloadTTL is how long an unused download link stays valid.
const downloadTTL = time.Hour

// maxDownloads bounds the links waiting to be used; past it the oldest go.
const maxDownloads = 1024

// downloads hands out one-time links to files the render tools wrote in
// an agent's workspace. The random token is the only credential, so a
// link works once, expires within the hour, and never appears in a log.
type downloads struct {
	now func() time.Time

	mu    sync.Mutex
	links map[string]download
}

type download struct {
	workspace, rel string
	expires        time.Time
}

func newDownloads() *downloads {
	return &downloads{now: time.Now, links: map[string]download{}}
}

// publish records a link to rel in the caller's workspace and returns the
// URL path part (/files/<token>/<name>).
func (d *downloads) publish(workspace, rel string) (string, error) {
	ws, err := fs.OpenWorkspace(workspace)
	if err != nil {
		return "", err
	}
	defer ws.Close()
	clean, err := ws.Rel(rel)
	if err != nil {
		return "", err
	}
	fi, err := ws.Root().Stat(clean)
	if err != nil {
		return "", fmt.Errorf("publish %s: %w", clean, err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("publish %s: not a regular file", clean)
	}
	if err := fs.CheckLinks(fi); err != nil {
		return "", fmt.Errorf("publish %s: %w", clean, err)
	}
	var b [24]byte
	rand.Read(b[:])
	token := base64.RawURLEncoding.EncodeToString(b[:])
	now := d.now()
	d.mu.Lock()
	defer d.mu.Unlock()
	for k, l := range d.links {
		if !now.Before(l.expires) {
			delete(d.links, k)
		}
	}
	if len(d.links) >= maxDownloads {
		var oldest string
		for k, l := range d.links {
			if oldest == "" || l.expires.Before(d.links[oldest].expires) {
				oldest = k
			}
		}
		delete(d.links, oldest)
	}
	d.links[token] = download{workspace: workspace, rel: clean, expires: now.Add(downloadTTL)}
	return "/files/" + token + "/" + url.PathEscape(path.Base(clean)), nil
}

// take removes and returns the link for token, if it is still valid.
func (d *downloads) take(token string) (download, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	l, ok := d.links[token]
	if !ok {
		return download{}, false
	}
	delete(d.links, token)
	return l, d.now().Before(l.expires)
}

// serve answers GET /files/{token}/{name}. Unknown, used and expired
// links all get the same 404, so a guess learns nothing.
func (d *downloads) serve(w http.ResponseWriter, r *http.Request) {
	l, ok := d.take(r.PathValue("token"))
	if !ok {
		http.NotFound(w, r)
		return
	}
	ws, err := fs.OpenWorkspace(l.workspace)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer ws.Close()
	f, err := ws.Open(l.rel)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		http.NotFound(w, r)
		return
	}
	name := path.Base(l.rel)
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	w.Header().Set("Content-Length", strconv.FormatInt(fi.Size(), 10))
	w.Header().Set("Cache-Control", "no-store")
	io.Copy(w, f)
}

// publishFor is the tools' Publisher: a full URL on the gateway's own
// listener for a file in the caller's workspace.
func (h *Host) publishFor(ctx context.Context, who tools.Who, rel string) (string, error) {
	if h.downloads == nil {
		return "", errors.New("downloads are not available")
	}
	dir, err := h.opts.Agents.Workspace(who.AgentID)
	if err != nil {
		return "", err
	}
	p, err := h.downloads.publish(dir, rel)
	if err != nil {
		return "", err
	}
	return h.httpBase() + p, nil
}

// httpBase is the gateway's own HTTP origin as a local client reaches it.
func (h *Host) httpBase() string {
	a, ok := h.opts.Addr().(*net.TCPAddr)
	if !ok {
		return ""
	}
	host := a.IP.String()
	if a.IP.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(a.Port))
}
