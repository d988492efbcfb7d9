package execpolicy

import (
	"fmt"
	"slices"
	"strings"
)

// BinProfile is the argument shape a safe bin accepts. Safe bins are
// stdin-only filters, so options that name files (tail -f, sort -o,
// grep -r) are denied and operands are limited.
//
// Every option must be listed exactly in Flags or ValueFlags. Anything else
// is refused: an option in DeniedFlags, any prefix of a denied long option
// (GNU tools accept unambiguous abbreviations, so "sort --compress-prog"
// is "--compress-program": CVE-2026-28363), an abbreviation of an allowed
// long option, and an unknown option.
type BinProfile struct {
	// MinPositional and MaxPositional bound the operands ("-" for standard
	// input is not counted). MaxPositional < 0 means no upper bound.
	MinPositional, MaxPositional int
	// Flags are options that take no value: "-c", "--count".
	Flags []string
	// ValueFlags are options that take a value, attached ("-n5",
	// "--lines=5") or as the next word ("-n 5").
	ValueFlags []string
	// DeniedFlags are refused with their abbreviations, and named in the
	// reason.
	DeniedFlags []string
	// NumericCount accepts the obsolete "-N" form of head and tail.
	NumericCount bool
}

// DefaultProfiles are the profiles of the default safe bins, and of grep
// and sort for operators who add them.
var DefaultProfiles = map[string]BinProfile{
	"head": {
		Flags:        []string{"-q", "--quiet", "--silent", "-v", "--verbose", "-z", "--zero-terminated"},
		ValueFlags:   []string{"-n", "--lines", "-c", "--bytes"},
		NumericCount: true,
	},
	"tail": {
		Flags:        []string{"-q", "--quiet", "--silent", "-v", "--verbose", "-z", "--zero-terminated"},
		ValueFlags:   []string{"-n", "--lines", "-c", "--bytes"},
		DeniedFlags:  []string{"-f", "--follow", "-F", "--retry", "--pid", "-s", "--sleep-interval", "--max-unchanged-stats"},
		NumericCount: true,
	},
	"wc": {
		Flags:       []string{"-c", "--bytes", "-m", "--chars", "-l", "--lines", "-w", "--words", "-L", "--max-line-length"},
		DeniedFlags: []string{"--files0-from"},
	},
	"cut": {
		Flags:      []string{"-n", "--complement", "-s", "--only-delimited", "-z", "--zero-terminated"},
		ValueFlags: []string{"-b", "--bytes", "-c", "--characters", "-d", "--delimiter", "-f", "--fields", "--output-delimiter"},
	},
	"uniq": {
		Flags:      []string{"-c", "--count", "-d", "--repeated", "-D", "-i", "--ignore-case", "-u", "--unique", "-z", "--zero-terminated"},
		ValueFlags: []string{"-f", "--skip-fields", "-s", "--skip-chars", "-w", "--check-chars"},
	},
	"tr": {
		MinPositional: 1, MaxPositional: 2,
		Flags: []string{"-c", "-C", "--complement", "-d", "--delete", "-s", "--squeeze-repeats", "-t", "--truncate-set1"},
	},
	"grep": {
		MinPositional: 1, MaxPositional: 1,
		Flags: []string{
			"-i", "--ignore-case", "-v", "--invert-match", "-c", "--count", "-n", "--line-number",
			"-o", "--only-matching", "-w", "--word-regexp", "-x", "--line-regexp", "-E",
			"--extended-regexp", "-F", "--fixed-strings", "-G", "--basic-regexp", "-P", "--perl-regexp",
			"-s", "--no-messages", "-q", "--quiet", "--silent", "-h", "--no-filename", "-b",
			"--byte-offset", "-a", "--text", "-z", "--null-data", "--color", "--colour",
		},
		ValueFlags:  []string{"-m", "--max-count", "-A", "--after-context", "-B", "--before-context", "-C", "--context"},
		DeniedFlags: []string{"-r", "--recursive", "-R", "--dereference-recursive", "-f", "--file", "-d", "--directories", "-D", "--devices", "--include", "--exclude", "--exclude-from", "--exclude-dir", "-e", "--regexp", "-H", "--with-filename"},
	},
	"sort": {
		Flags: []string{
			"-b", "--ignore-leading-blanks", "-d", "--dictionary-order", "-f", "--ignore-case",
			"-g", "--general-numeric-sort", "-i", "--ignore-nonprinting", "-M", "--month-sort",
			"-h", "--human-numeric-sort", "-n", "--numeric-sort", "-R", "--random-sort", "-r",
			"--reverse", "-V", "--version-sort", "-s", "--stable", "-u", "--unique", "-z",
			"--zero-terminated", "-c", "-C", "--check",
		},
		ValueFlags:  []string{"-k", "--key", "-t", "--field-separator", "-S", "--buffer-size", "--parallel", "--sort"},
		DeniedFlags: []string{"-o", "--output", "-T", "--temporary-directory", "--compress-program", "--files0-from", "--random-source", "-m", "--merge"},
	},
}

