package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// loadDir writes files into a new config directory and loads openclaw.json
// from it, returning the directory, the snapshot and the issue strings with
// the directory cut off.
func loadDir(t *testing.T, files map[string]string, opts LoadOptions) (string, *Snapshot, []string) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		writeFile(t, dir, name, text)
	}
	snap, err := Load(filepath.Join(dir, "openclaw.json"), opts)
	var issues []string
	if err != nil {
		var le *LoadError
		if !errors.As(err, &le) {
			t.Fatalf("Load: %v", err)
		}
		for _, is := range le.Issues {
			is.File = strings.TrimPrefix(is.File, dir+string(filepath.Separator))
			issues = append(issues, is.String())
		}
	}
	return dir, snap, issues
}

func TestIncludeMerging(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		check func(t *testing.T, c *Config)
	}{
		{
			name: "single include replaces the object",
			files: map[string]string{
				"openclaw.json": `{gateway: {$include: "gw.json5"}}`,
				"gw.json5":      `{port: 1234, bind: "lan"}`,
			},
			check: func(t *testing.T, c *Config) {
				if c.Gateway.Port != 1234 || c.Gateway.Bind != "lan" {
					t.Errorf("gateway = %+v", c.Gateway)
				}
			},
		},
		{
			name: "array of includes deep-merges in order",
			files: map[string]string{
				"openclaw.json": `{$include: ["a.json5", "b.json5"], logging: {level: "debug"}}`,
				"a.json5":       `{gateway: {port: 1, bind: "lan", trustedProxies: ["10.0.0.1"]}, logging: {level: "warn", file: "/a"}}`,
				"b.json5":       `{gateway: {port: 2, trustedProxies: ["10.0.0.2"]}}`,
			},
			check: func(t *testing.T, c *Config) {
				if c.Gateway.Port != 2 || c.Gateway.Bind != "lan" || !slices.Equal(c.Gateway.TrustedProxies, []string{"10.0.0.1", "10.0.0.2"}) {
					t.Errorf("gateway = %+v", c.Gateway)
				}
				if c.Logging.Level != "debug" || c.Logging.File != "/a" {
					t.Errorf("logging = %+v; sibling keys must override deeply", c.Logging)
				}
			},
		},
		{
			name: "sibling keys override",
			files: map[string]string{
				"openclaw.json": `{gateway: {$include: "gw.json5", port: 2}}`,
				"gw.json5":      `{port: 1, bind: "lan"}`,
			},
			check: func(t *testing.T, c *Config) {
				if c.Gateway.Port != 2 || c.Gateway.Bind != "lan" {
					t.Errorf("gateway = %+v", c.Gateway)
				}
			},
		},
		{
			name: "nested paths are relative to the including file",
			files: map[string]string{
				"openclaw.json":   `{gateway: {$include: "sub/a.json5"}}`,
				"sub/a.json5":     `{$include: "b.json5", bind: "lan"}`,
				"sub/b.json5":     `{port: 7}`,
				"b.json5":         `{port: 99}`,
				"sub/unused.json": `{}`,
			},
			check: func(t *testing.T, c *Config) {
				if c.Gateway.Port != 7 || c.Gateway.Bind != "lan" {
					t.Errorf("gateway = %+v", c.Gateway)
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, snap, issues := loadDir(t, tc.files, LoadOptions{})
			if len(issues) > 0 {
				t.Fatalf("issues: %q", issues)
			}
			tc.check(t, snap.Config)
		})
	}
}

