package generate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// maxAPIBody is the most of a provider's JSON answer read. A b64_json
// image list is the biggest: four 4K PNGs in base64.
const maxAPIBody = 160 << 20

// request is one call of a provider's API.
type request struct {
	provider string
	method   string
	url      string
	key      string
	headers  map[string]string
	body     io.Reader
	ctype    string
}

// do sends r with the key as a bearer token and decodes a JSON answer into
// out. A failed status becomes apiError; the URL in an error has no query
// (keys never go in URLs here, but a base URL from config might hold one).
func (e *env) do(ctx context.Context, r request, out any) error {
	req, err := http.NewRequestWithContext(ctx, r.method, r.url, r.body)
	if err != nil {
		return fmt.Errorf("%s: build request: %w", r.provider, scrubErr(err, r.key))
	}
	req.Header.Set("Authorization", "Bearer "+r.key)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "openclaw-go generate")
	if r.ctype != "" {
		req.Header.Set("Content-Type", r.ctype)
	}
	for k, v := range r.headers {
		req.Header.Set(k, v)
	}
	resp, err := e.api.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %s %s: %v", r.provider, r.method, safeURL(r.url), scrubErr(unwrapURLError(err), r.key))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAPIBody+1))
	if err != nil {
		return fmt.Errorf("%s: read answer: %w", r.provider, err)
	}
	if len(body) > maxAPIBody {
		return fmt.Errorf("%s: answer is over %d MB", r.provider, maxAPIBody>>20)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return apiError(r.provider, resp.StatusCode, body, r.key)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("%s: answer is not the expected JSON: %v", r.provider, err)
	}
	return nil
}

// postJSON sends v as JSON.
func (e *env) postJSON(ctx context.Context, provider, u, key string, headers map[string]string, v, out any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return e.do(ctx, request{provider: provider, method: http.MethodPost, url: u, key: key, headers: headers,
		body: bytes.NewReader(b), ctype: "application/json"}, out)
}

// fetchResult downloads a result URL the provider gave, through the
// guarded client, without the API key (result URLs are pre-signed; the key
// never goes to a host the answer chose), refusing more than limit bytes.
func (e *env) fetchResult(ctx context.Context, provider, raw string, limit int64) ([]byte, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("%s: result URL %q is not an http(s) URL", provider, clip(raw, 80))
	}
	g := e.guard()
	if err := g.policy.CheckURL(u); err != nil {
		return nil, fmt.Errorf("%s: result URL refused: %w", provider, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "openclaw-go generate")
	tools.ReportProgress(ctx, tools.Progress{Message: "downloading the result", Fraction: -1})
	resp, err := g.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: download result from %s: %v", provider, safeURL(raw), unwrapURLError(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: download result from %s: HTTP %d", provider, safeURL(raw), resp.StatusCode)
	}
	if resp.ContentLength > limit {
		return nil, tooBig(provider, resp.ContentLength, limit)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: download result: %w", provider, err)
	}
	if int64(len(data)) > limit {
		return nil, tooBig(provider, int64(len(data)), limit)
	}
	return data, nil
}

func tooBig(provider string, n, limit int64) error {
	return fmt.Errorf("%s: the result is over the %d MB download limit (%d bytes or more)", provider, limit>>20, n)
}

// safeURL is u without its query and fragment (pre-signed URLs carry
// their signature there) for messages.
func safeURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(bad URL)"
	}
	u.RawQuery, u.Fragment, u.User = "", "", nil
	return u.String()
}

// unwrapURLError drops *url.Error's "Get \"<url>\":" prefix, which would
// repeat the full URL with its query.
func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

func scrubErr(err error, key string) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s", scrub(err.Error(), key))
}

// joinURL appends p to a base URL, keeping the base's path.
func joinURL(base, p string) string {
	return strings.TrimRight(base, "/") + p
}

// jobState is one look at an asynchronous job.
type jobState struct {
	status   string  // the provider's word
	fraction float64 // 0..1, negative when unknown
	done     bool
	failed   error
	urls     []string
}

// poll asks check how the job is until it is done, failed or ctx ends,
// reporting each change of state or progress to the caller.
func (e *env) poll(ctx context.Context, provider string, check func(ctx context.Context) (jobState, error)) (jobState, error) {
	t := time.NewTicker(e.pollInterval())
	defer t.Stop()
	last := ""
	for {
		st, err := check(ctx)
		if err != nil {
			return st, err
		}
		if st.failed != nil {
			return st, st.failed
		}
		if st.done {
			tools.ReportProgress(ctx, tools.Progress{Message: provider + ": " + strings.ToLower(st.status), Fraction: 1})
			return st, nil
		}
		if say := fmt.Sprintf("%s %.2f", st.status, st.fraction); say != last {
			last = say
			tools.ReportProgress(ctx, tools.Progress{Message: provider + ": " + strings.ToLower(st.status), Fraction: st.fraction})
		}
		select {
		case <-ctx.Done():
			return st, fmt.Errorf("%s: the job was still %s when the call's time ran out: %w", provider, strings.ToLower(st.status), ctx.Err())
		case <-t.C:
		}
	}
}

// validID refuses a job id from a provider that could change the polled
// URL's meaning: only letters, digits and -_. up to 128.
func validID(provider, id string) error {
	if id == "" || len(id) > 128 || id == "." || id == ".." {
		return fmt.Errorf("%s: the job id %q is not usable", provider, clip(id, 40))
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return fmt.Errorf("%s: the job id %q is not usable", provider, clip(id, 40))
		}
	}
	return nil
}
