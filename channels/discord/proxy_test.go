package discord

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/discord/discordtest"
)

// forwardProxy is an HTTP proxy: absolute-form requests are forwarded,
// CONNECT is tunnelled. It records what it saw.
type forwardProxy struct {
	mu      sync.Mutex
	plain   int
	tunnels int
	auth    []string
}

func (p *forwardProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.auth = append(p.auth, r.Header.Get("Proxy-Authorization"))
	if r.Method == http.MethodConnect {
		p.tunnels++
	} else {
		p.plain++
	}
	p.mu.Unlock()
	if r.Method == http.MethodConnect {
		up, err := net.Dial("tcp", r.Host)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		w.WriteHeader(http.StatusOK)
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			up.Close()
			return
		}
		go func() { io.Copy(up, buf); up.Close() }()
		io.Copy(conn, up)
		conn.Close()
		return
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, r.URL.String(), r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	out.Header = r.Header.Clone()
	out.Header.Del("Proxy-Authorization")
	resp, err := http.DefaultTransport.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

// channels.discord.proxy carries REST calls and the Gateway connection,
// with the credentials the URL names.
func TestProxyCarriesRESTAndGateway(t *testing.T) {
	fake := discordtest.New(t, testToken)
	px := &forwardProxy{}
	srv := httptest.NewServer(px)
	defer srv.Close()
	proxy := strings.Replace(srv.URL, "http://", "http://bot:s3cret@", 1)
	a := newAdapter(t, fake, func(o *Options) { o.Proxy = proxy })
	start(t, a, &recSink{})
	fake.WaitLive(1, 0, 5*time.Second)
	if _, err := a.Send(context.Background(), channels.Outbound{To: channels.Target{ChatID: "c1"}, Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	px.mu.Lock()
	defer px.mu.Unlock()
	if px.plain == 0 || px.tunnels == 0 {
		t.Errorf("proxy saw %d REST calls and %d tunnels, want both", px.plain, px.tunnels)
	}
	for _, h := range px.auth {
		if h == "" {
			t.Errorf("a request reached the proxy without its credentials")
		}
	}
}

// A proxy URL's password never reaches the logs, the status or errors,
// whether the URL is malformed or the proxy is down.
func TestProxyCredentialsNeverLogged(t *testing.T) {
	fake := discordtest.New(t, testToken)
	for _, proxy := range []string{"http://bot:s3cret@127.0.0.1:1", "ftp://bot:s3cret@proxy.example"} {
		var logs bytes.Buffer
		a := newAdapter(t, fake, func(o *Options) {
			o.Proxy = proxy
			o.Log = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		})
		sink := &recSink{}
		err := a.Start(context.Background(), sink)
		if err == nil {
			if _, serr := a.Send(context.Background(), channels.Outbound{To: channels.Target{ChatID: "c1"}, Text: "hi"}); serr != nil {
				err = serr
			}
			a.Stop(context.Background())
		}
		all := logs.String() + " " + errString(err)
		for _, st := range sink.Statuses() {
			all += " " + st.Detail + " " + st.LastError
		}
		if strings.Contains(all, "s3cret") {
			t.Errorf("proxy %s: the password leaked: %s", proxy, all)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
