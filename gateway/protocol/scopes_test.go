package protocol

import "testing"

// TestConfigAndSecretMethodScopes pins who may read and change the
// config and secrets. Writes, secrets and the reserved prefixes
// (config., exec.approvals., wizard., update.) need operator.admin;
// reading the redacted config and its schema needs operator.read, as in
// OpenClaw's catalog, where the explicit entry wins over the reserved
// prefix: OpenClaw's CLI asks for operator.read alone when it calls
// config.get (gateway call, its status probe, the approvals commands),
// so an admin-only config.get would refuse it.
func TestConfigAndSecretMethodScopes(t *testing.T) {
	tests := []struct {
		method    string
		want      Scope
		inCatalog bool
	}{
		{"config.get", ScopeRead, true},
		{"config.schema", ScopeRead, true},
		{"config.schema.lookup", ScopeRead, true},
		{"config.set", ScopeAdmin, true},
		{"config.apply", ScopeAdmin, true},
		{"config.patch", ScopeAdmin, true},
		{"config.openFile", ScopeAdmin, true},
		{"config.someFutureMethod", ScopeAdmin, false},
		{"exec.approvals.get", ScopeAdmin, true},
		{"exec.approvals.someFutureMethod", ScopeAdmin, false},
		{"wizard.someFutureMethod", ScopeAdmin, false},
		{"update.someFutureMethod", ScopeAdmin, false},
		{"secrets.resolve", ScopeAdmin, true},
		{"secrets.store.list", ScopeAdmin, true},
		{"nobody.knows", ScopeAdmin, false},
	}
	for _, tt := range tests {
		got, known := MethodScope(tt.method)
		if got != tt.want || known != tt.inCatalog {
			t.Errorf("MethodScope(%q) = %s, %v; want %s, %v", tt.method, got, known, tt.want, tt.inCatalog)
		}
	}
	if Satisfies([]string{string(ScopeRead), string(ScopeWrite), string(ScopeApprovals), string(ScopePairing)}, ScopeAdmin) {
		t.Error("read, write, approvals and pairing together satisfy operator.admin")
	}
}
