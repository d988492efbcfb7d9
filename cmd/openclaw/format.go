package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// The formatters below turn method results into the friendly text output.
// They only decode and print; fields a gateway leaves out are skipped, so
// they work with this gateway and with the real one.

// formatHealth prints a health snapshot.
func formatHealth(w io.Writer, raw json.RawMessage) error {
	var h struct {
		OK             *bool  `json:"ok"`
		DurationMs     *int64 `json:"durationMs"`
		DefaultAgentID string `json:"defaultAgentId"`
		Agents         []struct {
			AgentID   string `json:"agentId"`
			Name      string `json:"name"`
			IsDefault bool   `json:"isDefault"`
			Heartbeat *struct {
				Enabled bool   `json:"enabled"`
				Every   string `json:"every"`
			} `json:"heartbeat"`
			Sessions *struct {
				Count int `json:"count"`
			} `json:"sessions"`
		} `json:"agents"`
		Sessions *struct {
			Count int `json:"count"`
		} `json:"sessions"`
		Channels      map[string]json.RawMessage `json:"channels"`
		ChannelOrder  []string                   `json:"channelOrder"`
		ChannelLabels map[string]string          `json:"channelLabels"`
		Plugins       *struct {
			Loaded []string          `json:"loaded"`
			Errors []json.RawMessage `json:"errors"`
		} `json:"plugins"`
		ConfigReload *struct {
			HotReloadStatus string `json:"hotReloadStatus"`
			Mode            string `json:"mode"`
			LastFailure     *struct {
				At    int64  `json:"at"`
				Error string `json:"error"`
			} `json:"lastFailure"`
		} `json:"configReload"`
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		return fmt.Errorf("decode health: %w", err)
	}
	state := "unknown"
	if h.OK != nil {
		state = map[bool]string{true: "ok", false: "degraded"}[*h.OK]
	}
	if h.DurationMs != nil {
		state += fmt.Sprintf(" (%d ms)", *h.DurationMs)
	}
	fmt.Fprintf(w, "Gateway health: %s\n", state)
	if len(h.Agents) > 0 {
		fmt.Fprintln(w, "Agents:")
		for _, ag := range h.Agents {
			var notes []string
			if ag.IsDefault {
				notes = append(notes, "default")
			}
			if hb := ag.Heartbeat; hb != nil {
				if hb.Enabled {
					notes = append(notes, "heartbeat every "+hb.Every)
				} else {
					notes = append(notes, "heartbeat off")
				}
			}
			if ag.Sessions != nil {
				notes = append(notes, plural(ag.Sessions.Count, "session"))
			}
			name := ag.AgentID
			if ag.Name != "" && ag.Name != ag.AgentID {
				name += " (" + ag.Name + ")"
			}
			fmt.Fprintf(w, "  %s: %s\n", name, strings.Join(notes, ", "))
		}
	}
	if h.Sessions != nil {
		fmt.Fprintf(w, "Sessions: %d\n", h.Sessions.Count)
	}
	order := h.ChannelOrder
	if len(order) == 0 {
		order = sortedKeys(h.Channels)
	}
	switch {
	case h.Channels == nil && h.ChannelOrder == nil:
		// Not reported.
	case len(order) == 0:
		fmt.Fprintln(w, "Channels: none configured")
	default:
		labels := make([]string, len(order))
		for i, id := range order {
			labels[i] = cmp.Or(h.ChannelLabels[id], id)
		}
		fmt.Fprintf(w, "Channels: %s\n", strings.Join(labels, ", "))
	}
	if p := h.Plugins; p != nil {
		fmt.Fprintf(w, "Plugins: %d loaded, %s\n", len(p.Loaded), plural(len(p.Errors), "error"))
	}
	if r := h.ConfigReload; r != nil && r.HotReloadStatus != "" {
		state := r.HotReloadStatus
		if r.Mode == "off" {
			state = "off (gateway.reload.mode); edits apply after a restart"
		}
		if f := r.LastFailure; f != nil {
			state = fmt.Sprintf("%s; the last edit was not applied (%s): %s. The gateway runs the config it had before",
				state, time.UnixMilli(f.At).UTC().Format(time.RFC3339), f.Error)
		}
		fmt.Fprintf(w, "Config reload: %s\n", state)
	}
	return nil
}

