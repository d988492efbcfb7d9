package protocol

import "strings"

// Role is what a connection is: an operator client or a node host.
type Role string

const (
	RoleOperator Role = "operator"
	RoleNode     Role = "node"
)

// Scope is an operator permission. ScopeNode and ScopeDynamic are not
// grantable; they mark node-only methods and methods whose handler decides.
type Scope string

const (
	ScopeAdmin         Scope = "operator.admin"
	ScopeRead          Scope = "operator.read"
	ScopeWrite         Scope = "operator.write"
	ScopeApprovals     Scope = "operator.approvals"
	ScopePairing       Scope = "operator.pairing"
	ScopeQuestions     Scope = "operator.questions"
	ScopeTalk          Scope = "operator.talk"
	ScopeTalkSecrets   Scope = "operator.talk.secrets"
	ScopeSessionsRead  Scope = "operator.sessions.read"
	ScopeSessionsWrite Scope = "operator.sessions.write"

	ScopeNode    Scope = "node"
	ScopeDynamic Scope = "dynamic"
	// ScopeNone marks a method any authenticated connection may call.
	ScopeNone Scope = ""
)

// OperatorScopes is the closed set of grantable operator scopes.
var OperatorScopes = []Scope{
	ScopeAdmin, ScopeRead, ScopeWrite, ScopeApprovals, ScopePairing, ScopeQuestions,
	ScopeTalk, ScopeTalkSecrets, ScopeSessionsRead, ScopeSessionsWrite,
}

// IsOperatorScope reports whether s names a grantable operator scope.
func IsOperatorScope(s string) bool {
	for _, o := range OperatorScopes {
		if string(o) == s {
			return true
		}
	}
	return false
}

// Satisfies reports whether holding granted is enough for a method that
// requires need: admin covers everything; write covers read, talk and the
// session scopes; read or sessions.write cover sessions.read.
func Satisfies(granted []string, need Scope) bool {
	if need == ScopeNone {
		return true
	}
	for _, g := range granted {
		switch Scope(g) {
		case need, ScopeAdmin:
			return true
		case ScopeWrite:
			if need == ScopeRead || need == ScopeTalk || need == ScopeSessionsRead || need == ScopeSessionsWrite {
				return true
			}
		case ScopeRead, ScopeSessionsWrite:
			if need == ScopeSessionsRead {
				return true
			}
		}
	}
	return false
}

// SubsetOf reports whether every scope in want is satisfied by have. It is
// how token rotation and pairing refuse to widen a grant.
func SubsetOf(want, have []string) bool {
	for _, w := range want {
		if !Satisfies(have, Scope(w)) {
			return false
		}
	}
	return true
}

// reservedAdminPrefixes always need operator.admin, whoever registers them.
var reservedAdminPrefixes = []string{"config.", "exec.approvals.", "wizard.", "update."}

// MethodScope returns the scope a method requires by the catalog, and
// whether the catalog knows it. Reserved prefixes are admin-only except the
// catalog's read-only config methods.
func MethodScope(method string) (Scope, bool) {
	s, ok := catalogScopes[method]
	if ok {
		return s, true
	}
	for _, p := range reservedAdminPrefixes {
		if strings.HasPrefix(method, p) {
			return ScopeAdmin, false
		}
	}
	return ScopeAdmin, false
}

// NormalizeScopes drops duplicates and anything that is not an operator
// scope, keeping the client's order.
func NormalizeScopes(in []string) []string {
	out := make([]string, 0, len(in))
	seen := make(map[string]bool, len(in))
	for _, s := range in {
		if !IsOperatorScope(s) || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}
