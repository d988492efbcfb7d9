package channels

import "testing"

func TestLinkScheme(t *testing.T) {
	tests := []struct {
		name, href, want string
		ok               bool
	}{
		{"https", "https://example.com", "https", true},
		{"upper case", "HTTPS://example.com", "https", true},
		{"plus and dot", "git+ssh.x://h", "git+ssh.x", true},
		{"no scheme", "example.com/a", "", false},
		{"empty scheme", ":x", "", false},
		{"digit first", "1http://x", "", false},
		{"space in scheme", "java script:x", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := LinkScheme(tt.href)
			if got != tt.want || ok != tt.ok {
				t.Errorf("LinkScheme(%q) = %q, %v; want %q, %v", tt.href, got, ok, tt.want, tt.ok)
			}
		})
	}
}
