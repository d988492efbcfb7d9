package pdfrender

import (
	"fmt"
	"os"
	"path/filepath"
	"unicode"

	"golang.org/x/image/font/sfnt"
)

// fontDirs and fontNames are where FindFont looks when no font is
// configured: Unicode TrueType fonts that fpdf can embed (it cannot read
// .ttc collections), the one covering CJK first.
var (
	fontDirs  = []string{"/usr/share/fonts", "/usr/local/share/fonts", "/Library/Fonts", "/System/Library/Fonts/Supplemental", `C:\Windows\Fonts`}
	fontNames = []string{
		// CJK first: Debian's fonts-droid-fallback, Noto's per-language
		// CJK TrueType cuts, the Arial Unicode of macOS and Office.
		"DroidSansFallbackFull.ttf", "DroidSansFallback.ttf",
		"NotoSansSC-Regular.ttf", "NotoSansTC-Regular.ttf", "NotoSansJP-Regular.ttf", "NotoSansKR-Regular.ttf",
		"NotoSansCJKsc-Regular.ttf", "NotoSansCJK-Regular.ttf",
		"Arial Unicode.ttf", "arialuni.ttf",
		// Then wide Latin, Greek and Cyrillic coverage; CJK is then noted
		// as missing in the result.
		"NotoSans-Regular.ttf", "DejaVuSans.ttf",
	}
)

// FindFont returns configured when it is set, else the first known
// Unicode font found under the system's font folders, else "" (Latin
// text only). Call it once (the walk is not free) and keep the answer.
func FindFont(configured string) string {
	if configured != "" {
		return configured
	}
	found := map[string]string{}
	for _, dir := range fontDirs {
		filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return nil // a folder we cannot read is skipped
			}
			if !d.IsDir() {
				if _, seen := found[d.Name()]; !seen {
					found[d.Name()] = path
				}
			}
			return nil
		})
	}
	for _, name := range fontNames {
		if p, ok := found[name]; ok {
			return p
		}
	}
	return ""
}

// glyphCheck counts the characters a TrueType font has no glyph for:
// fpdf prints those blank without a word, so the tool says so instead.
type glyphCheck struct {
	font    *sfnt.Font
	buf     sfnt.Buffer
	known   map[rune]bool // rune -> has a glyph
	missing int
	sample  []rune
}

// maxMissingSample bounds the characters a note quotes.
const maxMissingSample = 8

func newGlyphCheck(ttf []byte) (*glyphCheck, error) {
	f, err := sfnt.Parse(ttf)
	if err != nil {
		return nil, fmt.Errorf("read its glyph table: %w", err)
	}
	return &glyphCheck{font: f, known: map[rune]bool{}}, nil
}

// check counts s's printable characters without a glyph.
func (g *glyphCheck) check(s string) {
	for _, c := range s {
		if unicode.IsSpace(c) || unicode.IsControl(c) {
			continue
		}
		has, seen := g.known[c]
		if !seen {
			i, err := g.font.GlyphIndex(&g.buf, c)
			has = err == nil && i != 0
			g.known[c] = has
			if !has && len(g.sample) < maxMissingSample {
				g.sample = append(g.sample, c)
			}
		}
		if !has {
			g.missing++
		}
	}
}
