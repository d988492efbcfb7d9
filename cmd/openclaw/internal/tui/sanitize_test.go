package tui

import "testing"

func TestSanitize(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "hello\nworld", "hello\nworld"},
		{"unicode stays", "héllo ✓ 日本", "héllo ✓ 日本"},
		{"OSC 52 clipboard, BEL", "a\x1b]52;c;cHduZWQ=\x07b", "ab"},
		{"OSC title, ST", "a\x1b]0;title\x1b\\b", "ab"},
		{"OSC unterminated ends at the line", "a\x1b]0;title\nnext", "a\nnext"},
		{"CSI clear and home", "a\x1b[2J\x1b[Hb", "ab"},
		{"CSI cursor up with params", "a\x1b[10;3Ab", "ab"},
		{"CSI private mode", "a\x1b[?1049hb", "ab"},
		{"SGR is dropped too", "\x1b[31mred\x1b[0m", "red"},
		{"DCS", "a\x1bP+q544e\x1b\\b", "ab"},
		{"APC", "a\x1b_Gf=100;AAAA\x1b\\b", "ab"},
		{"two-byte escape", "a\x1bcb", "ab"},
		{"escape with intermediate", "a\x1b(Bb", "ab"},
		{"lone ESC at end", "a\x1b", "a"},
		{"8-bit CSI", "a\u009b2Jb", "ab"},
		{"8-bit OSC with 8-bit ST", "a\u009d0;t\u009cb", "ab"},
		{"other C1", "a\u0085b", "a\uFFFDb"},
		{"BEL shown", "a\x07b", "a^Gb"},
		{"backspace shown", "a\x08b", "a^Hb"},
		{"DEL shown", "a\x7fb", "a^?b"},
		{"carriage return dropped", "abc\rxyz", "abcxyz"},
		{"tab", "a\tb", "a    b"},
		{"bidi override", "a\u202eb", "a\uFFFDb"},
		{"invalid utf-8", "a\xffb", "a\uFFFDb"},
		{"CSI cut by a control", "a\x1b[1\x07b", "a^Gb"},
	}
	for _, tt := range tests {
		if got := Sanitize(tt.in); got != tt.want {
			t.Errorf("%s: Sanitize(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}
