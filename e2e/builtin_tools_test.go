package e2e

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// TestBuiltinToolsThroughInvoke drives every built-in tool through
// tools.invoke on the real binary, as an operator would, including the
// refusals its policy or guard must give.
func TestBuiltinToolsThroughInvoke(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	g := startGateway(t, gatewayOpts{})
	c := ourClient(t, g)
	invoke := func(t *testing.T, tool, args string) (bool, string) { return invokeTool(t, c, tool, args) }
	// Let exec run what it is asked to here; the policy itself is covered
	// by TestExecThroughAnAgentTurn and the execpolicy corpus.
	c.run(t, "gateway", "call", "exec.approvals.set", "--params",
		`{"file":{"version":1,"defaults":{"security":"full","ask":"off"}}}`).mustSucceed(t)
	steps := []struct {
		name, tool, args string
		wantOK           bool
		want             string
	}{
		{"write", "write", `{"path":"docs/plan.md","content":"one\ntwo\n"}`, true, "wrote 8 bytes"},
		{"read", "read", `{"path":"docs/plan.md"}`, true, "one\ntwo"},
		{"edit", "edit", `{"path":"docs/plan.md","oldText":"two","newText":"deux"}`, true, ""},
		{"edit missing", "edit", `{"path":"docs/plan.md","oldText":"zzz","newText":"x"}`, false, "oldText not found"},
		{"apply_patch", "apply_patch", `{"patch":"*** Begin Patch\n*** Add File: docs/new.md\n+fresh\n*** End Patch"}`, true, "A docs/new.md"},
		{"read escape", "read", `{"path":"../../../etc/passwd"}`, false, "outside the workspace"},
		{"MateClaw alias", "ReadFileTool", `{"path":"docs/new.md"}`, true, "fresh"},
		{"exec", "exec", `{"command":"cat docs/plan.md"}`, true, `one\ndeux`},
		{"exec background", "exec", `{"command":"echo later","background":true}`, true, `"status":"running"`},
		{"process list", "process", `{"action":"list"}`, true, "echo later"},
		{"web_fetch private", "web_fetch", `{"url":"http://127.0.0.1:1/"}`, false, "blocked by network guard"},
		{"gateway config.get", "gateway", `{"action":"config.get"}`, true, `"hash"`},
		{"gateway restart off", "gateway", `{"action":"restart"}`, false, "commands.restart"},
		{"memory write", "WorkspaceMemoryTool", `{"action":"write","path":"memory/2026-11-30.md","content":"# Trip\nThe zephyr flight leaves at nine.\n"}`, true, ""},
		{"memory_search", "memory_search", `{"query":"zephyr flight"}`, true, `"path":"memory/2026-11-30.md"`},
		{"memory_get", "memory_get", `{"path":"memory/2026-11-30.md","startLine":2,"lines":1}`, true, "leaves at nine"},
		{"memory non-md", "WorkspaceMemoryTool", `{"action":"write","path":"notes.txt","content":"x"}`, false, ".md"},
		{"web_search empty", "web_search", `{"query":"  "}`, false, "query"},
		{"DocumentExtractTool", "DocumentExtractTool", `{"path":"docs/plan.md"}`, true, "deux"},
		{"DocumentExtractTool escape", "DocumentExtractTool", `{"path":"../outside.pdf"}`, false, "outside the workspace"},
		{"PdfRenderTool", "PdfRenderTool", `{"markdown":"# Plan\n\nShip it.","filename":"plan"}`, true, `"path":"exports/plan.pdf"`},
		{"DocumentExtractTool reads the PDF", "DocumentExtractTool", `{"path":"exports/plan.pdf"}`, true, "Ship"},
		{"DateTimeTool", "DateTimeTool", `{"timezone":"Asia/Tokyo"}`, true, "Asia/Tokyo"},
		{"bad arguments", "write", `{"path":"x.md"}`, false, "missing required content"},
	}
	for _, s := range steps { // in order: later steps read what earlier ones wrote
		t.Logf("step %s", s.name)
		ok, text := invoke(t, s.tool, s.args)
		if ok != s.wantOK || !strings.Contains(text, s.want) {
			t.Fatalf("%s: ok=%v %q; want ok=%v containing %q", s.name, ok, text, s.wantOK, s.want)
		}
	}
}

