package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/openclaw-go/openclaw/cmd/openclaw/internal/service"
	"github.com/openclaw-go/openclaw/gateway/admin"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/statelock"
)

func init() { registerCommand("gateway", newGatewayStatusCmd) }

// gatewayStatusReport is `gateway status --json`, in the shape of
// OpenClaw's (service, config, gateway, rpc) plus the state lock and the
// live process figures.
type gatewayStatusReport struct {
	Service *serviceSnapshot `json:"service"`
	Config  struct {
		CLI configFileState `json:"cli"`
	} `json:"config"`
	Gateway gatewayFigures `json:"gateway"`
	Lock    *lockState     `json:"lock"`
	RPC     *rpcProbe      `json:"rpc,omitempty"`
}

type configFileState struct {
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
	Valid  bool   `json:"valid"`
}

type gatewayFigures struct {
	Port     int            `json:"port"`
	ProbeURL string         `json:"probeUrl"`
	Running  bool           `json:"running"`
	PID      int            `json:"pid,omitempty"`
	Version  string         `json:"version,omitempty"`
	UptimeMs int64          `json:"uptimeMs,omitempty"`
	Memory   map[string]any `json:"memory,omitempty"`
	// Store is where the gateway keeps its state and its role there.
	Store *storeRole `json:"store,omitempty"`
}

// storeRole is the store part of the status answer: on PostgreSQL
// several gateways share the database and one is active.
type storeRole struct {
	Driver string `json:"driver"`
	Role   string `json:"role"`
	Epoch  int64  `json:"epoch,omitempty"`
	Active *struct {
		Holder       string `json:"holder"`
		Address      string `json:"address"`
		Epoch        int64  `json:"epoch"`
		RenewedAgoMs int64  `json:"renewedAgoMs"`
	} `json:"active,omitempty"`
}

type lockState struct {
	Path      string `json:"path"`
	Held      bool   `json:"held"`
	PID       int    `json:"pid,omitempty"`
	Port      int    `json:"port,omitempty"`
	CreatedAt string `json:"createdAt,omitempty"`
}

type rpcProbe struct {
	OK    bool   `json:"ok"`
	URL   string `json:"url"`
	Error string `json:"error,omitempty"`
}

// statusRPC is the part of the gateway's status answer this command reads.
type statusRPC struct {
	RuntimeVersion string `json:"runtimeVersion"`
	PID            int    `json:"pid"`
	ProcessMemory  struct {
		RSSBytes       int64 `json:"rssBytes"`
		HeapUsedBytes  int64 `json:"heapUsedBytes"`
		HeapTotalBytes int64 `json:"heapTotalBytes"`
	} `json:"processMemory"`
	Gateway struct {
		Version  string `json:"version"`
		PID      int    `json:"pid"`
		UptimeMs int64  `json:"uptimeMs"`
	} `json:"gateway"`
	Store *storeRole `json:"store"`
}

func newGatewayStatusCmd(a *app) *cobra.Command {
	var port int
	var noProbe, requireRPC, deep bool
	c := &cobra.Command{
		Use: "status", Short: "Show gateway service status + probe the running gateway", Args: cobra.NoArgs,
	}
	g := addGatewayFlags(c.Flags(), a)
	c.Flags().IntVar(&port, "port", 0, "local gateway `port` to probe")
	c.Flags().BoolVar(&noProbe, "no-probe", false, "skip the RPC probe (service and lock only)")
	c.Flags().BoolVar(&requireRPC, "require-rpc", false, "exit non-zero when the RPC probe fails")
	c.Flags().BoolVar(&deep, "deep", false, "accepted for compatibility: there are no system-level services to scan")
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if noProbe && requireRPC {
			return usageErrorf("--require-rpc and --no-probe exclude each other")
		}
		if port != 0 && g.url != "" {
			return usageErrorf("--port and --url exclude each other")
		}
		if port < 0 || port > 65535 {
			return usageErrorf("invalid --port %d", port)
		}
		a.dev = g.dev
		r, err := a.gatewayStatus(cmd.Context(), g, port, noProbe)
		if err != nil {
			return err
		}
		if g.json {
			if err := writeJSON(a.stdout, r); err != nil {
				return err
			}
		} else {
			a.printGatewayStatus(r)
		}
		if requireRPC && (r.RPC == nil || !r.RPC.OK) {
			return reported(errors.New("the gateway's RPC probe failed"))
		}
		return nil
	}
	return c
}

