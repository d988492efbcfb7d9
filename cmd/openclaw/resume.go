package main

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

func init() { registerCommand("", newResumeCmd) }

// resumeCandidate is one recent session resume can attach to.
type resumeCandidate struct {
	Key         string `json:"key"`
	Label       string `json:"label"`
	DisplayName string `json:"displayName"`
}

// newResumeCmd is `openclaw resume [query]`: the TUI on an existing
// session. With no query the TUI opens on its picker of the last week's
// sessions; a query is an exact key, or else must match one recent
// session's key, display name or label and no other.
func newResumeCmd(a *app) *cobra.Command {
	var t *tuiFlags
	var handoff string
	c := &cobra.Command{
		Use:   "resume [query]",
		Short: "Resume a recent Gateway session in the TUI",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if handoff != "" {
				return usageErrorf("--handoff: the Control UI here has no handoff payload; pass the session key as the query")
			}
			if len(args) == 0 {
				t.pickSession = true
				return a.runTUI(cmd.Context(), t)
			}
			key, err := a.resolveResume(cmd, t.g, args[0])
			if err != nil {
				return err
			}
			t.session = key
			return a.runTUI(cmd.Context(), t)
		},
	}
	f := c.Flags()
	t = &tuiFlags{g: addGatewayFlags(f, a), historyLimit: 200}
	f.StringVar(&handoff, "handoff", "", "session key and gateway URL copied from the Control UI")
	return c
}

// resolveResume finds the one recent session query names.
func (a *app) resolveResume(cmd *cobra.Command, g *gatewayFlags, query string) (string, error) {
	query = strings.TrimSpace(query)
	if strings.HasPrefix(query, "agent:") && strings.Count(query, ":") >= 2 {
		return query, nil // a full key attaches as it is, recent or not
	}
	var res struct {
		Sessions []resumeCandidate `json:"sessions"`
	}
	params := map[string]any{"limit": 50, "activeMinutes": 7 * 24 * 60}
	if err := a.callOnce(cmd.Context(), g, "sessions.list", scopesFor("sessions.list"), params, &res, false); err != nil {
		return "", err
	}
	return matchResume(res.Sessions, query)
}

// matchResume applies resume's rule: an exact key wins, otherwise one
// session whose key, display name or label contains query (any case).
func matchResume(list []resumeCandidate, query string) (string, error) {
	q := strings.ToLower(query)
	var hits []resumeCandidate
	for _, s := range list {
		if s.Key == query {
			return s.Key, nil
		}
		if strings.HasSuffix(s.Key, ":global") && strings.Count(s.Key, ":") < 2 {
			continue // a bare global row names no agent
		}
		for _, field := range []string{s.Key, s.DisplayName, s.Label} {
			if field != "" && strings.Contains(strings.ToLower(field), q) {
				hits = append(hits, s)
				break
			}
		}
	}
	switch len(hits) {
	case 1:
		return hits[0].Key, nil
	case 0:
		return "", fmt.Errorf("no session of the last 7 days matches %q; run `openclaw resume` for the picker or `openclaw sessions` to list them", query)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%q matches %d sessions; give more of the key:", query, len(hits))
	for _, h := range hits {
		fmt.Fprintf(&b, "\n  %s", h.Key)
		if name := cmp.Or(h.Label, h.DisplayName); name != "" {
			fmt.Fprintf(&b, "  (%s)", name)
		}
	}
	return "", fmt.Errorf("%s", b.String())
}
