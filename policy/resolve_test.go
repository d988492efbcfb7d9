package policy_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/openclaw-go/openclaw/policy"
)

var update = flag.Bool("update", false, "rewrite the want sections of testdata golden files")

// A golden case is one file under testdata/resolve:
//
//	what the case shows (free text)
//	-- input --
//	{ policy.Input as JSON, plus "catalog": true to add every core tool }
//	-- want --
//	the rendered Decision (rewritten by -update)
const (
	inputMark = "-- input --\n"
	wantMark  = "-- want --\n"
)

type goldenInput struct {
	// Catalog adds every core tool (policy.CoreTools) before Tools.
	Catalog bool `json:"catalog,omitempty"`
	policy.Input
}

func TestResolveGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "resolve", "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no golden cases found")
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txt")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			head, input, want, err := splitGolden(string(raw))
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			got := renderCase(t, input)
			if *update {
				out := head + inputMark + input + wantMark + got
				if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != want {
				t.Errorf("%s: decision differs (run go test ./policy -run TestResolveGolden -update to accept)\n--- got ---\n%s--- want ---\n%s", file, got, want)
			}
		})
	}
}

func splitGolden(s string) (head, input, want string, err error) {
	i := strings.Index(s, inputMark)
	if i < 0 {
		return "", "", "", errors.New("no " + strings.TrimSpace(inputMark) + " line")
	}
	head, rest := s[:i], s[i+len(inputMark):]
	input, want, ok := strings.Cut(rest, wantMark)
	if !ok {
		input, want = rest, ""
	}
	if !strings.HasSuffix(input, "\n") {
		input += "\n"
	}
	return head, input, want, nil
}

func renderCase(t *testing.T, input string) string {
	t.Helper()
	var in goldenInput
	dec := json.NewDecoder(strings.NewReader(input))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		t.Fatalf("decode input: %v", err)
	}
	if in.Catalog {
		var tools []policy.Tool
		for _, name := range policy.CoreTools() {
			tools = append(tools, policy.Tool{Name: name})
		}
		in.Tools = append(tools, in.Tools...)
	}
	d, err := policy.Resolve(in.Input)
	if err != nil {
		return "error:\n" + indent(err.Error())
	}
	return renderDecision(in.Tools, d)
}

func renderDecision(tools []policy.Tool, d policy.Decision) string {
	var b bytes.Buffer
	b.WriteString("layers:")
	if len(d.Layers) == 0 {
		b.WriteString(" none")
	}
	b.WriteString("\n")
	for _, l := range d.Layers {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	if len(d.Allowed) == 0 {
		b.WriteString("allowed: none\n")
	} else {
		fmt.Fprintf(&b, "allowed (%d): %s\n", len(d.Allowed), strings.Join(d.Allowed, " "))
	}
	if d.Empty {
		fmt.Fprintf(&b, "empty: %v\n", d.Err())
	}
	if len(d.Warnings) > 0 {
		b.WriteString("warnings:\n")
		for _, w := range d.Warnings {
			fmt.Fprintf(&b, "  %s\n", w)
		}
	}
	b.WriteString("tools:\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, tool := range tools {
		td := d.Tools[tool.Name]
		verdict := "removed"
		if td.Allowed {
			verdict = "allowed"
		}
		layer := td.Layer
		if layer == "" {
			layer = "-"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", tool.Name, verdict, layer, td.Reason)
	}
	tw.Flush()
	return b.String()
}

func indent(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		b.WriteString("  " + line + "\n")
	}
	return b.String()
}
