package main

import (
	"strings"
	"testing"
)

// TestMatchResume: resume's rule for a query: an exact key wins, a
// unique match by key, display name or label attaches, several are
// listed and refused, none is refused with where to look.
func TestMatchResume(t *testing.T) {
	list := []resumeCandidate{
		{Key: "agent:main:main"},
		{Key: "agent:main:telegram:direct:42", DisplayName: "Ada Lovelace"},
		{Key: "agent:main:tui-1a2b3c4d", Label: "release notes"},
		{Key: "agent:ops:tui-9f8e7d6c", Label: "release checklist"},
	}
	tests := []struct {
		query, want, wantErr string
	}{
		{query: "agent:main:main", want: "agent:main:main"},
		{query: "ada", want: "agent:main:telegram:direct:42"},
		{query: "NOTES", want: "agent:main:tui-1a2b3c4d"},
		{query: "9f8e", want: "agent:ops:tui-9f8e7d6c"},
		{query: "release", wantErr: "matches 2 sessions"},
		{query: "zzz", wantErr: "no session of the last 7 days matches"},
	}
	for _, tc := range tests {
		got, err := matchResume(list, tc.query)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: %q, %v; want error %q", tc.query, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %q, %v; want %q", tc.query, got, err, tc.want)
		}
	}
}
