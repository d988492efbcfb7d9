package config

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// knownRefused lists the corpus files the real OpenClaw validator accepts
// but this loader refuses, with why. Each is a bug to fix; when a fix lands
// the test fails until the file is taken off this list.
var knownRefused = map[string]string{}

// corpusFile is what TestCorpus measures in one file.
type corpusFile struct {
	name     string
	leaves   int
	inEffect int
	// off counts, per key not in effect (generalised: map keys that are
	// names the user picks as *, array elements as []), the leaves under it.
	off map[string]int
}

// TestCorpus loads every config of testdata/corpus (each accepted by the
// real OpenClaw validator, see SOURCES.md) and measures how many of the
// leaf keys it sets take effect here: a leaf does not when the loader says
// "not implemented yet" or "not in effect here" for it or a parent (a network we do not have is
// reported that way too). The figures are the golden EFFECT.md; -update
// rewrites it.
func TestCorpus(t *testing.T) {
	names, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.json5"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	placeholder := func(name string) string { return "placeholder-" + strings.ToLower(name) }
	var files []corpusFile
	for _, path := range names {
		name := filepath.Base(path)
		snap, err := Load(path, LoadOptions{Getenv: placeholder})
		reason, listed := knownRefused[name]
		var le *LoadError
		switch {
		case err != nil && !errors.As(err, &le):
			t.Errorf("%s: %v", name, err)
			continue
		case err != nil && !listed:
			t.Errorf("%s: the real validator accepts it, this loader refuses it:\n%v", name, err)
			continue
		case err != nil:
			continue
		case listed:
			t.Errorf("%s loads now (was refused: %s): take it off knownRefused", name, reason)
		}
		files = append(files, measureEffect(name, snap))
	}
	got := effectReport("How much of the corpus takes effect here", "TestCorpus", len(names), files)
	checkEffectReport(t, filepath.Join("testdata", "corpus", "EFFECT.md"), "TestCorpus", got)
}

// checkEffectReport compares a measurement report with its golden file,
// or rewrites it with -update.
func checkEffectReport(t *testing.T, golden, test, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if string(want) != got {
		t.Errorf("%s is out of date: run go test -run %s -update and review the diff", golden, test)
	}
}

// measureEffect counts the leaves of snap.Tree and those in effect.
func measureEffect(name string, snap *Snapshot) corpusFile {
	offAt := map[string]bool{}
	for _, w := range snap.Warnings {
		if (strings.Contains(w.Message, "not implemented yet") || strings.Contains(w.Message, "not in effect here")) && w.Path != "" {
			offAt[w.Path] = true
		}
	}
	known, _ := loadKnownKeys()
	f := corpusFile{name: name, off: map[string]int{}}
	var walk func(v any, path, general string, k *keyTree, offKey string)
	walk = func(v any, path, general string, k *keyTree, offKey string) {
		if offKey == "" && offAt[path] {
			offKey = general
		}
		switch v := v.(type) {
		case map[string]any:
			if len(v) > 0 {
				for key, child := range v {
					step := key
					if k != nil && !k.open {
						if k.named(key) == nil && k.named("*") != nil {
							step = "*"
						}
					}
					walk(child, JoinPath(path, key), JoinPath(general, step), k.child(key), offKey)
				}
				return
			}
		case []any:
			if slices.ContainsFunc(v, func(x any) bool { _, obj := x.(map[string]any); return obj }) {
				for i, child := range v {
					walk(child, indexPath(path, i), general+"[]", k.items(), offKey)
				}
				return
			}
		}
		f.leaves++
		if offKey == "" {
			f.inEffect++
		} else {
			f.off[offKey]++
		}
	}
	for key, v := range snap.Tree {
		walk(v, JoinPath("", key), JoinPath("", key), known.child(key), "")
	}
	return f
}

// effectReport formats the per-file table, the totals and the keys most
// often not in effect.
func effectReport(title, test string, total int, files []corpusFile) string {
	var b strings.Builder
	var leaves, inEffect int
	offFiles, offLeaves := map[string]int{}, map[string]int{}
	for _, f := range files {
		leaves += f.leaves
		inEffect += f.inEffect
		for k, n := range f.off {
			offFiles[k]++
			offLeaves[k] += n
		}
	}
	fmt.Fprintf(&b, "# %s\n\n", title)
	fmt.Fprintf(&b, "Written by %s (go test -run %s -update). A leaf key is in effect unless the\n", test, test)
	fmt.Fprintf(&b, "loader warns \"not implemented yet\" or \"not in effect here\" for it or a parent.\n\n")
	fmt.Fprintf(&b, "Files: %d; loaded without errors: %d; leaf keys: %d; in effect: %d (%s).\n\n", total, len(files), leaves, inEffect, percent(inEffect, leaves))
	keys := slices.SortedFunc(func(yield func(string) bool) {
		for k := range offFiles {
			if !yield(k) {
				return
			}
		}
	}, func(a, b string) int {
		return cmp.Or(cmp.Compare(offFiles[b], offFiles[a]), cmp.Compare(offLeaves[b], offLeaves[a]), cmp.Compare(a, b))
	})
	fmt.Fprintf(&b, "## Keys most often not in effect\n\n| key | files | leaf keys |\n| --- | ---: | ---: |\n")
	for _, k := range keys[:min(len(keys), 40)] {
		fmt.Fprintf(&b, "| `%s` | %d | %d |\n", k, offFiles[k], offLeaves[k])
	}
	fmt.Fprintf(&b, "\n## Per file\n\n| file | leaf keys | in effect | %% | top keys not in effect |\n| --- | ---: | ---: | ---: | --- |\n")
	slices.SortFunc(files, func(a, b corpusFile) int { return cmp.Compare(a.name, b.name) })
	for _, f := range files {
		top := slices.SortedFunc(func(yield func(string) bool) {
			for k := range f.off {
				if !yield(k) {
					return
				}
			}
		}, func(a, b string) int { return cmp.Or(cmp.Compare(f.off[b], f.off[a]), cmp.Compare(a, b)) })
		for i, k := range top {
			top[i] = fmt.Sprintf("`%s` (%d)", k, f.off[k])
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %s |\n", f.name, f.leaves, f.inEffect, percent(f.inEffect, f.leaves), strings.Join(top[:min(len(top), 3)], ", "))
	}
	return b.String()
}

func percent(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}
