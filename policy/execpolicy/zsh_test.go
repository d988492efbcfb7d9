package execpolicy

import "testing"

func TestZshDialect(t *testing.T) {
	an := newFakeFS().analyzer()
	an.Dialect = Zsh
	for _, tc := range []struct {
		cmd     string
		unknown bool
	}{
		{`ls *(e:'rm x':)`, true}, // glob qualifier runs code
		{`=rm x`, true},           // =cmd expands to a path
		{`echo ${(e)x}`, true},    // parameter flags evaluate
		{`ls -l | head -n 2`, false},
		{`echo 'a;b'`, false},
	} {
		a, err := an.Analyze(tc.cmd)
		if err != nil {
			if tc.unknown {
				continue // refusing to parse is also a refusal
			}
			t.Fatalf("Analyze(%q): %v", tc.cmd, err)
		}
		if got := len(a.Unknowable) > 0; got != tc.unknown {
			t.Errorf("Analyze(%q) unknowable = %v, want %v", tc.cmd, a.Unknowable, tc.unknown)
		}
	}
}

func TestLineContinuation(t *testing.T) {
	a, err := newFakeFS().analyzer().Analyze("r\\\nm x; \"r\\\nm\" y")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range a.Commands {
		if c.Executable != "rm" || c.Resolved != "/usr/bin/rm" {
			t.Errorf("got %q (%q), want rm", c.Executable, c.Resolved)
		}
	}
	if len(a.Commands) != 2 {
		t.Errorf("got %d commands, want 2", len(a.Commands))
	}
}
