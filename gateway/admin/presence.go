package admin

import (
	"fmt"
	"os"
	"runtime"
	"sort"

	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
)

// Presence lists the gateway itself and every connected client, as
// system-presence, hello-ok and the presence event carry it. Before
// Register it lists the gateway alone.
func (w *Wing) Presence() []protocol.PresenceEntry {
	host, _ := os.Hostname()
	self := protocol.PresenceEntry{
		Host: host, IP: w.listenHost(), Version: w.opts.Version, Platform: runtime.GOOS + " " + runtime.GOARCH,
		Mode: "gateway", Reason: "self", Ts: w.opts.Started.UnixMilli(),
	}
	self.Text = fmt.Sprintf("Gateway: %s (%s) · app %s · mode gateway · reason self", host, self.IP, w.opts.Version)
	if w.bus == nil {
		return []protocol.PresenceEntry{self}
	}
	self.InstanceID = w.bus.BootID()
	out := []protocol.PresenceEntry{self}
	conns := w.bus.Conns()
	sort.Slice(conns, func(i, j int) bool { return conns[i].ConnectedAt().Before(conns[j].ConnectedAt()) })
	for _, c := range conns {
		out = append(out, connPresence(c))
	}
	return out
}

func (w *Wing) listenHost() string {
	if w.opts.ListenHost == nil {
		return ""
	}
	return w.opts.ListenHost()
}

func connPresence(c *rpc.Conn) protocol.PresenceEntry {
	ci := c.Client()
	e := protocol.PresenceEntry{
		Host: ci.DisplayName, IP: c.RemoteIP().String(), Version: ci.Version, Platform: ci.Platform,
		DeviceFamily: ci.DeviceFamily, Mode: ci.Mode, Reason: "connect", InstanceID: ci.InstanceID,
		DeviceID: c.DeviceID(), Roles: []string{string(c.Role())}, Scopes: c.Scopes(), Ts: c.ConnectedAt().UnixMilli(),
	}
	if e.Host == "" {
		e.Host = ci.ID
	}
	e.Text = fmt.Sprintf("%s (%s) · %s %s · mode %s", e.Host, e.IP, ci.ID, ci.Version, ci.Mode)
	return e
}
