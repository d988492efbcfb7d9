package telegram

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/openclaw-go/openclaw/channels"
)

var _ channels.MediaFetcher = (*Adapter)(nil)

// FetchMedia downloads an inbound attachment: getFile names its path,
// then the file comes from <apiRoot>/file/bot<token>/<path>. Sizes Telegram
// states are checked first; the body is cut at maxBytes either way.
func (a *Adapter) FetchMedia(ctx context.Context, m channels.Media, maxBytes int64) (io.ReadCloser, error) {
	if m.FileID == "" {
		return nil, errors.New("telegram: attachment has no file id")
	}
	if maxBytes > 0 && m.Size > maxBytes {
		return nil, fmt.Errorf("telegram: attachment is %d bytes, over the %d MB limit: %w", m.Size, maxBytes>>20, ErrTooLarge)
	}
	var f struct {
		FilePath string `json:"file_path"`
		FileSize int64  `json:"file_size"`
	}
	if err := a.callInto(ctx, "getFile", tgbotapi.Params{"file_id": m.FileID}, &f); err != nil {
		return nil, err
	}
	if f.FilePath == "" {
		return nil, errors.New("telegram: getFile gave no file_path (files over 20 MB cannot be downloaded by bots)")
	}
	if maxBytes > 0 && f.FileSize > maxBytes {
		return nil, fmt.Errorf("telegram: attachment is %d bytes, over the %d MB limit: %w", f.FileSize, maxBytes>>20, ErrTooLarge)
	}
	u := a.opts.APIRoot + "/file/bot" + a.opts.Token + "/" + (&url.URL{Path: f.FilePath}).EscapedPath()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, errors.New("telegram: bad file URL")
	}
	resp, err := a.client.Do(req)
	if err != nil {
		// The URL holds the token: say what failed without it.
		return nil, &channels.RetryableError{Err: fmt.Errorf("telegram: download %s: %s", f.FilePath, a.scrub(err.Error()))}
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("telegram: download %s: HTTP %d", f.FilePath, resp.StatusCode)
	}
	limit := maxBytes
	if limit <= 0 {
		limit = 1 << 62
	}
	return struct {
		io.Reader
		io.Closer
	}{io.LimitReader(resp.Body, limit+1), resp.Body}, nil
}
