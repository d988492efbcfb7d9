package image

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/openclaw-go/openclaw/tools/fs"
)

// readFile reads one image from the workspace, refusing files over limit
// bytes and files that are not images.
func readFile(ws *fs.Workspace, src string, limit int64) (Image, error) {
	rel, err := ws.Rel(src)
	if err != nil {
		return Image{}, err
	}
	// Stat before Open: opening a FIFO or device would block the call.
	st, err := ws.Root().Stat(rel)
	if err != nil {
		return Image{}, fmt.Errorf("open %s: %w", rel, err)
	}
	if !st.Mode().IsRegular() {
		return Image{}, fmt.Errorf("%s is not a regular file (%s)", rel, st.Mode().Type())
	}
	if st.Size() > limit {
		return Image{}, tooBig(rel, st.Size(), limit)
	}
	f, err := ws.Open(rel)
	if err != nil {
		return Image{}, fmt.Errorf("open %s: %w", rel, err)
	}
	defer f.Close()
	// Read through a limit as well: the file may grow after Stat.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return Image{}, fmt.Errorf("read %s: %w", rel, err)
	}
	if int64(len(data)) > limit {
		return Image{}, tooBig(rel, int64(len(data)), limit)
	}
	return newImage(rel, data)
}

// fetch downloads one image through the guarded client, refusing bodies
// over limit bytes before reading them when the server says their size.
func fetch(ctx context.Context, client *http.Client, url string, limit int64) (Image, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Image{}, fmt.Errorf("fetch %s: %w", url, err)
	}
	req.Header.Set("Accept", "image/png, image/jpeg, image/gif, image/webp")
	req.Header.Set("User-Agent", "openclaw-go image")
	resp, err := client.Do(req)
	if err != nil {
		return Image{}, fmt.Errorf("fetch %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Image{}, fmt.Errorf("fetch %s: HTTP %s", url, resp.Status)
	}
	if resp.ContentLength > limit {
		return Image{}, tooBig(url, resp.ContentLength, limit)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return Image{}, fmt.Errorf("fetch %s: %w", url, err)
	}
	if int64(len(data)) > limit {
		return Image{}, fmt.Errorf("%s is over the %s limit for one image (maxBytesMb); give a smaller image or raise maxBytesMb", url, size(limit))
	}
	return newImage(url, data)
}

func tooBig(src string, n, limit int64) error {
	return fmt.Errorf("%s is %s, over the %s limit for one image (maxBytesMb); give a smaller image or raise maxBytesMb", src, size(n), size(limit))
}

// size formats a byte count for messages: MB, with the exact bytes when
// that would round to nothing useful.
func size(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

// newImage names data's media type from its content.
func newImage(src string, data []byte) (Image, error) {
	mt := mediaType(data)
	if mt == "" {
		seen := http.DetectContentType(data)
		if len(data) == 0 {
			seen = "an empty file"
		}
		return Image{}, fmt.Errorf("%s is not a PNG, JPEG, GIF or WebP image (its content looks like %s)", src, seen)
	}
	return Image{Source: src, MediaType: mt, Data: data}, nil
}

// mediaType names the image formats both model APIs accept by their
// signatures, or returns "" for anything else.
func mediaType(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(data, []byte("\xff\xd8\xff")):
		return "image/jpeg"
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return "image/gif"
	case len(data) >= 12 && bytes.Equal(data[:4], []byte("RIFF")) && bytes.Equal(data[8:12], []byte("WEBP")):
		return "image/webp"
	}
	return ""
}

// LoadFile reads one image from the workspace with the image tool's
// confinement and checks: reached through the workspace root only, a
// regular file of at most limit bytes, PNG, JPEG, GIF or WebP by content.
// Tools that take images as inputs (image_generate's edits) use it.
func LoadFile(ws *fs.Workspace, src string, limit int64) (Image, error) {
	return readFile(ws, src, limit)
}

// Fetch downloads one image through client (a netguard client) with the
// same size and type checks as LoadFile.
func Fetch(ctx context.Context, client *http.Client, url string, limit int64) (Image, error) {
	return fetch(ctx, client, url, limit)
}

// IsURL reports whether src names an http(s) URL rather than a path.
func IsURL(src string) bool { return isURL(src) }
