package execpolicy

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Limits on what Analyze accepts. Both fail closed: a longer command is an
// error, deeper nesting is reported unknowable.
const (
	MaxCommandBytes = 256 << 10 // longest command line analysed
	maxDepth        = 8         // nested shell strings (sh -c "sh -c …") followed
)

// Dialect is the shell that will interpret the command line.
type Dialect uint8

const (
	// Bash covers sh, dash and bash: the command is parsed as Bash, whose
	// syntax is a superset of POSIX sh.
	Bash Dialect = iota
	// Zsh parses with zsh's grammar and treats every expansion as
	// unknowable, since zsh's globs and parameter flags can run code.
	Zsh
	// Cmd is Windows cmd.exe: only plain commands are understood and every
	// metacharacter (& | < > ^ ( ) % !) is unknowable.
	Cmd
)

// Analyzer turns a command line into the programs it would run. The zero
// value parses but resolves nothing; give it LookPath and EvalSymlinks (in
// production exec.LookPath and filepath.EvalSymlinks) to fill in
// Command.Resolved. An Analyzer is safe for concurrent use if its functions
// are.
type Analyzer struct {
	// LookPath finds a bare command name on the PATH the command will run
	// with, and checks that a path names an executable file.
	LookPath func(file string) (string, error)
	// EvalSymlinks resolves every symbolic link in an absolute path.
	EvalSymlinks func(path string) (string, error)
	// Dir is the absolute directory the command runs in; relative
	// executables (./build.sh) are resolved against it. Empty leaves them
	// unresolved.
	Dir string
	// Dialect is the shell that runs the command; the default is Bash.
	Dialect Dialect
	// Env holds the variables the caller adds to the command's
	// environment (exec's env argument, system.run's env). The command
	// line does not show them, yet they steer what its programs do, so
	// they are reported in Analysis.Env and judged like assignments.
	Env map[string]string
}

// Analysis is what a command line would run, as far as can be told without
// running it.
type Analysis struct {
	// Commands lists every program and builtin that may run, in source
	// order, after unwrapping wrappers; wrappers that are programs are
	// listed too, before what they run.
	Commands []Command
	// Unknowable lists the places where what runs cannot be known: a
	// command word that is an expansion, a shell string that is not a fixed
	// string, a program that reads its commands from input, and the like.
	Unknowable []Unknown
	// Redirections lists file redirections and here-documents, and options
	// that write files in their place (time -o, find -fprint).
	Redirections []Redirection
	// Substitutions lists command and process substitutions as written:
	// $(…), `…`, <(…), >(…).
	Substitutions []string
	// Assignments lists the variables the command line sets: prefix
	// assignments, env NAME=value, export, declare, read-only loop
	// variables, ${name:=value}.
	Assignments []string
	// Env is a copy of Analyzer.Env: variables set for the command from
	// outside the command line.
	Env map[string]string
}

// Command is one program or builtin invocation.
type Command struct {
	// Argv is the argument vector after quote removal; words that are not
	// fixed strings appear as written.
	Argv []string
	// Executable is Argv[0]: the command name or path as written.
	Executable string
	// Resolved is the absolute path of the executable with every symbolic
	// link resolved, or empty if it could not be resolved (or Builtin).
	Resolved string
	// Wrappers names what this command was reached through, outermost
	// first: "env", "sh -c", "sudo", "find -exec", "xargs", "eval", …
	Wrappers []string
	// InlineCode is set for interpreters given their program on the command
	// line or on standard input (python -c, node -e, perl -e, awk '…',
	// a bare python reading stdin).
	InlineCode bool
	// Builtin is set for shell builtins, which run no executable.
	Builtin bool
	// Wrapper is set for programs whose only job here is to run the
	// commands listed after them (env, nice, nohup, timeout, stdbuf, time,
	// xargs, busybox, sh -c with a fixed script).
	Wrapper bool
	// DynamicArgs is set when an argument is not a fixed string or more
	// arguments are supplied at run time (xargs, find -exec {}).
	DynamicArgs bool
}

// Unknown is one place where the analysis cannot tell what runs.
type Unknown struct {
	Text   string // the word or script concerned, as written
	Reason string
}

func (u Unknown) String() string { return fmt.Sprintf("%s: %s", u.Reason, u.Text) }

// Redirection is one redirection or file-writing option.
type Redirection struct {
	Op   string // ">", ">>", "<", "<<", "<<<", ">&", "&>", "time -o", …
	Text string // as written
}

// Analyze parses command as the configured dialect and reports what it would
// run. A command that does not parse (or is too long, or holds a NUL byte)
// is an error wrapping ErrUnparsable, and callers must deny it.
func (an Analyzer) Analyze(command string) (Analysis, error) {
	if len(command) > MaxCommandBytes {
		return Analysis{}, fmt.Errorf("%w: command is %d bytes, limit %d", ErrUnparsable, len(command), MaxCommandBytes)
	}
	if strings.IndexByte(command, 0) >= 0 {
		return Analysis{}, fmt.Errorf("%w: command holds a NUL byte", ErrUnparsable)
	}
	w := &walker{an: &an, resolved: map[string]string{}}
	if an.Dialect == Cmd {
		w.cmdLine(command)
	} else {
		zsh := an.Dialect == Zsh
		f, err := parse(command, zsh)
		if err != nil {
			return Analysis{}, fmt.Errorf("%w: %v", ErrUnparsable, err)
		}
		fr := &frame{src: command, zsh: zsh}
		for _, st := range f.Stmts {
			w.visit(st, fr)
		}
	}
	w.finish()
	w.out.Env = maps.Clone(an.Env)
	return w.out, nil
}

