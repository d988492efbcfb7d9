package speech_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// newHangServer answers nothing until block closes; its base URL.
func newHangServer(t *testing.T, block chan struct{}) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}
