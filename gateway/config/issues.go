package config

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Severity says whether an Issue stops a config from loading.
type Severity int

const (
	// SeverityError makes Load fail; the running config (if any) is kept.
	SeverityError Severity = iota
	// SeverityWarning is reported but does not stop the config loading.
	SeverityWarning
)

// String returns "error" or "warning".
func (s Severity) String() string {
	if s == SeverityWarning {
		return "warning"
	}
	return "error"
}

// Issue is one problem found in a config file, located in the file the user
// wrote (an included file when the problem is there).
type Issue struct {
	// File is the path of the file the problem is in.
	File string
	// Line and Column are 1-based; Column counts characters (runes), not
	// bytes. They are 0 when the problem has no position (a missing file).
	Line, Column int
	// Path is the dotted key path, e.g. channels.telegram.accounts.work.botToken;
	// keys that are not plain words are written ["like.this"], array
	// elements [2]. Empty for problems that concern the whole file.
	Path string
	// Message says what is wrong, in lower case.
	Message string
	// Severity is SeverityError or SeverityWarning.
	Severity Severity
}

// String formats the issue as file:line:col: key.path: message, leaving out
// the parts it does not have.
func (i Issue) String() string {
	var b strings.Builder
	b.WriteString(i.File)
	if i.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", i.Line, i.Column)
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if i.Path != "" {
		b.WriteString(i.Path)
		b.WriteString(": ")
	}
	b.WriteString(i.Message)
	return b.String()
}

// Issues is a list of problems, formatted one per line.
type Issues []Issue

// String joins the issues, one per line.
func (is Issues) String() string {
	lines := make([]string, len(is))
	for i, issue := range is {
		lines[i] = issue.String()
	}
	return strings.Join(lines, "\n")
}

// LoadError reports every error found while loading a config file at once.
// Load and Parse return it (as error) when at least one Issue has
// SeverityError; use errors.As to reach the list.
type LoadError struct {
	// Path is the config file that was being loaded.
	Path string
	// Issues holds the errors only, sorted by file and position. Warnings
	// stay in Snapshot.Warnings.
	Issues Issues
}

// Error lists every issue, one per line, each as file:line:col: path: message.
func (e *LoadError) Error() string { return e.Issues.String() }

// ErrNotFound is returned (wrapped) by Unset when the path names nothing, so
// there was nothing to remove. Callers that want "remove if present" ignore it.
var ErrNotFound = errors.New("no such key")

// maxIssues caps the issues of each severity reported for one load; past
// it, hostile or badly broken input would only make the report unreadable
// (and slow).
const maxIssues = 100

// issueList collects issues while a file is processed.
type issueList struct {
	list   Issues
	counts [2]int // by Severity
	file   string // for issues that name no file
}

func (l *issueList) add(sev Severity, f *srcFile, off int, path, format string, args ...any) {
	if l.counts[sev]++; l.counts[sev] > maxIssues {
		return
	}
	issue := Issue{Path: path, Message: fmt.Sprintf(format, args...), Severity: sev}
	if f != nil {
		issue.File = f.name
		if off >= 0 {
			issue.Line, issue.Column = f.position(off)
		}
	}
	l.list = append(l.list, issue)
}

// room reports whether another issue of sev would still be listed, so
// callers can skip costly messages that would be dropped.
func (l *issueList) room(sev Severity) bool { return l.counts[sev] < maxIssues }

func (l *issueList) errorf(f *srcFile, off int, path, format string, args ...any) {
	l.add(SeverityError, f, off, path, format, args...)
}

func (l *issueList) warnf(f *srcFile, off int, path, format string, args ...any) {
	l.add(SeverityWarning, f, off, path, format, args...)
}

// errorAt reports an error at a node's value, or its key when atKey is set.
func (l *issueList) errorAt(n *node, atKey bool, path, format string, args ...any) {
	l.errorf(n.file, n.pos(atKey), path, format, args...)
}

func (l *issueList) warnAt(n *node, atKey bool, path, format string, args ...any) {
	l.warnf(n.file, n.pos(atKey), path, format, args...)
}

// split sorts the issues by position and separates errors from warnings.
func (l *issueList) split() (errs, warns Issues) {
	sorted := slices.Clone(l.list)
	for i := range sorted {
		if sorted[i].File == "" {
			sorted[i].File = l.file
		}
	}
	slices.SortStableFunc(sorted, func(a, b Issue) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
	for _, issue := range sorted {
		if issue.Severity == SeverityError {
			errs = append(errs, issue)
		} else {
			warns = append(warns, issue)
		}
	}
	for sev, n := range l.counts {
		if n > maxIssues {
			note := Issue{File: l.file, Severity: Severity(sev), Message: fmt.Sprintf("%d more %ss are not listed", n-maxIssues, Severity(sev))}
			if note.Severity == SeverityError {
				errs = append(errs, note)
			} else {
				warns = append(warns, note)
			}
		}
	}
	return errs, warns
}