// statusGateway is this gateway's own part of status (the real gateway
// sends none).
type statusGateway struct {
	Version     string `json:"version"`
	Pid         int    `json:"pid"`
	UptimeMs    int64  `json:"uptimeMs"`
	AuthMode    string `json:"authMode"`
	Connections *int   `json:"connections"`
	Runtime     string `json:"runtime"`
}

// formatStatus prints a status summary as aligned "label: value" lines.
// It reads the real gateway's fields (runtimeVersion, pid, processMemory,
// sessions, tasks, channelSummary, cliProjection) and this gateway's own
// (the gateway object); url is the address the CLI reached it by.
func formatStatus(w io.Writer, raw json.RawMessage, url string) error {
	type agentRow struct {
		AgentID   string `json:"agentId"`
		IsDefault bool   `json:"isDefault"`
	}
	var s struct {
		RuntimeVersion string         `json:"runtimeVersion"`
		Pid            int            `json:"pid"`
		Gateway        *statusGateway `json:"gateway"`
		ProcessMemory  *struct {
			RSSBytes      int64 `json:"rssBytes"`
			HeapUsedBytes int64 `json:"heapUsedBytes"`
		} `json:"processMemory"`
		ConfigPath    string `json:"configPath"`
		StateDir      string `json:"stateDir"`
		LogFile       string `json:"logFile"`
		CLIProjection *struct {
			Agents *struct {
				DefaultID string `json:"defaultId"`
				Rows      []struct {
					ID string `json:"id"`
				} `json:"rows"`
			} `json:"agents"`
		} `json:"cliProjection"`
		Heartbeat *struct {
			DefaultAgentID string `json:"defaultAgentId"`
			Agents         []struct {
				AgentID string `json:"agentId"`
				Enabled bool   `json:"enabled"`
				Every   string `json:"every"`
			} `json:"agents"`
		} `json:"heartbeat"`
		Sessions *struct {
			Count    int `json:"count"`
			Defaults *struct {
				Model *string `json:"model"`
			} `json:"defaults"`
			ByAgent []struct {
				AgentID string `json:"agentId"`
				Count   int    `json:"count"`
			} `json:"byAgent"`
		} `json:"sessions"`
		Tasks *struct {
			Total  int `json:"total"`
			Active int `json:"active"`
		} `json:"tasks"`
		ChannelSummary []string `json:"channelSummary"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Errorf("decode status: %w", err)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	line := func(label, value string) {
		if value != "" {
			fmt.Fprintf(tw, "%s:\t%s\n", label, value)
		}
	}
	g := s.Gateway
	if g == nil {
		g = &statusGateway{}
	}
	gw := url
	if g.AuthMode != "" {
		gw = strings.TrimSpace(gw + " (auth " + g.AuthMode + ")")
	}
	line("Gateway", gw)
	if g.Connections != nil {
		line("Connections", fmt.Sprint(*g.Connections))
	}
	line("Version", cmp.Or(s.RuntimeVersion, g.Version))
	var proc []string
	if pid := max(s.Pid, g.Pid); pid != 0 {
		proc = append(proc, fmt.Sprintf("pid %d", pid))
	}
	if g.UptimeMs > 0 {
		proc = append(proc, "up "+(time.Duration(g.UptimeMs)*time.Millisecond).Truncate(time.Second).String())
	}
	if m := s.ProcessMemory; m != nil && m.RSSBytes > 0 {
		proc = append(proc, fmt.Sprintf("rss %d MiB", m.RSSBytes>>20))
	}
	if m := s.ProcessMemory; m != nil && m.HeapUsedBytes > 0 {
		proc = append(proc, fmt.Sprintf("heap %d MiB", m.HeapUsedBytes>>20))
	}
	line("Process", strings.Join(proc, ", "))
	line("Runtime", g.Runtime)
	line("Config", s.ConfigPath)
	line("State dir", s.StateDir)
	line("Log file", s.LogFile)
	var agents []agentRow
	if p := s.CLIProjection; p != nil && p.Agents != nil {
		for _, r := range p.Agents.Rows {
			agents = append(agents, agentRow{AgentID: r.ID, IsDefault: r.ID == p.Agents.DefaultID})
		}
	}
	if len(agents) > 0 {
		names := make([]string, len(agents))
		for i, ag := range agents {
			names[i] = ag.AgentID
			if ag.IsDefault {
				names[i] += " (default)"
			}
		}
		line("Agents", strings.Join(names, ", "))
	}
	if hb := s.Heartbeat; hb != nil {
		var on []string
		for _, ag := range hb.Agents {
			if ag.Enabled {
				on = append(on, ag.AgentID+" every "+ag.Every)
			}
		}
		line("Heartbeat", cmp.Or(strings.Join(on, ", "), "off"))
	}
	if ss := s.Sessions; ss != nil {
		v := plural(ss.Count, "session")
		var per []string
		for _, ag := range ss.ByAgent {
			per = append(per, fmt.Sprintf("%s %d", ag.AgentID, ag.Count))
		}
		if len(ss.ByAgent) > 1 {
			v += " (" + strings.Join(per, ", ") + ")"
		}
		line("Sessions", v)
		if d := ss.Defaults; d != nil && d.Model != nil {
			line("Default model", *d.Model)
		}
	}
	if t := s.Tasks; t != nil {
		line("Tasks", fmt.Sprintf("%d active, %d total", t.Active, t.Total))
	}
	if s.ChannelSummary != nil {
		// The summary is lines: one per channel, then its accounts
		// indented beneath it.
		var channels []string
		for _, l := range s.ChannelSummary {
			if !strings.HasPrefix(l, " ") {
				channels = append(channels, l)
			}
		}
		line("Channels", cmp.Or(strings.Join(channels, "; "), "none configured"))
	}
	return tw.Flush()
}

// formatPresence prints the presence list as a table.
func formatPresence(w io.Writer, raw json.RawMessage) error {
	var entries []struct {
		Host, IP, Version, Platform, Mode, Reason, DeviceID string
		Roles                                               []string
	}
	if err := json.Unmarshal(raw, &entries); err != nil {
		return fmt.Errorf("decode presence: %w", err)
	}
	if len(entries) == 0 {
		fmt.Fprintln(w, "No clients present.")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tIP\tMODE\tVERSION\tPLATFORM\tREASON")
	for _, e := range entries {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", orDash(e.Host), orDash(e.IP), orDash(e.Mode),
			orDash(e.Version), orDash(e.Platform), orDash(e.Reason))
	}
	return tw.Flush()
}

// formatDevices prints device.pair.list: pending requests, then paired
// devices. Token values never appear in the result.
func formatDevices(w io.Writer, raw json.RawMessage) error {
	var l struct {
		Pending []struct {
			RequestID, DeviceID, DisplayName, ClientID, Role, RemoteIP string
			Scopes                                                     []string
			IsRepair                                                   bool
		}
		Paired []struct {
			DeviceID, DisplayName, ClientID, Platform string
			Roles, Scopes                             []string
			Connected                                 bool
		}
	}
	if err := json.Unmarshal(raw, &l); err != nil {
		return fmt.Errorf("decode device list: %w", err)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "Pending requests: %d\n", len(l.Pending))
	if len(l.Pending) > 0 {
		fmt.Fprintln(tw, "REQUEST\tDEVICE\tNAME\tCLIENT\tROLE\tSCOPES\tIP")
		for _, p := range l.Pending {
			role := p.Role
			if p.IsRepair {
				role += " (upgrade)"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p.RequestID, p.DeviceID, orDash(p.DisplayName),
				orDash(p.ClientID), orDash(role), orDash(strings.Join(p.Scopes, ",")), orDash(p.RemoteIP))
		}
	}
	fmt.Fprintf(tw, "\nPaired devices: %d\n", len(l.Paired))
	if len(l.Paired) > 0 {
		fmt.Fprintln(tw, "DEVICE\tNAME\tCLIENT\tPLATFORM\tROLES\tSCOPES\tCONNECTED")
		for _, d := range l.Paired {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", d.DeviceID, orDash(d.DisplayName), orDash(d.ClientID),
				orDash(d.Platform), orDash(strings.Join(d.Roles, ",")), orDash(strings.Join(d.Scopes, ",")),
				map[bool]string{true: "yes", false: "no"}[d.Connected])
		}
	}
	return tw.Flush()
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func parens(s string) string {
	if s == "" {
		return ""
	}
	return "(" + s + ")"
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
