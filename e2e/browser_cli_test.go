package e2e

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

// TestBrowserCLI drives the gateway's browser from `openclaw browser`
// in the built binary: open a page, find its button in the snapshot,
// click it, take a screenshot. The attack half: the operator's CLI goes
// through the same network guard as an agent, so a loopback address the
// policy does not allow is refused.
func TestBrowserCLI(t *testing.T) {
	needOurGateway(t)
	needChromium(t)
	t.Parallel()
	clicked := make(chan struct{}, 1)
	site := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/clicked" {
			select {
			case clicked <- struct{}{}:
			default:
			}
		}
		io.WriteString(w, `<!doctype html><title>Console</title><h1>Deploys</h1><button onclick="fetch('/clicked')">Ship it</button>`)
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	site.Listener = ln
	site.Start()
	t.Cleanup(site.Close)
	byName := strings.Replace(site.URL, "127.0.0.1", "localhost", 1) + "/"

	model := fakemodel.New(t)
	g := startGateway(t, gatewayOpts{Config: `{
  gateway: { mode: "local" },
  models: { providers: { fake: { baseUrl: "` + model.URL() + `/v1", api: "openai-completions", models: [{ id: "echo-1" }] } } },
  agents: { defaults: { model: "fake/echo-1" } },
  browser: { executablePath: "` + chromiumPath + `", ssrfPolicy: { allowedHostnames: ["localhost"] } },
}`})
	c := ourClient(t, g)

	c.run(t, "browser", "open", byName).mustSucceed(t)
	snap := c.run(t, "browser", "snapshot", "--interactive")
	snap.mustSucceed(t)
	m := regexp.MustCompile(`button "Ship it".*\[ref=(e\d+)\]`).FindStringSubmatch(snap.Stdout)
	if m == nil {
		t.Fatalf("no button in the snapshot:\n%s", snap)
	}
	c.run(t, "browser", "click", m[1]).mustSucceed(t)
	<-clicked
	shot := c.run(t, "browser", "screenshot")
	shot.mustSucceed(t)
	path := regexp.MustCompile(`MEDIA:(\S+)`).FindStringSubmatch(shot.Stdout)
	if path == nil {
		t.Fatalf("screenshot printed no file:\n%s", shot)
	}
	if png, err := os.ReadFile(path[1]); err != nil || !strings.HasPrefix(string(png), "\x89PNG") {
		t.Fatalf("screenshot file %s: %v", path[1], err)
	}

	refused := c.run(t, "browser", "open", site.URL+"/")
	if refused.Code != 1 || !strings.Contains(strings.ToLower(refused.Stderr), "refused") {
		t.Fatalf("opening a loopback address through the CLI:\n%s", refused)
	}
	c.run(t, "browser", "stop").mustSucceed(t)
}