func (a *app) gatewayStatus(ctx context.Context, g *gatewayFlags, port int, noProbe bool) (*gatewayStatusReport, error) {
	paths, err := cliPaths(g.dev)
	if err != nil {
		return nil, err
	}
	r := &gatewayStatusReport{}
	r.Config.CLI.Path = paths.ConfigPath
	if _, err := os.Stat(paths.ConfigPath); err == nil {
		r.Config.CLI.Exists = true
		_, lerr := config.Load(paths.ConfigPath, config.LoadOptions{IncludeRoots: paths.IncludeRoots})
		r.Config.CLI.Valid = lerr == nil
	} else {
		r.Config.CLI.Valid = true // the gateway writes a default one
	}

	// The service, when this machine has a manager for it.
	if t, err := a.serviceTarget(); err == nil {
		st, serr := t.m.Status(ctx, a.lifecycleSpec(t, service.Gateway))
		r.Service = snapshot(st)
		if serr != nil {
			r.Service.State = "unknown: " + serr.Error()
		}
	} else {
		r.Service = &serviceSnapshot{Label: "no supported service manager detected", LoadedText: "enabled", NotLoadedText: "disabled"}
	}

	// The lock says which process holds the state and on which port.
	r.Lock = &lockState{Path: statelock.Path(paths.StateDir)}
	owner, held := statelock.Read(paths.StateDir)
	if held {
		r.Lock.Held, r.Lock.PID, r.Lock.Port, r.Lock.CreatedAt = true, owner.PID, owner.Port, owner.CreatedAt
		r.Gateway.Running, r.Gateway.PID = true, owner.PID
	}
	local, _ := localCredentials(g.dev)
	switch {
	case port != 0:
	case os.Getenv(envGatewayPort) != "":
		port, _ = strconv.Atoi(os.Getenv(envGatewayPort))
	case held && owner.Port != 0:
		// The running gateway's own port wins over a config edited since.
		port = owner.Port
	default:
		if port, err = gatewayPort(g.dev, local.Port); err != nil {
			return nil, err
		}
	}
	r.Gateway.Port = port
	r.Gateway.ProbeURL = "ws://127.0.0.1:" + strconv.Itoa(port)
	if g.url != "" {
		r.Gateway.ProbeURL = redactURL(g.url)
	}

	if !noProbe {
		r.RPC = &rpcProbe{URL: r.Gateway.ProbeURL}
		var out statusRPC
		err := withEnv(envGatewayPort, strconv.Itoa(port), g.url == "", func() error {
			return a.callOnce(ctx, g, "status", scopesFor("status"), map[string]any{"includeChannelSummary": false}, &out, false)
		})
		if err != nil {
			r.RPC.Error = describe(err).Message
		} else {
			r.RPC.OK = true
			r.Gateway.Running = true
			r.Gateway.Version = cmpStr(out.Gateway.Version, out.RuntimeVersion)
			r.Gateway.PID = cmpInt(out.Gateway.PID, out.PID)
			r.Gateway.UptimeMs = out.Gateway.UptimeMs
			r.Gateway.Store = out.Store
			m := map[string]any{}
			if out.ProcessMemory.RSSBytes > 0 {
				m["rssBytes"] = out.ProcessMemory.RSSBytes
			}
			if out.ProcessMemory.HeapUsedBytes > 0 {
				m["heapUsedBytes"] = out.ProcessMemory.HeapUsedBytes
				m["heapTotalBytes"] = out.ProcessMemory.HeapTotalBytes
			}
			r.Gateway.Memory = m
		}
	}
	// Without an answer, the figures the kernel has for the lock holder.
	if r.Gateway.PID > 0 && r.Gateway.Memory["rssBytes"] == nil {
		if rss, ok := admin.ResidentBytes(r.Gateway.PID); ok {
			if r.Gateway.Memory == nil {
				r.Gateway.Memory = map[string]any{}
			}
			r.Gateway.Memory["rssBytes"] = rss
		}
	}
	if r.Gateway.UptimeMs == 0 && held && owner.CreatedAt != "" {
		if at, err := time.Parse(time.RFC3339Nano, owner.CreatedAt); err == nil {
			r.Gateway.UptimeMs = time.Since(at).Milliseconds()
		}
	}
	return r, nil
}

