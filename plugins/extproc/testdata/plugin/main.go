// Command plugin is the extproc test plugin: it speaks the protocol over
// stdio the way a real plugin would, with a tool or hook for each case
// the tests drive.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

type msg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  any             `json:"result,omitempty"`
	Error   any             `json:"error,omitempty"`
}

var (
	wmu   sync.Mutex
	mu    sync.Mutex
	grown bool
	check = "*shout"
)

func send(m msg) {
	m.JSONRPC = "2.0"
	b, _ := json.Marshal(m)
	wmu.Lock()
	os.Stdout.Write(append(b, '\n'))
	wmu.Unlock()
}

func toolList() []map[string]any {
	obj := map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}
	ts := []map[string]any{
		{"name": "shout", "description": "uppercase text", "parameters": obj},
		{"name": "fail", "description": "always fails"},
		{"name": "crash", "description": "exits the process"},
		{"name": "grow", "description": "adds tool extra"},
		{"name": "env", "description": "reports OPENCLAW_PLUGIN_ID and PLUGIN_GREETING", "readOnly": true},
		{"name": "who", "description": "reports who calls", "readOnly": true},
	}
	mu.Lock()
	defer mu.Unlock()
	if grown {
		ts = append(ts, map[string]any{"name": "extra", "description": "appeared later"})
	}
	return ts
}

func handle(m msg) {
	var p map[string]json.RawMessage
	json.Unmarshal(m.Params, &p)
	str := func(k string) string {
		var s string
		json.Unmarshal(p[k], &s)
		return s
	}
	var args struct{ Text string }
	json.Unmarshal(p["args"], &args)
	reply := func(r any) { send(msg{ID: m.ID, Result: r}) }

	switch m.Method {
	case "initialize":
		var cfg struct{ CheckTool, Grandchild string }
		json.Unmarshal(p["config"], &cfg)
		if cfg.CheckTool != "" {
			check = cfg.CheckTool
		}
		if cfg.Grandchild != "" {
			// A child of its own, sharing stderr, as a wrapper script
			// leaves one; its pid goes to the named file.
			sleep := exec.Command("sleep", "300")
			sleep.Stderr = os.Stderr
			if err := sleep.Start(); err == nil {
				os.WriteFile(cfg.Grandchild, []byte(strconv.Itoa(sleep.Process.Pid)), 0o600)
			}
		}
		fmt.Fprintln(os.Stderr, "initialized", str("pluginId"))
		reply(map[string]any{"tools": toolList(), "hooks": []map[string]any{
			{"on": "before_tool", "tool": "secret*"},
			{"on": "before_tool", "tool": "*shout"},
			{"on": "before_tool", "tool": "slow*"},
			{"on": "after_tool", "tool": check},
			{"on": "on_error"}, // not ours to honour; ignored by the gateway
		}})
	case "tools/list":
		reply(map[string]any{"tools": toolList()})
	case "tools/call":
		switch str("name") {
		case "shout":
			reply(map[string]any{"text": strings.ToUpper(args.Text)})
		case "fail":
			reply(map[string]any{"text": "it failed", "isError": true})
		case "crash":
			os.Exit(3)
		case "grow":
			mu.Lock()
			grown = true
			mu.Unlock()
			send(msg{Method: "tools/changed"})
			reply(map[string]any{"text": "grown"})
		case "extra":
			reply(map[string]any{"text": "extra here"})
		case "env":
			reply(map[string]any{"text": os.Getenv("OPENCLAW_PLUGIN_ID") + " " + os.Getenv("PLUGIN_GREETING")})
		case "who":
			reply(map[string]any{"text": string(p["who"])})
		default:
			send(msg{ID: m.ID, Error: map[string]any{"code": -32602, "message": "no tool " + str("name")}})
		}
	case "hooks/before_tool":
		tool := str("tool")
		switch {
		case strings.HasPrefix(tool, "secret"):
			reply(map[string]any{"action": "block", "message": "secrets are off limits"})
		case strings.HasPrefix(tool, "slow"):
			time.Sleep(3 * time.Second)
			reply(map[string]any{"action": "block", "message": "too late to matter"})
		case args.Text == "password":
			reply(map[string]any{"action": "rewrite", "args": map[string]any{"text": "[redacted]"}})
		default:
			reply(map[string]any{"action": "allow"})
		}
	case "hooks/after_tool":
		reply(map[string]any{"text": str("text") + " [checked]"})
	default:
		if len(m.ID) > 0 {
			send(msg{ID: m.ID, Error: map[string]any{"code": -32601, "message": "method not found"}})
		}
	}
}

func main() {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var m msg
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		// Each request on its own goroutine, so a slow hook does not hold
		// up the rest, as the protocol allows.
		go handle(m)
	}
}
