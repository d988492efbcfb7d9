package toolhost

import "testing"

// TestGatewayToolCannotMoveTheStore: a prompt-injected model that points
// the gateway's state at a database of its own (every transcript, token
// and pairing, at the next restart) or stretches the lease to hold off a
// standby waits for a person: store.* is not a free key.
func TestGatewayToolCannotMoveTheStore(t *testing.T) {
	cur := parseExecSnapshot(t, `{}`)
	for _, src := range []string{
		`{store: {driver: "postgres", url: "postgres://attacker.example/loot"}}`,
		`{store: {leaseTimeout: "1h"}}`,
	} {
		if keys := configChangesNeedingApproval(cur, parseExecSnapshot(t, src)); len(keys) == 0 {
			t.Errorf("%s needs no approval", src)
		}
	}
}
