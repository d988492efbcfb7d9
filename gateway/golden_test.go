package gateway

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"text/tabwriter"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// checkGolden compares got with testdata/<name>, or rewrites it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what the gateway answers now (if the change is meant, run with -update and review the diff)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// wireVolatile are keys whose values change from run to run; checkWire
// writes them as their JSON type only.
var wireVolatile = map[string]bool{
	"ts": true, "uptimeMs": true, "pid": true, "bootId": true, "durationMs": true, "updatedAt": true,
	"createdAt": true, "createdAtMs": true, "updatedAtMs": true, "lastActivityAt": true, "startedAt": true,
	"at": true, "heapUsed": true, "heapTotal": true, "rss": true, "external": true, "arrayBuffers": true,
	"process": true, "processMemory": true, "runtime": true, "path": true, "paths": true, "configPath": true,
	"stateDir": true, "logFile": true, "hash": true, "baseHash": true, "appliedConfigHash": true,
	"expiresAtMs": true, "id": true, "connections": true, "ageMs": true,
}

// checkWire compares a result's wire shape with testdata/wire/<name>.json:
// the JSON as a client receives it, keys sorted, with the values of
// wireVolatile keys (and extra) replaced by their type.
func checkWire(t *testing.T, name string, result any, extra ...string) {
	t.Helper()
	b, err := json.Marshal(result)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	skip := map[string]bool{}
	for k := range wireVolatile {
		skip[k] = true
	}
	for _, k := range extra {
		skip[k] = true
	}
	v = scrubWire(v, skip)
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, filepath.Join("wire", name+".json"), append(out, '\n'))
}

func scrubWire(v any, skip map[string]bool) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if skip[k] && e != nil {
				x[k] = fmt.Sprintf("<%T>", e)
				continue
			}
			x[k] = scrubWire(e, skip)
		}
	case []any:
		for i := range x {
			x[i] = scrubWire(x[i], skip)
		}
	}
	return v
}

// TestMethodTable pins which package serves each RPC method and the scope
// it needs: adding, moving or re-scoping a method shows in review as a
// change to testdata/methods.txt.
func TestMethodTable(t *testing.T) {
	var sys *System
	startGatewayWith(t, t.TempDir(), nil, func(o *Options) { o.serving = func(s *System) { sys = s } })
	var buf bytes.Buffer
	w := tabwriter.NewWriter(&buf, 0, 8, 1, ' ', 0)
	fmt.Fprintln(w, "# method\towner\tscope\t")
	rows := sys.srv.Table()
	sort.Slice(rows, func(i, j int) bool { return rows[i].Method < rows[j].Method })
	for _, r := range rows {
		scope := string(r.Scope)
		if scope == "" {
			scope = "(any)"
		}
		var flags []string
		if r.Hidden {
			flags = append(flags, "hidden")
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", r.Method, r.Owner, scope, strings.Join(flags, ","))
	}
	w.Flush()
	var trimmed bytes.Buffer
	for _, line := range strings.Split(strings.TrimRight(buf.String(), "\n"), "\n") {
		trimmed.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	checkGolden(t, "methods.txt", trimmed.Bytes())
}