func cmpInt(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// withEnv runs fn with name set to value (when set is true), restoring
// it after: the probe's target resolution reads the port from there.
func withEnv(name, value string, set bool, fn func() error) error {
	if !set {
		return fn()
	}
	old, had := os.LookupEnv(name)
	os.Setenv(name, value)
	defer func() {
		if had {
			os.Setenv(name, old)
		} else {
			os.Unsetenv(name)
		}
	}()
	return fn()
}

func (a *app) printGatewayStatus(r *gatewayStatusReport) {
	w := a.stdout
	s := r.Service
	if s.Manager != "" {
		fmt.Fprintf(w, "Service: %s %s (%s)\n", s.Manager, s.Label, installedWord(service.Status{Installed: s.Installed, Loaded: s.Loaded, Active: s.Active}))
		fmt.Fprintf(w, "File: %s\n", s.Path)
	} else {
		fmt.Fprintf(w, "Service: %s\n", s.Label)
	}
	cfg := "missing (defaults)"
	if r.Config.CLI.Exists {
		cfg = "valid"
		if !r.Config.CLI.Valid {
			cfg = "invalid (openclaw config validate)"
		}
	}
	fmt.Fprintf(w, "Config: %s (%s)\n", r.Config.CLI.Path, cfg)
	if r.Lock.Held {
		fmt.Fprintf(w, "Lock: held by pid %d, port %d, since %s\n", r.Lock.PID, r.Lock.Port, r.Lock.CreatedAt)
	} else {
		fmt.Fprintln(w, "Lock: free (no gateway runs on this state)")
	}
	gw := r.Gateway
	line := fmt.Sprintf("Gateway: %s", gw.ProbeURL)
	if gw.Running {
		line += fmt.Sprintf(", pid %d", gw.PID)
		if gw.Version != "" {
			line += ", version " + gw.Version
		}
		if gw.UptimeMs > 0 {
			line += ", up " + (time.Duration(gw.UptimeMs) * time.Millisecond).Round(time.Second).String()
		}
		if rss, ok := gw.Memory["rssBytes"].(int64); ok {
			line += fmt.Sprintf(", RSS %.1f MiB", float64(rss)/(1<<20))
		}
	} else {
		line += ", not running"
	}
	fmt.Fprintln(w, line)
	if st := gw.Store; st != nil {
		line := fmt.Sprintf("Store: %s, this gateway is %s", st.Driver, st.Role)
		if a := st.Active; a != nil && st.Role != "active" {
			line += "; active: " + a.Holder
			if a.Address != "" {
				line += " at " + a.Address
			}
			line += fmt.Sprintf(", renewed %s ago", (time.Duration(a.RenewedAgoMs) * time.Millisecond).Round(100*time.Millisecond))
		}
		if st.Role == "active" && st.Epoch > 0 {
			line += fmt.Sprintf(" (lease epoch %d)", st.Epoch)
		}
		fmt.Fprintln(w, line)
	}
	if r.RPC != nil {
		if r.RPC.OK {
			fmt.Fprintln(w, "RPC probe: ok")
		} else {
			fmt.Fprintf(w, "RPC probe: failed: %s\n", r.RPC.Error)
		}
	}
}
