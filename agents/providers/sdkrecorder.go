package providers

import (
	"bytes"
	"io"
	"net/http"
	"sync"
)

// failureRecorder keeps the error response an SDK call received, before
// the SDK turns it into its own error type, so that classify sees the
// same *statusError postStream gives.
type failureRecorder struct {
	mu  sync.Mutex
	got *statusError
}

// middleware has the shape of both SDKs' option.Middleware.
func (r *failureRecorder) middleware(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	res, err := next(req)
	if err != nil || res == nil || res.StatusCode < http.StatusBadRequest {
		return res, err
	}
	body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	_ = res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(body))
	r.mu.Lock()
	r.got = &statusError{status: res.StatusCode, header: res.Header.Clone(), body: body}
	r.mu.Unlock()
	return res, nil
}

// wrap returns the recorded answer in place of err, when there is one.
func (r *failureRecorder) wrap(err error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.got != nil {
		return r.got
	}
	return err
}
