package sqltool

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// statement is one SQL statement the model sent, as the guard read it.
type statement struct {
	// text is the statement without the trailing ";" and what follows.
	text string
	// keywords are the top-level bare words, upper-cased, in order; the
	// guard uses them only to refuse what SQLite's authorizer cannot see
	// (VACUUM INTO), never to decide read versus write.
	keywords []string
}

// maxSQLBytes bounds the statement text; a model has no business sending
// more, and the guard and SQLite's parser both walk it.
const maxSQLBytes = 256 << 10

// splitStatement refuses anything but exactly one statement: a ";" that
// SQLite would see as a statement end must be followed only by more ";",
// white space and comments. It follows SQLite's tokenizer for everything
// that can hide a ";": strings, quoted identifiers ("…", `…`, […]),
// comments, and Tcl-style variables such as $a(…), which SQLite reads up
// to white space or ")". When it is unsure it refuses; the authorizer
// (see authorizer) is the second line for anything it misreads.
func splitStatement(sql string) (statement, error) {
	if len(sql) > maxSQLBytes {
		return statement{}, fmt.Errorf("sql is too long (%d bytes; the limit is %d)", len(sql), maxSQLBytes)
	}
	if strings.IndexByte(sql, 0) >= 0 {
		// SQLite stops reading at a NUL, so the text after it would be
		// neither checked nor run; refuse rather than guess.
		return statement{}, errors.New("sql contains a NUL byte")
	}
	var st statement
	end := -1 // index of the first top-level ";"
	i := 0
	for i < len(sql) {
		c := sql[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			j := closeQuote(sql, i+1, c)
			if j < 0 {
				return statement{}, fmt.Errorf("unterminated %c quote starting at byte %d", c, i)
			}
			i = j
			continue
		case c == '[':
			j := strings.IndexByte(sql[i+1:], ']')
			if j < 0 {
				return statement{}, fmt.Errorf("unterminated [ identifier starting at byte %d", i)
			}
			i += j + 2
			continue
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				i = len(sql)
			} else {
				i += j + 1
			}
			continue
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			// SQLite lets an unterminated block comment run to the end.
			j := strings.Index(sql[i+2:], "*/")
			if j < 0 {
				i = len(sql)
			} else {
				i += j + 4
			}
			continue
		case c == '$' || c == '@' || c == ':' || c == '#':
			i = variableEnd(sql, i)
			continue
		case c == ';':
			if end < 0 {
				end = i
			}
			i++
			continue
		case isIDChar(c) && !isDigit(c):
			j := i
			for j < len(sql) && isIDChar(sql[j]) {
				j++
			}
			if end >= 0 {
				return statement{}, fmt.Errorf("only one statement per call: found more after the \";\" at byte %d", end)
			}
			st.keywords = append(st.keywords, strings.ToUpper(sql[i:j]))
			i = j
			continue
		}
		if end >= 0 && !isSpace(c) {
			return statement{}, fmt.Errorf("only one statement per call: found more after the \";\" at byte %d", end)
		}
		i++
	}
	st.text = sql
	if end >= 0 {
		st.text = sql[:end]
	}
	if len(st.keywords) == 0 {
		return statement{}, errors.New("sql is empty (no statement, only white space or comments)")
	}
	return st, nil
}

// closeQuote returns the index just past the quote q closing the quoted
// text starting at from, where a doubled quote is an escaped one; -1 when
// the text never closes.
func closeQuote(s string, from int, q byte) int {
	for i := from; i < len(s); i++ {
		if s[i] != q {
			continue
		}
		if i+1 < len(s) && s[i+1] == q {
			i++
			continue
		}
		return i + 1
	}
	return -1
}

// variableEnd mirrors SQLite's reading of a $, @, : or # variable: name
// characters and "::", and after at least one name character a "(" that
// swallows everything up to white space or ")".
func variableEnd(s string, i int) int {
	n := 0
	for i++; i < len(s); i++ {
		c := s[i]
		switch {
		case isIDChar(c):
			n++
		case c == '(' && n > 0:
			for i++; i < len(s) && !isSpace(s[i]) && s[i] != ')'; i++ {
			}
			if i < len(s) && s[i] == ')' {
				i++
			}
			return i
		case c == ':' && i+1 < len(s) && s[i+1] == ':':
			i++
		default:
			return i
		}
	}
	return i
}

// isIDChar is SQLite's IdChar: letters, digits, "_", "$" and any byte of a
// multi-byte UTF-8 character.
func isIDChar(c byte) bool {
	return c >= 0x80 || c == '_' || c == '$' || isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isSpace is SQLite's white space.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == '\v'
}

