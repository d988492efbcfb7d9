package speech

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// Caps of what a provider may send back.
const (
	// MaxAudioBytes caps one synthesized audio answer (a voice note of the
	// longest text allowed is a few hundred kilobytes).
	MaxAudioBytes = 20 << 20
	// maxJSONBytes caps a transcription answer.
	maxJSONBytes = 1 << 20
)

// Client calls the speech providers. The zero value is ready: it uses
// http.DefaultTransport and os.Getenv.
type Client struct {
	// HTTP sends the requests; nil uses a client without an overall
	// timeout (each call carries its own deadline).
	HTTP *http.Client
	// Getenv reads the environment fallbacks of keys and base URLs
	// (OPENAI_API_KEY, ELEVENLABS_API_KEY, ...); nil is os.Getenv.
	Getenv func(string) string
}

func (c *Client) getenv(k string) string {
	if c == nil || c.Getenv == nil {
		return os.Getenv(k)
	}
	return c.Getenv(k)
}

func (c *Client) httpClient() *http.Client {
	if c == nil || c.HTTP == nil {
		return &http.Client{}
	}
	return c.HTTP
}

// Audio is synthesized speech.
type Audio struct {
	Data []byte
	MIME string // "audio/ogg" for Ogg/Opus, "audio/mpeg", "audio/wav"
	Ext  string // ".ogg", ".mp3", ".wav"
	// VoiceNote says Data is Ogg/Opus, playable as a native voice note.
	VoiceNote bool
	// Format is the provider's name for the encoding it was asked for
	// ("mp3", "opus", "mp3_44100_128"), which tts.convert and tts.speak
	// report as outputFormat.
	Format string
}

// post sends one request and reads the answer through maxBody. Non-2xx
// answers become providerError; transport errors never carry the key.
func (c *Client) post(ctx context.Context, provider, endpoint, key string, hdr http.Header, body []byte, maxBody int64) ([]byte, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("%s: base URL %q is not an http(s) URL", provider, redactURL(endpoint))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", provider, err)
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	resp, err := c.httpClient().Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("%s: no answer in time: %w", provider, context.DeadlineExceeded)
		}
		return nil, fmt.Errorf("%s: %s", provider, scrub(transportError(err), key))
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return nil, providerError(provider, resp.StatusCode, b, key)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			return nil, fmt.Errorf("%s: answer cut off: no complete answer in time: %w", provider, context.DeadlineExceeded)
		}
		return nil, fmt.Errorf("%s: read answer: %s", provider, scrub(transportError(err), key))
	}
	if int64(len(data)) > maxBody {
		return nil, fmt.Errorf("%s: answer is over %d bytes: %w", provider, maxBody, ErrTooLarge)
	}
	return data, nil
}

// transportError describes a failed request without its URL's query.
func transportError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Op + " " + redactURL(ue.URL) + ": " + ue.Err.Error()
	}
	return err.Error()
}

// redactURL drops the user info and query of a URL for messages.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// withTimeout bounds one call; d <= 0 takes def.
func withTimeout(ctx context.Context, d, def time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		d = def
	}
	return context.WithTimeout(ctx, d)
}

func trimBase(s string) string { return strings.TrimRight(strings.TrimSpace(s), "/") }
