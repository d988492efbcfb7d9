package office

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/docextract"
	"github.com/xuri/excelize/v2"
)

type result struct {
	Path   string `json:"path"`
	Bytes  int    `json:"bytes"`
	URL    string `json:"url"`
	Note   string `json:"note"`
	Sheets int    `json:"sheets"`
	Slides int    `json:"slides"`
}

type published struct {
	who tools.Who
	rel string
}

// setup makes a workspace and the tools over it; calls records what the
// publisher saw.
func setup(t *testing.T, pub tools.Publisher) (string, map[string]tools.Tool) {
	t.Helper()
	dir := t.TempDir()
	cfg := Config{Workspace: func(tools.Who) (string, error) { return dir, nil }, Publish: pub}
	m := map[string]tools.Tool{}
	for _, tl := range Tools(cfg) {
		m[tl.Spec().Name] = tl
	}
	return dir, m
}

func call(t *testing.T, tl tools.Tool, args map[string]any) (result, error) {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := tl.Call(context.Background(), tools.Call{Name: tl.Spec().Name, Args: raw, Who: tools.Who{AgentID: "a1"}})
	if err != nil {
		return result{}, err
	}
	if res.IsError {
		return result{}, errors.New(res.Text)
	}
	var r result
	if err := json.Unmarshal([]byte(res.Text), &r); err != nil {
		t.Fatalf("result %q is not JSON: %v", res.Text, err)
	}
	return r, nil
}

func okPublisher(got *[]published) tools.Publisher {
	return func(ctx context.Context, who tools.Who, rel string) (string, error) {
		*got = append(*got, published{who, rel})
		return "https://dl.example/" + rel, nil
	}
}

func TestSpecs(t *testing.T) {
	_, m := setup(t, nil)
	for _, name := range []string{"XlsxRenderTool", "DocxRenderTool", "PptxRenderTool"} {
		tl, ok := m[name]
		if !ok {
			t.Fatalf("missing %s", name)
		}
		s := tl.Spec()
		if s.Tier != tools.TierCore || s.Source != tools.SourceCore || s.Dangerous || s.Timeout != tools.TimeoutFast || len(s.Groups) != 1 || s.Groups[0] != "group:fs" {
			t.Errorf("%s spec = %+v", name, s)
		}
		if !json.Valid(s.Parameters) {
			t.Errorf("%s schema invalid", name)
		}
	}
}

func TestXlsx(t *testing.T) {
	cases := []struct {
		name   string
		md     string
		sheets []string
		cells  map[string]map[string]string // sheet -> cell -> value
		nums   map[string][]string          // sheet -> cells that must be numbers
	}{
		{
			name:   "no heading",
			md:     "| a | b |\n|---|---|\n| 1 | x |\n",
			sheets: []string{"Sheet1"},
			cells:  map[string]map[string]string{"Sheet1": {"A1": "a", "B1": "b", "A2": "1", "B2": "x"}},
			nums:   map[string][]string{"Sheet1": {"A2"}},
		},
		{
			name: "split and sanitize",
			md: "## Sales: Q1/Q2 [draft] *final?* and a very long tail\n\n| Item | Price |\n|---|---|\n| Tea | 2.50 |\n| Cake | 1,200 |\n\n" +
				"## Costs\n\nno table here\n\n| k | v |\n|---|---|\n| <&>\" | 007 |\n\n## costs\n\n| z |\n|---|\n| 3 |\n",
			sheets: []string{"Sales_ Q1_Q2 _draft_ final_ and", "Costs", "costs (2)"},
			cells: map[string]map[string]string{
				"Costs":     {"A2": `<&>"`, "B2": "007"},
				"costs (2)": {"A2": "3"},
			},
			nums: map[string][]string{"Sales_ Q1_Q2 _draft_ final_ and": {"B2", "B3"}, "costs (2)": {"A2"}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var pubs []published
			dir, m := setup(t, okPublisher(&pubs))
			r, err := call(t, m["XlsxRenderTool"], map[string]any{"markdown": tc.md, "filename": "report"})
			if err != nil {
				t.Fatal(err)
			}
			if r.Path != "exports/report.xlsx" || r.Sheets != len(tc.sheets) || r.URL != "https://dl.example/exports/report.xlsx" {
				t.Fatalf("result = %+v", r)
			}
			if len(pubs) != 1 || pubs[0].rel != r.Path || pubs[0].who.AgentID != "a1" {
				t.Fatalf("published = %+v", pubs)
			}
			f, err := excelize.OpenFile(filepath.Join(dir, r.Path))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if got := f.GetSheetList(); strings.Join(got, "|") != strings.Join(tc.sheets, "|") {
				t.Fatalf("sheets = %q, want %q", got, tc.sheets)
			}
			for sh, cells := range tc.cells {
				for ref, want := range cells {
					if got, _ := f.GetCellValue(sh, ref); got != want {
						t.Errorf("%s!%s = %q, want %q", sh, ref, got, want)
					}
				}
			}
			for sh, refs := range tc.nums {
				for _, ref := range refs {
					// A number cell has no t attribute, which excelize
					// reports as Unset.
					if typ, _ := f.GetCellType(sh, ref); typ != excelize.CellTypeNumber && typ != excelize.CellTypeUnset {
						t.Errorf("%s!%s type = %v, want number", sh, ref, typ)
					}
				}
			}
			if typ, _ := f.GetCellType(f.GetSheetList()[0], "A1"); typ != excelize.CellTypeInlineString {
				t.Errorf("header A1 type = %v, want text", typ)
			}
			if id, _ := f.GetCellStyle(f.GetSheetList()[0], "A1"); id == 0 {
				t.Error("header not styled bold")
			}
		})
	}
}