// refuseKeywords refuses VACUUM, which the authorizer is not asked about
// when it is compiled: VACUUM INTO writes a copy of the database to any
// path, even from a read-only connection, and a plain VACUUM rewrites the
// file.
func (st statement) refuseKeywords(ds string, readOnly bool) error {
	if len(st.keywords) == 0 || st.keywords[0] != "VACUUM" {
		return nil
	}
	for _, k := range st.keywords[1:] {
		if k == "INTO" {
			return fmt.Errorf("datasource %q: VACUUM INTO is not allowed: it writes a database file outside the datasource", ds)
		}
	}
	if readOnly {
		return fmt.Errorf("datasource %q is read-only: VACUUM rewrites the database", ds)
	}
	// VACUUM works by attaching a scratch database, which the authorizer
	// refuses; say so instead of blaming ATTACH.
	return fmt.Errorf("datasource %q: VACUUM is not supported by SqlQueryTool", ds)
}

// deniedFunctions may never be called: load_extension runs native code from
// a file, and the two-argument fts3_tokenizer takes a raw pointer.
var deniedFunctions = map[string]bool{"load_extension": true, "fts3_tokenizer": true}

// deniedPragmas change how the connection itself is protected or where it
// puts files; the model has no need for them, approved or not.
var deniedPragmas = map[string]bool{
	"query_only": true, "writable_schema": true, "trusted_schema": true,
	"temp_store_directory": true, "data_store_directory": true,
}

// deniedSettings may be read but never set: a wrong schema_version
// corrupts the database, and the heap limits are the whole process's, the
// gateway's own database included.
var deniedSettings = map[string]bool{
	"schema_version": true, "hard_heap_limit": true, "soft_heap_limit": true,
}

// pragmaArgQueries are the PRAGMAs whose argument names what to look at
// rather than a new value: PRAGMA table_info(users) reads.
var pragmaArgQueries = map[string]bool{
	"table_info": true, "table_xinfo": true, "table_list": true,
	"index_info": true, "index_xinfo": true, "index_list": true,
	"foreign_key_list": true, "foreign_key_check": true,
	"integrity_check": true, "quick_check": true,
}

// pragmaActions write to the database file without an argument.
var pragmaActions = map[string]bool{
	"optimize": true, "wal_checkpoint": true, "incremental_vacuum": true,
}

// pragmaWrites says whether PRAGMA name with argument arg (empty when it
// has none) changes anything: the database file (user_version,
// journal_mode, wal_checkpoint) or the connection (foreign_keys,
// cache_size, temp_store). SQLite asks the authorizer about every PRAGMA
// with exactly these two strings; an unknown name with an argument counts
// as a write, so what this list does not know waits for a person.
func pragmaWrites(name, arg string) bool {
	if pragmaActions[name] {
		return true
	}
	return arg != "" && !pragmaArgQueries[name]
}

// authorizer is one call's policy, installed on the physical connection
// before the statement is prepared. SQLite asks it about every table,
// column, function and action the statement compiles to, triggers and
// views included, so its answer on "does this write" is SQLite's own and
// not a reading of keywords.
type authorizer struct {
	ds       string
	readOnly bool

	// strict refuses everything compiled after the statement, reads
	// included; the fuzz test uses it to catch any missed statement.
	strict bool

	mu       sync.Mutex
	writes   bool
	prepared bool
	denied   string
	// approved lets a PRAGMA setting compile. SQLite applies many
	// settings (foreign_keys, cache_size, writable_schema) while it
	// compiles the PRAGMA, not when it runs, so until a person approved
	// the write the authorizer answers IGNORE, which compiles the PRAGMA
	// to nothing, and records in settings that the statement must be
	// compiled again once approved (see recompile).
	approved bool
	settings bool
}

// isWrite lists the actions that change the database or its schema.
func isWrite(a sqlite.AuthorizerActionCode) bool {
	switch a {
	case sqlite.AuthInsert, sqlite.AuthUpdate, sqlite.AuthDelete,
		sqlite.AuthCreateIndex, sqlite.AuthCreateTable, sqlite.AuthCreateTempIndex, sqlite.AuthCreateTempTable,
		sqlite.AuthCreateTempTrigger, sqlite.AuthCreateTempView, sqlite.AuthCreateTrigger, sqlite.AuthCreateView,
		sqlite.AuthDropIndex, sqlite.AuthDropTable, sqlite.AuthDropTempIndex, sqlite.AuthDropTempTable,
		sqlite.AuthDropTempTrigger, sqlite.AuthDropTempView, sqlite.AuthDropTrigger, sqlite.AuthDropView,
		sqlite.AuthAlterTable, sqlite.AuthReindex, sqlite.AuthAnalyze, sqlite.AuthCreateVTable, sqlite.AuthDropVTable:
		return true
	}
	return false
}

