package toolhost

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDownloads(t *testing.T) {
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, "exports"), 0o700)
	os.WriteFile(filepath.Join(ws, "exports", "report.pdf"), []byte("%PDF-1.4 body"), 0o600)
	d := newDownloads()
	now := time.Now()
	d.now = func() time.Time { return now }
	mux := http.NewServeMux()
	mux.HandleFunc("GET /files/{token}/{name}", d.serve)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	get := func(p string) (int, string, http.Header) {
		resp, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}

	p, err := d.publish(ws, "exports/report.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p, "/files/") || !strings.HasSuffix(p, "/report.pdf") {
		t.Fatalf("link %q", p)
	}
	code, body, h := get(p)
	if code != 200 || body != "%PDF-1.4 body" || h.Get("Content-Type") != "application/pdf" ||
		!strings.Contains(h.Get("Content-Disposition"), `attachment; filename=report.pdf`) {
		t.Fatalf("first get: %d %q %v", code, body, h)
	}
	if code, _, _ := get(p); code != 404 {
		t.Fatalf("second get of a one-time link: %d", code)
	}

	p2, _ := d.publish(ws, "exports/report.pdf")
	now = now.Add(downloadTTL)
	if code, _, _ := get(p2); code != 404 {
		t.Fatalf("expired link: %d", code)
	}
	if code, _, _ := get("/files/not-a-token/report.pdf"); code != 404 {
		t.Fatalf("unknown token: %d", code)
	}

	for _, tc := range []struct{ rel, want string }{
		{"../outside.pdf", "outside the workspace"},
		{"exports", "not a regular file"},
		{"exports/missing.pdf", "no such file"},
	} {
		if _, err := d.publish(ws, tc.rel); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("publish %q: err %v, want %q", tc.rel, err, tc.want)
		}
	}
}

// TestDownloadsHardLinkRefused performs the hard-link attack on download
// links: a workspace file hard-linked to one outside is not published,
// and a published file swapped for such a link before the download is
// not served.
func TestDownloadsHardLinkRefused(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret.pdf")
	os.WriteFile(secret, []byte("secret"), 0o600)
	os.MkdirAll(filepath.Join(ws, "exports"), 0o700)
	if err := os.Link(secret, filepath.Join(ws, "exports", "linked.pdf")); err != nil {
		t.Fatal(err)
	}
	d := newDownloads()
	if _, err := d.publish(ws, "exports/linked.pdf"); err == nil || !strings.Contains(err.Error(), "more than one hard link") {
		t.Fatalf("publish of a hard link: %v", err)
	}

	report := filepath.Join(ws, "exports", "report.pdf")
	os.WriteFile(report, []byte("%PDF-1.4 body"), 0o600)
	p, err := d.publish(ws, "exports/report.pdf")
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(report)
	if err := os.Link(secret, report); err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /files/{token}/{name}", d.serve)
	mux.ServeHTTP(rec, httptest.NewRequest("GET", p, nil))
	if rec.Code != http.StatusNotFound || strings.Contains(rec.Body.String(), "secret") {
		t.Fatalf("swapped file: %d %q", rec.Code, rec.Body.String())
	}
}