func TestXlsxNoTable(t *testing.T) {
	_, m := setup(t, nil)
	if _, err := call(t, m["XlsxRenderTool"], map[string]any{"markdown": "# just text"}); err == nil || !strings.Contains(err.Error(), "no Markdown table") {
		t.Fatalf("err = %v", err)
	}
}

// readZip returns the parts of a package, failing on XML that does not
// decode.
func readZip(t *testing.T, path string) map[string]string {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	parts := map[string]string{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		if err := wellFormed(b); err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		parts[f.Name] = string(b)
	}
	return parts
}

func wellFormed(b []byte) error {
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// textOf is the character data of an XML part, for content checks that
// do not depend on how runs are split.
func textOf(s string) string {
	d := xml.NewDecoder(strings.NewReader(s))
	var b strings.Builder
	for {
		tok, err := d.Token()
		if err != nil {
			return b.String()
		}
		if cd, ok := tok.(xml.CharData); ok {
			b.Write(cd)
		}
	}
}

const sampleDoc = "# Title <&>\"\n\nSome **bold** and *italic* and `code`.\n\n- one\n- two\n  1. nested\n\n1. first\n2. second\n\n| h1 | h2 |\n|----|----|\n| c1 | c2 |\n\n```go\nfmt.Println(\"<hi>\")\n```\n\n###### Deep\n"

func TestDocx(t *testing.T) {
	var pubs []published
	dir, m := setup(t, okPublisher(&pubs))
	r, err := call(t, m["DocxRenderTool"], map[string]any{"markdown": sampleDoc, "filename": "../../etc/passwd.docx"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Path != "exports/passwd.docx" {
		t.Fatalf("path = %q", r.Path)
	}
	parts := readZip(t, filepath.Join(dir, r.Path))
	for _, name := range []string{"[Content_Types].xml", "_rels/.rels", "word/document.xml", "word/styles.xml", "word/_rels/document.xml.rels"} {
		if _, ok := parts[name]; !ok {
			t.Errorf("missing part %s", name)
		}
	}
	doc := parts["word/document.xml"]
	text := textOf(doc)
	for _, want := range []string{`Title <&>"`, "bold", "italic", "code", "one", "nested", "2. second", "h1", "c2", `fmt.Println("<hi>")`, "Deep"} {
		if !strings.Contains(text, want) {
			t.Errorf("document text lacks %q", want)
		}
	}
	for _, want := range []string{`w:val="Heading1"`, `w:val="Heading6"`, `<w:b/>`, `<w:i/>`, `Courier New`, `<w:tbl>`, `w:val="Code"`} {
		if !strings.Contains(doc, want) {
			t.Errorf("document.xml lacks %s", want)
		}
	}
	if !strings.Contains(parts["word/styles.xml"], `w:styleId="Heading6"`) {
		t.Error("styles lack Heading6")
	}
	// Cross-check with the extractor the gateway already ships.
	ex := docextract.Tools(func(tools.Who) (string, error) { return dir, nil })[0]
	raw, _ := json.Marshal(map[string]any{"path": r.Path})
	res, err := ex.Call(context.Background(), tools.Call{Name: ex.Spec().Name, Args: raw})
	if err != nil || res.IsError {
		t.Fatalf("extract: %v %s", err, res.Text)
	}
	for _, want := range []string{"Title", "nested", "c2"} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("extracted text lacks %q: %s", want, res.Text)
		}
	}
}

func TestPptx(t *testing.T) {
	md := "---\n\n# Intro <&>\"\n\n- point **a**\n- point b\n\n---\n\n## Second\n\nText para\n\n### Sub\n\n| x | y |\n|---|---|\n| 1 | 2 |\n\n---\n\nNo title here\n"
	cases := []struct {
		aspect string
		cx     string
	}{{"", "12192000"}, {"16:9", "12192000"}, {"4:3", "9144000"}}
	for _, tc := range cases {
		t.Run("aspect"+tc.aspect, func(t *testing.T) {
			dir, m := setup(t, nil)
			args := map[string]any{"markdown": md}
			if tc.aspect != "" {
				args["aspect"] = tc.aspect
			}
			r, err := call(t, m["PptxRenderTool"], args)
			if err != nil {
				t.Fatal(err)
			}
			if r.Slides != 3 || r.URL != "" || r.Note == "" || !strings.HasPrefix(r.Path, "exports/intro-") {
				t.Fatalf("result = %+v", r)
			}
			parts := readZip(t, filepath.Join(dir, r.Path))
			for _, name := range []string{"[Content_Types].xml", "_rels/.rels", "ppt/presentation.xml", "ppt/_rels/presentation.xml.rels",
				"ppt/slideMasters/slideMaster1.xml", "ppt/slideLayouts/slideLayout1.xml", "ppt/theme/theme1.xml",
				"ppt/slides/slide1.xml", "ppt/slides/slide3.xml", "ppt/slides/_rels/slide3.xml.rels"} {
				if _, ok := parts[name]; !ok {
					t.Errorf("missing part %s", name)
				}
			}
			if _, ok := parts["ppt/slides/slide4.xml"]; ok {
				t.Error("unexpected fourth slide")
			}
			if want := `<p:sldSz cx="` + tc.cx + `" cy="6858000"/>`; !strings.Contains(parts["ppt/presentation.xml"], want) {
				t.Errorf("presentation lacks %s", want)
			}
			s1, s2, s3 := parts["ppt/slides/slide1.xml"], parts["ppt/slides/slide2.xml"], parts["ppt/slides/slide3.xml"]
			if !strings.Contains(textOf(s1), `Intro <&>"`) || !strings.Contains(s1, `type="title"`) || !strings.Contains(textOf(s1), "point b") {
				t.Errorf("slide1 = %s", s1)
			}
			if !strings.Contains(textOf(s2), "Second") || !strings.Contains(textOf(s2), "1 | 2") || !strings.Contains(textOf(s2), "Sub") {
				t.Errorf("slide2 = %s", s2)
			}
			if strings.Contains(s3, `type="title"`) || !strings.Contains(textOf(s3), "No title here") {
				t.Errorf("slide3 = %s", s3)
			}
		})
	}
	_, m := setup(t, nil)
	if _, err := call(t, m["PptxRenderTool"], map[string]any{"markdown": "x", "aspect": "21:9"}); err == nil {
		t.Error("bad aspect accepted")
	}
	if _, err := call(t, m["PptxRenderTool"], map[string]any{"markdown": strings.Repeat("a\n\n---\n\n", maxSlides+1)}); err == nil || !strings.Contains(err.Error(), "at most 200") {
		t.Errorf("too many slides: %v", err)
	}
}

func TestOutputRules(t *testing.T) {
	table := "| a |\n|---|\n| 1 |\n"
	t.Run("no overwrite", func(t *testing.T) {
		var pubs []published
		dir, m := setup(t, okPublisher(&pubs))
		var paths []string
		for range 3 {
			r, err := call(t, m["XlsxRenderTool"], map[string]any{"markdown": table, "filename": "same.xlsx"})
			if err != nil {
				t.Fatal(err)
			}
			paths = append(paths, r.Path)
		}
		want := []string{"exports/same.xlsx", "exports/same-2.xlsx", "exports/same-3.xlsx"}
		if strings.Join(paths, " ") != strings.Join(want, " ") {
			t.Fatalf("paths = %v", paths)
		}
		for i, p := range want {
			if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
				t.Error(err)
			}
			if pubs[i].rel != p {
				t.Errorf("published %q, want %q", pubs[i].rel, p)
			}
		}
	})
	t.Run("hostile filenames", func(t *testing.T) {
		dir, m := setup(t, nil)
		for _, name := range []string{"../../x", "..", "/etc/passwd", `..\..\win`, ".hidden", "a/../../b"} {
			r, err := call(t, m["DocxRenderTool"], map[string]any{"markdown": "hi", "filename": name})
			if err != nil {
				t.Fatalf("%q: %v", name, err)
			}
			if !strings.HasPrefix(r.Path, "exports/") || strings.Contains(r.Path, "..") || strings.Count(r.Path, "/") != 1 {
				t.Errorf("%q -> %q", name, r.Path)
			}
			if _, err := os.Stat(filepath.Join(dir, r.Path)); err != nil {
				t.Errorf("%q: %v", name, err)
			}
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 || entries[0].Name() != "exports" {
			t.Errorf("workspace holds %v", entries)
		}
	})
	t.Run("publisher fails", func(t *testing.T) {
		dir, m := setup(t, func(context.Context, tools.Who, string) (string, error) { return "", errors.New("link service down") })
		r, err := call(t, m["XlsxRenderTool"], map[string]any{"markdown": table})
		if err != nil {
			t.Fatal(err)
		}
		if r.URL != "" || !strings.Contains(r.Note, "link service down") || !strings.Contains(r.Note, r.Path) {
			t.Fatalf("result = %+v", r)
		}
		if fi, err := os.Stat(filepath.Join(dir, r.Path)); err != nil || fi.Size() != int64(r.Bytes) {
			t.Fatalf("file: %v", err)
		}
	})
	t.Run("too large", func(t *testing.T) {
		_, m := setup(t, nil)
		for _, name := range []string{"XlsxRenderTool", "DocxRenderTool", "PptxRenderTool"} {
			_, err := call(t, m[name], map[string]any{"markdown": strings.Repeat("a", maxMarkdown+1)})
			if err == nil || !strings.Contains(err.Error(), "2 MB") {
				t.Errorf("%s: %v", name, err)
			}
		}
	})
	t.Run("empty", func(t *testing.T) {
		_, m := setup(t, nil)
		if _, err := call(t, m["DocxRenderTool"], map[string]any{"markdown": "  \n"}); err == nil {
			t.Error("empty markdown accepted")
		}
	})
}

func TestSheetNames(t *testing.T) {
	used := map[string]bool{}
	cases := []struct{ in, want string }{
		{"a/b\\c[d]e:f*g?h", "a_b_c_d_e_f_g_h"},
		{"", "Sheet"},
		{"'quoted'", "quoted"},
		{strings.Repeat("x", 40), strings.Repeat("x", 31)},
		{strings.Repeat("x", 40), strings.Repeat("x", 27) + " (2)"},
		{"History", "Sheet (2)"},
		// Excel counts UTF-16 units: 20 emoji are 40 of them.
		{strings.Repeat("😀", 20), strings.Repeat("😀", 15)},
		{strings.Repeat("y", 30) + "'z", strings.Repeat("y", 30)},
		{"tab\there\uFFFE", "tab_here_"},
		{"TAB_HERE_", "TAB_HERE_ (2)"},
	}
	for _, tc := range cases {
		if got := uniqueSheetName(tc.in, used); got != tc.want {
			t.Errorf("uniqueSheetName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzDocx(f *testing.F) {
	for _, s := range []string{sampleDoc, "", "| a |\n|-|\n| <x> |", "- a\n  - b\n    > c\n", "\x00\x01\uFFFE<&>", "<div>\n&amp;\n</div>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, md string) {
		doc := parseMarkdown([]byte(md))
		data, _, err := renderDocx(doc)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		for _, zf := range zr.File {
			rc, _ := zf.Open()
			b, _ := io.ReadAll(rc)
			rc.Close()
			if err := wellFormed(b); err != nil {
				t.Fatalf("%s: %v", zf.Name, err)
			}
		}
		// The same parse must not panic the other renderer either.
		renderPptx(doc, "16:9")
	})
}
