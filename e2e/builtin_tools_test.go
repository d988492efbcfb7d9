package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestBuiltinToolsThroughInvoke drives every built-in tool through
// tools.invoke on the real binary, as an operator would, including the
// refusals its policy or guard must give.
func TestBuiltinToolsThroughInvoke(t *testing.T) {
	needOurGateway(t)
	t.Parallel()
	g := startGateway(t, gatewayOpts{})
	c := ourClient(t, g)
	invoke := func(t *testing.T, tool, args string) (bool, string) {
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
