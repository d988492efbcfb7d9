package pdfrender

import (
	"os"
	"path/filepath"
)

// fontDirs and fontNames are where FindFont looks when no font is
// configured: Unicode TrueType fonts that fpdf can embed (it cannot read
// .ttc collections), the one covering CJK first.
var (
	fontDirs  = []string{"/usr/share/fonts", "/usr/local/share/fonts", "/Library/Fonts", "/System/Library/Fonts/Supplemental", `C:\Windows\Fonts`}
	fontNames = []string{"DroidSansFallbackFull.ttf", "NotoSans-Regular.ttf", "DejaVuSans.ttf", "arialuni.ttf"}
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
