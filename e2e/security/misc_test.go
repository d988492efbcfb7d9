package security

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/openclaw-go/openclaw/e2e/harness"
	"github.com/openclaw-go/openclaw/gateway/client"
)

// invokeTool calls one tool through tools.invoke and returns whether it
// succeeded and its output (the error message when it did not).
func invokeTool(t *testing.T, c *client.Client, name string, args any) (bool, string) {
	t.Helper()
	out := harness.MustCall(t, c, "tools.invoke", json.RawMessage(`{"name":"`+name+`","args":`+harness.JSON(t, args)+`}`))
	if ok, _ := out["ok"].(bool); ok {
		s, _ := out["output"].(string)
		return true, s
	}
	b, _ := json.Marshal(out)
	return false, string(b)
}

// peakRSS is the gateway's resident high-water mark (VmHWM) in bytes.
func peakRSS(t *testing.T, g *harness.Gateway) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", g.PID()))
	if err != nil {
		t.Fatalf("read gateway status: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM %q: %v", v, err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in the gateway's /proc status")
	return 0
}

// TestSQLHugeValuesRefused: a prompt-injected model with SqlQueryTool on
// a read-only datasource asks SQLite for a gigabyte-sized value
// (randomblob(1000000000), which once drove the gateway to 8 GB), and for
// hundreds of megabyte-sized ones in one row. Each must be refused with
// an error naming the value limit, the gateway's memory must never pass
// 500 MB, and it must go on answering.
func TestSQLHugeValuesRefused(t *testing.T) {
	t.Parallel()
	dbPath := filepath.Join(t.TempDir(), "shop.db")
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	g := harness.Start(t, harness.Opts{Config: fmt.Sprintf(`{
  gateway: { mode: "local" },
  tools: { datasources: [{ name: "shop", dsn: %q }] },
}`, dbPath)})
	c := g.Admin(t)
	columns := strings.TrimSuffix(strings.Repeat("randomblob(1000000), ", 300), ", ")
	for _, q := range []string{
		"SELECT randomblob(1000000000)",
		"SELECT zeroblob(1000000000)",
		"SELECT length(printf('%.*c', 1000000000, 'x'))",
		"SELECT " + columns,
	} {
		ok, out := invokeTool(t, c, "SqlQueryTool", map[string]any{"datasource": "shop", "sql": q})
		if ok || !strings.Contains(out, "the limit of one value in this statement") {
			t.Errorf("%.60s: ok=%v %.300s; want the value limit named", q, ok, out)
		}
	}
	peak := peakRSS(t, g)
	t.Logf("the gateway's memory peaked at %d MB", peak>>20)
	if peak > 500<<20 {
		t.Errorf("the gateway's memory peaked at %d MB", peak>>20)
	}
	if ok, out := invokeTool(t, c, "SqlQueryTool", map[string]any{"datasource": "shop", "sql": "SELECT count(*) FROM orders"}); !ok || !strings.Contains(out, "[0]") {
		t.Fatalf("after the attack: ok=%v %s", ok, out)
	}
}

// TestHardLinkReadRefused: a model (or anything that can make a link in
// the workspace, an exec allowed only `ln`) hard-links a file from
// outside the workspace into it and reads it with the read tool. os.Root
// sees a regular file inside; the read must be refused and say why, and
// nothing of the file may come back.
func TestHardLinkReadRefused(t *testing.T) {
	t.Parallel()
	g := harness.Start(t, harness.Opts{Config: `{ gateway: { mode: "local" } }`})
	secret := filepath.Join(g.Dir, "home", "secret.txt")
	if err := os.WriteFile(secret, []byte("the-outside-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(g.Workspace, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(secret, filepath.Join(g.Workspace, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	c := g.Admin(t)
	ok, out := invokeTool(t, c, "read", map[string]any{"path": "notes.txt"})
	if ok || strings.Contains(out, "the-outside-secret") || !strings.Contains(out, "more than one hard link") {
		t.Fatalf("read of a hard link: ok=%v %s", ok, out)
	}
	if err := os.WriteFile(filepath.Join(g.Workspace, "own.txt"), []byte("mine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if ok, out := invokeTool(t, c, "read", map[string]any{"path": "own.txt"}); !ok || !strings.Contains(out, "mine") {
		t.Fatalf("read of the workspace's own file: ok=%v %s", ok, out)
	}
}

// TestCanvasForeignHostRefused: a web page on evil.example re-points its
// name at 127.0.0.1 (DNS rebinding), so the visitor's browser sends its
// requests to the gateway's port from loopback and lets the page read the
// answers. They carry Host: evil.example:<port>: the canvas pages and
// their per-session state must answer 421, while the gateway's own names
// still get the page.
func TestCanvasForeignHostRefused(t *testing.T) {
	t.Parallel()
	g := harness.Start(t, harness.Opts{Config: `{ gateway: { mode: "local" } }`})
	port := strconv.Itoa(g.Port)
	get := func(path, host string) (int, string) {
		t.Helper()
		req, err := http.NewRequest("GET", g.HTTP+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return resp.StatusCode, string(b)
	}
	for _, path := range []string{"/__openclaw__/canvas/", "/__openclaw__/canvas/state?session=agent:main:main"} {
		for _, host := range []string{"evil.example:" + port, "127.0.0.1.evil.example:" + port, "localhost:1"} {
			if code, body := get(path, host); code != http.StatusMisdirectedRequest {
				t.Errorf("GET %s with Host %s: %d %.100q; want 421", path, host, code, body)
			}
		}
	}
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port} {
		if code, body := get("/__openclaw__/canvas/", host); code != http.StatusOK || !strings.Contains(body, "<") {
			t.Errorf("GET the canvas page with Host %s: %d %.100q", host, code, body)
		}
	}
}
