// Package security is the gateway's threat model as tests: each test
// starts the real binary (built once by harness.Main) on loopback with
// the fakes for the networks it needs, performs one attack the way an
// attacker would (a chat stranger, a write-scoped client, a
// prompt-injected model, a hostile page or host), and fails if the hole
// it names comes back. A test's doc comment says who attacks, what they
// try and what must happen instead.
package security

import (
	"testing"

	"github.com/openclaw-go/openclaw/e2e/harness"
)

func TestMain(m *testing.M) { harness.Main(m) }