// isReadOnly lists the actions of a plain read. A PRAGMA that only
// reports is one: SQLite compiles one while a pragma_table_info(…) table
// runs.
func isReadOnly(a sqlite.AuthorizerActionCode, arg1, arg2 string) bool {
	switch a {
	case sqlite.AuthSelect, sqlite.AuthRead, sqlite.AuthFunction, sqlite.AuthRecursive:
		return true
	case sqlite.AuthPragma:
		name := strings.ToLower(arg1)
		return !deniedPragmas[name] && !pragmaWrites(name, arg2)
	}
	return false
}

func (a *authorizer) deny(why string) sqlite.AuthorizerReturnCode {
	if a.denied == "" {
		a.denied = why
	}
	return sqlite.AuthorizerDeny
}

// check is the sqlite.AuthorizerFn.
func (a *authorizer) check(action sqlite.AuthorizerActionCode, arg1, arg2, _, _ string) sqlite.AuthorizerReturnCode {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.prepared && (a.strict || !isReadOnly(action, arg1, arg2)) {
		// The statement was compiled and judged already. SQLite compiling
		// more means the text held a further statement the splitter
		// missed (the driver runs such tails one by one), the schema
		// changed under us, or the statement runs SQL of its own (ANALYZE
		// reloads its statistics). Reads may go on, since they cannot
		// change anything; anything else was never judged, so it stops.
		return a.deny("only one statement per call (or the schema changed while it ran; try again)")
	}
	switch {
	case action == sqlite.AuthAttach || action == sqlite.AuthDetach:
		return a.deny("ATTACH and DETACH are not allowed: they would open other database files")
	case action == sqlite.AuthFunction && deniedFunctions[strings.ToLower(arg2)]:
		return a.deny(fmt.Sprintf("function %s is not allowed", strings.ToLower(arg2)))
	case action == sqlite.AuthPragma:
		return a.pragma(strings.ToLower(arg1), arg2)
	case action == sqlite.AuthTransaction || action == sqlite.AuthSavepoint:
		// Each call borrows a pooled connection; a transaction left open
		// would leak into whichever call gets it next.
		return a.deny("transactions are not supported: each call runs one statement on its own")
	case isWrite(action):
		a.writes = true
		if a.readOnly {
			return a.deny("the datasource is read-only")
		}
	}
	return sqlite.AuthorizerOK
}

// pragma judges PRAGMA name with argument arg; see pragmaWrites and the
// approved field. Called with a.mu held.
func (a *authorizer) pragma(name, arg string) sqlite.AuthorizerReturnCode {
	switch {
	case deniedPragmas[name]:
		return a.deny(fmt.Sprintf("PRAGMA %s is not allowed", name))
	case !pragmaWrites(name, arg):
		return sqlite.AuthorizerOK
	case deniedSettings[name]:
		return a.deny(fmt.Sprintf("PRAGMA %s may be read but not set", name))
	}
	a.writes = true
	switch {
	case a.readOnly:
		return a.deny(fmt.Sprintf("the datasource is read-only: PRAGMA %s changes it", name))
	case !a.approved:
		a.settings = true
		return sqlite.AuthorizerIgnore
	}
	return sqlite.AuthorizerOK
}

// recompile is called once a person approved the statement's write: it
// lets PRAGMA settings compile from now on and says whether the statement
// holds one, in which case the caller compiles it again (the first
// compile left the setting out).
func (a *authorizer) recompile() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.approved = true
	if !a.settings {
		return false
	}
	a.prepared = false
	return true
}

// done marks the statement compiled; see check.
func (a *authorizer) done() (writes bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.prepared = true
	return a.writes
}

// explain turns a failure into the authorizer's reason when it caused it.
func (a *authorizer) explain(err error) error {
	a.mu.Lock()
	why := a.denied
	a.mu.Unlock()
	var se *sqlite.Error
	if why == "" && a.readOnly && errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_READONLY {
		// Writes the authorizer is not asked about (PRAGMA user_version=…,
		// for one) still meet mode=ro and query_only; say so plainly.
		why = "the datasource is read-only"
	}
	if why == "" {
		return fmt.Errorf("datasource %q: %w", a.ds, err)
	}
	if rest, ok := strings.CutPrefix(why, "the datasource is read-only"); ok {
		rest = strings.TrimPrefix(rest, ": ")
		if rest == "" {
			rest = "the statement would change it"
		}
		return fmt.Errorf("datasource %q is read-only: %s (%w)", a.ds, rest, err)
	}
	return fmt.Errorf("datasource %q: %s (%w)", a.ds, why, err)
}
