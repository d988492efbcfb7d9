package rpc

import (
	"runtime"
	"sort"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// modulePath prefixes every package of ours; owners are named without it.
const modulePath = "github.com/openclaw-go/openclaw/"

// callerPackage names the package that registered a method: the first
// caller outside this package. Taken from the stack, the owner in the
// method table cannot drift from where the registration really is.
func callerPackage() string {
	pcs := make([]uintptr, 16)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		pkg := funcPackage(f.Function)
		if pkg != "" && pkg != modulePath+"gateway/rpc" {
			return strings.TrimPrefix(pkg, modulePath)
		}
		if !more {
			return ""
		}
	}
}

// funcPackage is the package path of a fully qualified function name
// such as "example.com/a/b.(*T).M" or "example.com/a/b.F.func1".
func funcPackage(fn string) string {
	slash := strings.LastIndex(fn, "/")
	dot := strings.Index(fn[slash+1:], ".")
	if dot < 0 {
		return ""
	}
	return fn[:slash+1+dot]
}

// MethodEntry is one row of the method table.
type MethodEntry struct {
	Method string
	Owner  string // the registering package, without the module path
	Scope  protocol.Scope
	Hidden bool
}

// Table lists every registered method with its owner and scope, sorted
// by method, hidden ones included.
func (s *Server) Table() []MethodEntry {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]MethodEntry, 0, len(s.routes))
	for m, rt := range s.routes {
		out = append(out, MethodEntry{Method: m, Owner: rt.Owner, Scope: rt.Scope, Hidden: rt.Hidden})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Method < out[j].Method })
	return out
}