func parse(src string, zsh bool) (*syntax.File, error) {
	lang := syntax.LangBash
	if zsh {
		lang = syntax.LangZsh
	}
	return syntax.NewParser(syntax.Variant(lang)).Parse(strings.NewReader(src), "")
}

// frame is one script being analysed: the top-level command line or a
// string handed to sh -c, eval, trap, awk's system(), …
type frame struct {
	src      string
	wrappers []string
	zsh      bool
	depth    int
}

// text returns the source of n as written.
func (fr *frame) text(n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(fr.src) || start > end {
		return ""
	}
	return fr.src[start:end]
}

// walker accumulates one Analysis.
type walker struct {
	an         *Analyzer
	out        Analysis
	resolved   map[string]string
	relative   []int // commands whose executable is a relative path
	dirChanged bool  // cd, pushd, env -C, … appear somewhere
}

func (w *walker) unknown(text, reason string) {
	w.out.Unknowable = append(w.out.Unknowable, Unknown{Text: text, Reason: reason})
}

func (w *walker) assign(name string) {
	if !slices.Contains(w.out.Assignments, name) {
		w.out.Assignments = append(w.out.Assignments, name)
	}
}

// finish applies what is only known once the whole line has been seen.
func (w *walker) finish() {
	if !w.dirChanged {
		return
	}
	for _, i := range w.relative {
		c := &w.out.Commands[i]
		c.Resolved = ""
		w.unknown(c.Executable, "relative executable after a change of directory")
	}
}

// visit walks a syntax tree, handing every simple command to call and
// noting substitutions, redirections, assignments and the expansions that
// evaluate data as code.
func (w *walker) visit(root syntax.Node, fr *frame) {
	syntax.Walk(root, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			if call, ok := n.Cmd.(*syntax.CallExpr); ok {
				w.call(call, n, fr)
				for _, r := range n.Redirs {
					w.visit(r, fr)
				}
				return false
			}
		case *syntax.CallExpr:
			w.call(n, nil, fr)
			return false
		case *syntax.CmdSubst:
			w.out.Substitutions = append(w.out.Substitutions, fr.text(n))
			for _, st := range n.Stmts {
				w.visit(st, fr)
			}
			return false
		case *syntax.ProcSubst:
			w.out.Substitutions = append(w.out.Substitutions, fr.text(n))
			for _, st := range n.Stmts {
				w.visit(st, fr)
			}
			return false
		case *syntax.Redirect:
			w.out.Redirections = append(w.out.Redirections, Redirection{Op: n.Op.String(), Text: fr.text(n)})
		case *syntax.Assign:
			if n.Name != nil {
				w.assign(n.Name.Value)
			}
			w.arith(n.Index, fr)
		case *syntax.DeclClause:
			w.decl(n, fr)
		case *syntax.WordIter:
			if n.Name != nil {
				w.assign(n.Name.Value)
			}
		case *syntax.TimeClause:
			if n.Stmt != nil {
				w.visit(n.Stmt, fr.wrap("time"))
			}
			return false
		case *syntax.CoprocClause:
			if n.Name != nil {
				w.visit(n.Name, fr)
			}
			if n.Stmt != nil {
				w.visit(n.Stmt, fr.wrap("coproc"))
			}
			return false
		case *syntax.ArithmExp:
			w.arith(n.X, fr)
		case *syntax.ArithmCmd:
			w.arith(n.X, fr)
		case *syntax.LetClause:
			for _, x := range n.Exprs {
				w.arith(x, fr)
			}
		case *syntax.CStyleLoop:
			w.arith(n.Init, fr)
			w.arith(n.Cond, fr)
			w.arith(n.Post, fr)
		case *syntax.ArrayElem:
			w.arith(n.Index, fr)
		case *syntax.ParamExp:
			w.param(n, fr)
		case *syntax.BinaryTest:
			switch n.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				for _, x := range []syntax.TestExpr{n.X, n.Y} {
					if wd, ok := x.(*syntax.Word); ok {
						w.arith(wd, fr)
					}
				}
			}
		case *syntax.UnaryTest:
			if n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar {
				// [[ -v name[subscript] ]] evaluates the subscript.
				if wd, ok := n.X.(*syntax.Word); ok {
					if a := fr.evalWord(wd); !a.lit || strings.Contains(a.val, "[") {
						w.unknown(a.text, "[[ -v ]] evaluates an array subscript, which can run commands")
					}
				}
			}
		case *syntax.Word:
			if fr.zsh {
				if a := fr.evalWord(n); !a.lit {
					w.unknown(a.text, "zsh expansions can run code")
				}
			}
		}
		return true
	})
}

// call analyses one simple command.
func (w *walker) call(call *syntax.CallExpr, st *syntax.Stmt, fr *frame) {
	for _, as := range call.Assigns {
		w.visit(as, fr)
	}
	for _, word := range call.Args {
		w.visit(word, fr)
	}
	if len(call.Args) == 0 {
		return
	}
	args := make([]arg, len(call.Args))
	for i, word := range call.Args {
		args[i] = fr.evalWord(word)
	}
	w.exec(invocation{args: args, wrappers: fr.wrappers, stdin: stdinScript(st, fr), fr: fr})
}

// wrap returns a frame whose commands are reached through wrapper.
func (fr *frame) wrap(wrapper string) *frame {
	n := *fr
	n.wrappers = append(slices.Clip(fr.wrappers), wrapper)
	return &n
}
