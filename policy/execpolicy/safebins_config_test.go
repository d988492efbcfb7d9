package execpolicy

import "testing"

// TestConfiguredSafeBins: tools.exec.safeBins and safeBinProfiles as the
// config gives them, in allowlist mode with ask off (a miss is denied, so
// "allow" means the safe bin alone let the command run). The smuggling
// rows are the attack: an argument of a safe bin must never start a second
// command, read a file or reach an interpreter.
func TestConfiguredSafeBins(t *testing.T) {
	myfilter := BinProfile{MaxPositional: -1, ValueFlags: []string{"-n"}, DeniedFlags: []string{"-f", "--file"}}
	for _, tc := range []struct {
		name    string
		bins    []string
		profile map[string]BinProfile
		command string
		want    Outcome
	}{
		{"default bin runs", nil, nil, "head -n 3", Allow},
		{"configured list replaces the defaults", []string{"sort"}, nil, "head -n 3", Deny},
		{"configured bin with its built-in profile", []string{"sort"}, nil, "sort -n", Allow},
		{"custom profile: value flag", []string{"cat"}, map[string]BinProfile{"cat": myfilter}, "cat -n 2", Allow},
		{"custom profile: denied flag", []string{"cat"}, map[string]BinProfile{"cat": myfilter}, "cat -f x", Deny},
		{"custom profile: unknown flag", []string{"cat"}, map[string]BinProfile{"cat": myfilter}, "cat -v", Deny},
		{"custom profile: positional word", []string{"cat"}, map[string]BinProfile{"cat": myfilter}, "cat word", Allow},
		{"custom profile replaces the built-in one", []string{"head"}, map[string]BinProfile{"head": {MaxPositional: 0}}, "head -n 3", Deny},
		{"no profile: no arguments", []string{"cat"}, nil, "cat", Allow},
		{"no profile: an operand", []string{"cat"}, nil, "cat /etc/passwd", Deny},
		// Smuggling a second command or a file through a safe bin.
		{"chained command", nil, nil, "head -n 1; rm -rf /tmp/x", Deny},
		{"and-chained command", nil, nil, "head -n 1 && touch /tmp/pwned", Deny},
		{"piped into a shell", nil, nil, "head -n 1 | sh", Deny},
		{"substitution in a value", nil, nil, "head -n $(touch /tmp/pwned)", Deny},
		{"backticks in a value", nil, nil, "head -n `touch /tmp/pwned`", Deny},
		{"variable in a value", nil, nil, "head -n $N", Deny},
		{"redirection to a file", nil, nil, "head -n 1 > /tmp/out", Deny},
		{"redirection from a file", nil, nil, "head -n 1 < /etc/shadow", Deny},
		{"a newline is a second command", nil, nil, "head -n 1\ntouch /tmp/pwned", Deny},
		{"quoted separator stays one word", nil, nil, "head -n '1; touch /tmp/pwned'", Allow}, // head gets a bad count, nothing else runs
		{"path operand via custom profile", []string{"cat"}, map[string]BinProfile{"cat": myfilter}, "cat /etc/shadow", Deny},
		{"relative path operand", []string{"cat"}, map[string]BinProfile{"cat": myfilter}, "cat ../secret", Deny},
		{"home operand", []string{"cat"}, map[string]BinProfile{"cat": myfilter}, "cat ~/.ssh/id_ed25519", Deny},
		{"path after --", []string{"cat"}, map[string]BinProfile{"cat": myfilter}, "cat -- /etc/shadow", Deny},
		{"glob operand", []string{"cat"}, map[string]BinProfile{"cat": myfilter}, "cat *", Deny},
		{"awk is never safe", []string{"awk"}, map[string]BinProfile{"awk": {MaxPositional: -1}}, "awk 'BEGIN{system(\"id\")}'", Deny},
		{"sed is never safe", []string{"sed"}, map[string]BinProfile{"sed": {MaxPositional: -1}}, "sed e", Deny},
		{"jq is never safe", []string{"jq"}, nil, "jq", Deny},
		{"an interpreter with no profile takes nothing", []string{"python3"}, nil, "python3 -c 'import os'", Deny},
		{"a bin outside the trusted dirs", []string{"tool"}, nil, "tool", Deny},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bins := tc.bins
			if bins == nil {
				bins = DefaultSafeBins
			}
			p := Policy{Security: SecurityAllowlist, Ask: AskOff, SafeBins: bins, SafeBinProfiles: tc.profile}
			fs := newFakeFS()
			fs.path = append(fs.path, "/opt/tool/bin")
			d, _, _ := Evaluate(p, fs.analyzer(), tc.command)
			if d.Outcome != tc.want {
				t.Fatalf("%q: %s (%s), want %s", tc.command, d.Outcome, d.Reason, tc.want)
			}
		})
	}
}
