package gateway

import (
	"net/http"
	"testing"
)

// TestHooksThroughTheGateway: on the gateway's own port, POST
// /hooks/wake answers only with the hook token (never the gateway's),
// guesses are counted as any webhook's and lock the guesser out, and with
// hooks off the path is not served.
func TestHooksThroughTheGateway(t *testing.T) {
	_, base := startThrottled(t, `hooks: { enabled: true, token: "hook-t0ken-long", path: "/in/" },`, nil)
	body := []byte(`{"text":"deploy finished","mode":"next-heartbeat"}`)
	if res := request(t, "POST", base+"/in/wake", http.Header{"Authorization": {"Bearer hook-t0ken-long"}}, body); res.StatusCode != 200 {
		t.Fatalf("right token: %d", res.StatusCode)
	}
	if res := request(t, "POST", base+"/in/wake?token=hook-t0ken-long", nil, body); res.StatusCode != 400 {
		t.Fatalf("token in the URL: %d, want 400", res.StatusCode)
	}
	for i := range 3 {
		hdr := http.Header{"Authorization": {"Bearer right-t0ken"}} // the gateway's token is not the hook's
		if res := request(t, "POST", base+"/in/wake", hdr, body); res.StatusCode != 401 {
			t.Fatalf("guess %d: %d, want 401", i, res.StatusCode)
		}
	}
	wantLockedOut(t, "the right token after 3 guesses", request(t, "POST", base+"/in/wake", http.Header{"X-Openclaw-Token": {"hook-t0ken-long"}}, body))

	_, off := startThrottled(t, ``, nil)
	if res := request(t, "POST", off+"/hooks/wake", http.Header{"Authorization": {"Bearer x"}}, body); res.StatusCode != 404 {
		t.Fatalf("hooks off: %d, want 404", res.StatusCode)
	}
}