func TestIncludeErrors(t *testing.T) {
	outside := t.TempDir()
	writeFile(t, outside, "x.json5", `{port: 1}`)
	chain := map[string]string{"openclaw.json": `{gateway: {$include: "1.json5"}}`}
	for i := 1; i <= 11; i++ {
		chain[fmt.Sprintf("%d.json5", i)] = fmt.Sprintf(`{$include: "%d.json5"}`, i+1)
	}
	chain["12.json5"] = `{port: 5}`

	for _, tc := range []struct {
		name  string
		files map[string]string
		setup func(t *testing.T, dir string)
		want  string // substring of the single issue
	}{
		{
			name:  "dot-dot escape",
			files: map[string]string{"openclaw.json": "{\n  gateway: {$include: '../x.json5'}}"},
			want:  `openclaw.json:2:23: gateway.$include: include "../x.json5" is outside the config directory`,
		},
		{
			name:  "absolute path outside",
			files: map[string]string{"openclaw.json": fmt.Sprintf(`{gateway: {$include: %q}}`, filepath.Join(outside, "x.json5"))},
			want:  `is outside the config directory`,
		},
		{
			name:  "symlink escape",
			files: map[string]string{"openclaw.json": `{gateway: {$include: "link.json5"}}`},
			setup: func(t *testing.T, dir string) {
				rel, _ := filepath.Rel(dir, filepath.Join(outside, "x.json5"))
				if err := os.Symlink(rel, filepath.Join(dir, "link.json5")); err != nil {
					t.Skip("symlinks unavailable:", err)
				}
			},
			want: `include "link.json5": resolves outside the config directory through a symlink`,
		},
		{
			name: "cycle",
			files: map[string]string{
				"openclaw.json": `{gateway: {$include: "a.json5"}}`,
				"a.json5":       `{$include: "b.json5"}`,
				"b.json5":       "{\n $include: 'a.json5'}",
			},
			want: `b.json5:2:12: gateway.$include: include cycle: DIR/openclaw.json -> DIR/a.json5 -> DIR/b.json5 -> DIR/a.json5`,
		},
		{
			name:  "too deep",
			files: chain,
			want:  `10.json5:1:12: gateway.$include: includes nest more than 10 levels deep at "11.json5"`,
		},
		{
			name:  "missing file",
			files: map[string]string{"openclaw.json": `{$include: "nope.json5"}`},
			want:  `include "nope.json5": file not found`,
		},
		{
			name:  "wrong type",
			files: map[string]string{"openclaw.json": `{$include: 5}`},
			want:  `openclaw.json:1:12: $include: expected a file path or an array of file paths, got a number`,
		},
		{
			name: "siblings need an object",
			files: map[string]string{
				"openclaw.json": `{gateway: {$include: "list.json5", port: 1}}`,
				"list.json5":    `[1, 2]`,
			},
			want: `keys beside $include need the included file to hold an object, but it holds an array`,
		},
		{
			name: "syntax error points into the included file",
			files: map[string]string{
				"openclaw.json": `{gateway: {$include: "gw.json5"}}`,
				"gw.json5":      "{\n  port: 1,\n  bind 'lan',\n}",
			},
			want: `gw.json5:3:8: expected ':' after the key`,
		},
		{
			name: "type error points into the included file",
			files: map[string]string{
				"openclaw.json": `{gateway: {$include: "gw.json5"}}`,
				"gw.json5":      "{\n  port: 'high',\n}",
			},
			want: `gw.json5:2:9: gateway.port: expected a number, got a string`,
		},
		{
			name:  "file too big",
			files: map[string]string{"openclaw.json": `{$include: "big.json5"}`},
			setup: func(t *testing.T, dir string) {
				writeFile(t, dir, "big.json5", "{a: '"+strings.Repeat("x", maxIncludeBytes)+"'}")
			},
			want: `include "big.json5": file is larger than 2097152 bytes`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range tc.files {
				writeFile(t, dir, name, text)
			}
			if tc.setup != nil {
				tc.setup(t, dir)
			}
			_, err := Load(filepath.Join(dir, "openclaw.json"), LoadOptions{})
			var le *LoadError
			if !errors.As(err, &le) || len(le.Issues) != 1 {
				t.Fatalf("want one issue, got %v", err)
			}
			got := strings.ReplaceAll(le.Issues[0].String(), dir, "DIR")
			if !strings.Contains(got, tc.want) {
				t.Errorf("issue:\n%s\nwant it to contain:\n%s", got, tc.want)
			}
		})
	}
}

func TestIncludeDepthTenIsAllowed(t *testing.T) {
	files := map[string]string{"openclaw.json": `{gateway: {$include: "1.json5"}}`}
	for i := 1; i < 10; i++ {
		files[fmt.Sprintf("%d.json5", i)] = fmt.Sprintf(`{$include: "%d.json5"}`, i+1)
	}
	files["10.json5"] = `{port: 5}`
	_, snap, issues := loadDir(t, files, LoadOptions{})
	if len(issues) > 0 {
		t.Fatal(issues)
	}
	if snap.Config.Gateway.Port != 5 || len(snap.Includes) != 10 {
		t.Errorf("port %d, includes %d", snap.Config.Gateway.Port, len(snap.Includes))
	}
}

func TestIncludeInsideSymlinkAndExtraRoot(t *testing.T) {
	extra := t.TempDir()
	writeFile(t, extra, "shared.json5", `{level: "warn"}`)
	dir := t.TempDir()
	writeFile(t, dir, "real.json5", `{port: 4321}`)
	if err := os.Symlink("real.json5", filepath.Join(dir, "link.json5")); err != nil {
		t.Skip("symlinks unavailable:", err)
	}
	writeFile(t, dir, "openclaw.json", fmt.Sprintf(`{gateway: {$include: "link.json5"}, logging: {$include: %q}}`, filepath.Join(extra, "shared.json5")))
	snap, err := Load(filepath.Join(dir, "openclaw.json"), LoadOptions{IncludeRoots: []string{extra}})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Config.Gateway.Port != 4321 || snap.Config.Logging.Level != "warn" {
		t.Errorf("config = %+v", snap.Config)
	}
}
