package config

import "testing"

func TestCommandsIsOwner(t *testing.T) {
	c := Commands{OwnerAllowFrom: []string{"telegram:123", " Slack:U42 ", "*", "999"}}
	tests := []struct {
		name            string
		channel, sender string
		want            bool
	}{
		{"listed", "telegram", "123", true},
		{"channel in any case, spaces trimmed", "slack", "U42", true},
		{"id is exact", "slack", "u42", false},
		{"another channel's id", "discord", "123", false},
		{"a star matches nobody", "telegram", "*", false},
		{"a bare id matches nobody", "telegram", "999", false},
		{"no channel", "", "123", false},
		{"no sender", "telegram", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := c.IsOwner(tc.channel, tc.sender); got != tc.want {
				t.Errorf("IsOwner(%q, %q) = %v, want %v", tc.channel, tc.sender, got, tc.want)
			}
		})
	}
}