// scriptBins never count as safe bins, even when listed: awk, sed and jq
// run scripts that can start commands, read the environment or write
// files, which no argument profile can rule out.
var scriptBins = []string{"awk", "gawk", "mawk", "nawk", "sed", "gsed", "jq"}

// pathLike reports operands that name a file (absolute, relative to the
// directory or the home), as OpenClaw's safe-bin check refuses them: a
// custom profile allowing operands must not let a bin read a file.
func pathLike(a string) bool {
	return strings.HasPrefix(a, "/") || strings.HasPrefix(a, "./") || strings.HasPrefix(a, "../") || strings.HasPrefix(a, "~") ||
		a == "." || a == ".."
}

// safeBin reports whether c runs as a safe bin under p, and if not, why
// (the reason starts with "; ", or is empty for a command that is not a
// safe bin at all).
func (p Policy) safeBin(c Command) (bool, string) {
	name := baseName(c.Executable)
	if !slices.Contains(p.SafeBins, name) {
		return false, ""
	}
	switch {
	case slices.Contains(scriptBins, name):
		return false, fmt.Sprintf("; %s never runs as a safe bin: its scripts can run commands and write files", name)
	case !p.trusted(c.Resolved):
		return false, fmt.Sprintf("; safe bin %s must resolve into a trusted directory", name)
	case c.DynamicArgs:
		return false, fmt.Sprintf("; safe bin %s arguments must be fixed strings", name)
	case c.InlineCode:
		return false, fmt.Sprintf("; safe bin %s cannot run inline code", name)
	}
	prof, ok := p.SafeBinProfiles[name]
	if !ok {
		prof = DefaultProfiles[name] // zero profile: no options, no operands
	}
	if err := prof.Check(c.Argv[1:]); err != nil {
		return false, fmt.Sprintf("; safe bin %s: %v", name, err)
	}
	return true, ""
}

// Check validates the arguments (without argv[0]) of a safe bin.
func (bp BinProfile) Check(args []string) error {
	positional := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			for _, rest := range args[i+1:] {
				if pathLike(rest) {
					return fmt.Errorf("operand %q names a file; a safe bin reads only its input", rest)
				}
			}
			positional += len(args) - i - 1
			i = len(args)
		case a == "-":
		case !strings.HasPrefix(a, "-"):
			if pathLike(a) {
				return fmt.Errorf("operand %q names a file; a safe bin reads only its input", a)
			}
			positional++
		case strings.HasPrefix(a, "--"):
			name, _, has := strings.Cut(a, "=")
			switch {
			case slices.Contains(bp.ValueFlags, name):
				if !has {
					if i+1 >= len(args) {
						return fmt.Errorf("option %s needs a value", name)
					}
					i++
				}
			case slices.Contains(bp.Flags, name):
				if has {
					return fmt.Errorf("option %s takes no value", name)
				}
			default:
				return bp.refuse(name)
			}
		default:
			if bp.NumericCount && isDecimal(a[1:]) {
				continue
			}
			for j := 1; j < len(a); j++ {
				f := "-" + a[j:j+1]
				if slices.Contains(bp.ValueFlags, f) {
					if j+1 == len(a) {
						if i+1 >= len(args) {
							return fmt.Errorf("option %s needs a value", f)
						}
						i++
					}
					break
				}
				if !slices.Contains(bp.Flags, f) {
					return bp.refuse(f)
				}
			}
		}
	}
	if positional < bp.MinPositional {
		return fmt.Errorf("needs at least %d operands, got %d", bp.MinPositional, positional)
	}
	if bp.MaxPositional >= 0 && positional > bp.MaxPositional {
		return fmt.Errorf("takes at most %d operands (standard input only), got %d", bp.MaxPositional, positional)
	}
	return nil
}

// refuse explains why an option that is not allowed is refused.
func (bp BinProfile) refuse(opt string) error {
	if slices.Contains(bp.DeniedFlags, opt) {
		return fmt.Errorf("option %s is denied", opt)
	}
	if strings.HasPrefix(opt, "--") && len(opt) > 2 {
		for _, d := range bp.DeniedFlags {
			if strings.HasPrefix(d, opt) {
				return fmt.Errorf("option %s abbreviates denied option %s", opt, d)
			}
		}
		for _, f := range slices.Concat(bp.Flags, bp.ValueFlags) {
			if strings.HasPrefix(f, opt) {
				return fmt.Errorf("option %s abbreviates %s; abbreviated options are refused", opt, f)
			}
		}
	}
	return fmt.Errorf("option %s is not allowed", opt)
}