// invokeTool calls one tool through tools.invoke with our CLI and returns
// whether it succeeded and its output or error message.
func invokeTool(t *testing.T, c *client, tool, args string) (bool, string) {
	t.Helper()
	params := `{"name":"` + tool + `","args":` + args + `}`
	r := c.run(t, "gateway", "call", "tools.invoke", "--params", params)
	r.mustSucceed(t)
	var out struct {
		OK     bool   `json:"ok"`
		Output string `json:"output"`
		Error  struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatalf("decode: %v\n%s", err, r)
	}
	if out.OK {
		return true, out.Output
	}
	return false, out.Error.Message
}

// TestSQLToolsThroughInvoke: a read-only datasource from tools.datasources
// can be listed, described and queried, and refuses writes, on the real
// binary.
func TestSQLToolsThroughInvoke(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	dbPath := filepath.Join(t.TempDir(), "shop.db")
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		`CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT NOT NULL, total REAL)`,
		`INSERT INTO orders (customer, total) VALUES ('ana', 12.5), ('bo', 40)`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	g := startGateway(t, gatewayOpts{Config: fmt.Sprintf(`{
  gateway: { mode: "local" },
  tools: { datasources: [{ name: "shop", dsn: %q, description: "orders of the shop" }] },
}`, dbPath)})
	c := ourClient(t, g)
	steps := []struct {
		name, tool, args string
		wantOK           bool
		want             string
	}{
		{"list hides the DSN", "DatasourceTool", `{"action":"list"}`, true, "orders of the shop"},
		{"describe", "DatasourceTool", `{"action":"describe","name":"shop","table":"orders"}`, true, "customer"},
		{"select", "SqlQueryTool", `{"datasource":"shop","sql":"SELECT customer FROM orders WHERE total > ?","params":[20]}`, true, `"bo"`},
		{"write refused", "SqlQueryTool", `{"datasource":"shop","sql":"DELETE FROM orders"}`, false, "read-only"},
		{"two statements refused", "SqlQueryTool", `{"datasource":"shop","sql":"SELECT 1; SELECT 2"}`, false, "statement"},
		{"unknown datasource", "SqlQueryTool", `{"datasource":"crm","sql":"SELECT 1"}`, false, "shop"},
	}
	for _, s := range steps {
		ok, text := invokeTool(t, c, s.tool, s.args)
		if ok != s.wantOK || !strings.Contains(text, s.want) {
			t.Fatalf("%s: ok=%v %q; want ok=%v containing %q", s.name, ok, text, s.wantOK, s.want)
		}
		if strings.Contains(text, dbPath) {
			t.Fatalf("%s: output shows the DSN: %q", s.name, text)
		}
	}
	// The file still holds both rows: the refused DELETE changed nothing.
	ok, text := invokeTool(t, c, "SqlQueryTool", `{"datasource":"shop","sql":"SELECT count(*) AS n FROM orders"}`)
	if !ok || !strings.Contains(text, "[2]") {
		t.Fatalf("count after refused write: ok=%v %q", ok, text)
	}
}

// TestRenderToolDownloadLink: a render tool writes an Office file in the
// workspace and the gateway serves it once at the link it returned.
func TestRenderToolDownloadLink(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	g := startGateway(t, gatewayOpts{})
	c := ourClient(t, g)
	ok, text := invokeTool(t, c, "XlsxRenderTool", `{"markdown":"## Sales\n\n| region | total |\n| --- | --- |\n| north | 12 |\n","filename":"sales"}`)
	if !ok {
		t.Fatalf("XlsxRenderTool: %s", text)
	}
	var res struct {
		Path string `json:"path"`
		URL  string `json:"url"`
	}
	if err := json.Unmarshal([]byte(text), &res); err != nil || res.URL == "" {
		t.Fatalf("result %q: %v", text, err)
	}
	if res.Path != "exports/sales.xlsx" {
		t.Fatalf("path %q", res.Path)
	}
	get := func() (int, []byte) {
		resp, err := http.Get(res.URL)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	code, body := get()
	if code != http.StatusOK || !bytes.HasPrefix(body, []byte("PK\x03\x04")) {
		t.Fatalf("download: %d, %d bytes starting %q", code, len(body), body[:min(len(body), 8)])
	}
	if code, _ := get(); code != http.StatusNotFound {
		t.Fatalf("second download of a one-time link: %d", code)
	}
}
