package execpolicy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// stdinScript returns the text a here-document or here-string feeds to the
// statement's standard input, if it is a fixed string; a shell reading its
// commands from there can then be analysed.
func stdinScript(st *syntax.Stmt, fr *frame) *string {
	if st == nil {
		return nil
	}
	var script *string
	for _, r := range st.Redirs {
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			script = heredocBody(r, fr)
		case syntax.WordHdoc:
			script = nil
			if a := fr.evalWord(r.Word); a.lit {
				s := a.val + "\n"
				script = &s
			}
		case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn:
			script = nil
		}
	}
	return script
}

func heredocBody(r *syntax.Redirect, fr *frame) *string {
	var body string
	if r.Hdoc != nil {
		quoted := false
		for _, p := range r.Word.Parts {
			if l, ok := p.(*syntax.Lit); !ok || strings.Contains(l.Value, `\`) {
				quoted = true
			}
		}
		var b strings.Builder
		for _, p := range r.Hdoc.Parts {
			l, ok := p.(*syntax.Lit)
			if !ok {
				return nil // an expansion feeds the shell: unknowable
			}
			b.WriteString(l.Value)
		}
		body = b.String()
		if !quoted {
			body = unescapeHeredoc(body)
		}
	}
	return &body
}

// decl records the names a declare/export/local/readonly/typeset sets.
func (w *walker) decl(d *syntax.DeclClause, fr *frame) {
	for _, as := range d.Args {
		if as.Name != nil || as.Value == nil {
			continue // named assignments are recorded when visited
		}
		a := fr.evalWord(as.Value)
		if !a.lit {
			w.unknown(a.text, d.Variant.Value+" with a computed name can set any variable")
			continue
		}
		if !strings.HasPrefix(a.val, "-") && !strings.HasPrefix(a.val, "+") {
			name, _, _ := strings.Cut(a.val, "=")
			w.assign(name)
		}
	}
}

// arith flags arithmetic that reads anything but constants: Bash evaluates
// the value of a variable used in arithmetic as an expression in turn, and
// an array subscript in that value runs command substitutions, so
// $(( $1 )) with $1 = 'a[$(id)]' runs id.
func (w *walker) arith(x syntax.ArithmExpr, fr *frame) {
	if x == nil {
		return
	}
	syntax.Walk(x, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return false
		case *syntax.Word:
			if a := fr.evalWord(n); !a.lit || !isNumber(a.val) {
				w.unknown(a.text, "arithmetic on a value that is not a constant can run commands through array subscripts")
			}
			return false
		}
		return true
	})
}

// param flags parameter expansions that evaluate data as code and records
// the ones that assign.
func (w *walker) param(p *syntax.ParamExp, fr *frame) {
	switch {
	case p.Excl && p.Names == 0 && p.Index == nil:
		w.unknown(fr.text(p), "indirect expansion evaluates a variable's value as a name, which can run commands through array subscripts")
	case p.Exp != nil && p.Exp.Op == syntax.OtherParamOps:
		if p.Exp.Word == nil || p.Exp.Word.Lit() == "" || strings.Contains(p.Exp.Word.Lit(), "P") {
			w.unknown(fr.text(p), "prompt expansion ${x@P} runs command substitutions found in the value")
		}
	case p.Exp != nil && (p.Exp.Op == syntax.AssignUnset || p.Exp.Op == syntax.AssignUnsetOrNull):
		if p.Param != nil {
			w.assign(p.Param.Value)
		}
	}
	w.arith(p.Index, fr)
	if p.Slice != nil {
		w.arith(p.Slice.Offset, fr)
		w.arith(p.Slice.Length, fr)
	}
}
