package config

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
)

// firstRunKeys are the keys written to a new config file, in order. Values
// come from Defaults() (the token from the caller) and comments from the
// fields' doc comments, so the file cannot drift from the structs.
var firstRunKeys = []string{
	"gateway.mode",
	"gateway.port",
	"gateway.bind",
	"gateway.auth.mode",
	"gateway.auth.token",
	"logging.level",
	"agents.defaults.heartbeat.every",
	"agents.defaults.heartbeat.target",
}

const defaultFileHeader = `// OpenClaw config. The format is JSON5: comments, unquoted keys and trailing
// commas are all fine. "openclaw config schema" lists the keys this gateway
// implements; other keys OpenClaw knows are kept and reported as warnings.
// Any string may use ${ENV_VAR}; write $${ENV_VAR} for the literal text.
`

// DefaultFile returns the commented config written on first run, with the
// given gateway token (any string; "${OPENCLAW_GATEWAY_TOKEN}" makes the
// file read the token from the environment). It loads cleanly with Load.
func DefaultFile(token string) []byte {
	defaults := reflect.ValueOf(Defaults()).Elem()
	var b bytes.Buffer
	b.WriteString(defaultFileHeader)
	b.WriteString("{\n")
	var open []string // object keys currently open
	for _, path := range firstRunKeys {
		keys := strings.Split(path, ".")
		parents := keys[:len(keys)-1]
		common := 0
		for common < len(open) && common < len(parents) && open[common] == parents[common] {
			common++
		}
		for len(open) > common {
			open = open[:len(open)-1]
			fmt.Fprintf(&b, "%s},\n", indentFor(len(open)+1))
		}
		for len(open) < len(parents) {
			key := parents[len(open)]
			open = append(open, key)
			doc, _, _ := fieldAt(defaults, strings.Join(open, "."))
			writeComment(&b, indentFor(len(open)), doc)
			fmt.Fprintf(&b, "%s%s: {\n", indentFor(len(open)), key)
		}
		doc, v, ok := fieldAt(defaults, path)
		if !ok {
			panic("config: first-run key " + path + " is not a Config field")
		}
		value := v.Interface()
		if path == "gateway.auth.token" {
			value = token
		}
		text, err := renderJSON(value, "", "")
		if err != nil {
			panic("config: render first-run value: " + err.Error())
		}
		ind := indentFor(len(keys))
		writeComment(&b, ind, doc)
		fmt.Fprintf(&b, "%s%s: %s,\n", ind, keys[len(keys)-1], text)
	}
	for len(open) > 0 {
		open = open[:len(open)-1]
		fmt.Fprintf(&b, "%s},\n", indentFor(len(open)+1))
	}
	b.WriteString("}\n")
	return b.Bytes()
}

func indentFor(depth int) string { return strings.Repeat("  ", depth) }

// writeComment writes the first sentence of doc as // lines of at most 80
// columns.
func writeComment(b *bytes.Buffer, indent, doc string) {
	if doc == "" {
		return
	}
	if i := strings.Index(doc, ". "); i >= 0 {
		doc = doc[:i+1]
	}
	line := indent + "//"
	for _, word := range strings.Fields(doc) {
		if len(line)+1+len(word) > 80 && len(line) > len(indent)+2 {
			b.WriteString(line + "\n")
			line = indent + "//"
		}
		line += " " + word
	}
	b.WriteString(line + "\n")
}
