package e2e

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestModelsAndAgentsCLI runs the built binary against a started gateway:
// `models list --json` is the gateway's models.list (not the local
// fallback), `agents list --json` the configured agents, and an agent
// added with `agents add` reaches the running gateway through its config
// reload, with no restart.
func TestModelsAndAgentsCLI(t *testing.T) {
	needOurBin(t)
	needOurGateway(t)
	t.Parallel()
	g := startGateway(t, gatewayOpts{Config: `// e2e
{
  models: { providers: { lab: { baseUrl: "http://127.0.0.1:9/v1", models: [{ id: "tiny", contextWindow: 8000 }] } } },
  agents: {
    defaults: { model: "lab/tiny" },
    entries: { main: {}, ops: { model: "lab/tiny" } },
  },
}
`})
	c := ourClient(t, g)

	r := c.run(t, "models", "list", "--json")
	if r.Code != 0 {
		t.Fatalf("models list: %s", r)
	}
	if strings.Contains(r.Stderr, "showing the models configured") {
		t.Fatalf("models list fell back to the local config with a gateway running: %s", r)
	}
	var models struct {
		Count  int `json:"count"`
		Models []struct {
			Key           string `json:"key"`
			ContextWindow int    `json:"contextWindow"`
			Local         *bool  `json:"local"`
			Available     *bool  `json:"available"`
		} `json:"models"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &models); err != nil {
		t.Fatalf("models list --json: %v\n%s", err, r)
	}
	if models.Count != 1 || len(models.Models) != 1 || models.Models[0].Key != "lab/tiny" || models.Models[0].ContextWindow != 8000 ||
		models.Models[0].Available == nil || !*models.Models[0].Available {
		t.Errorf("models list --json = %s", r.Stdout)
	}

	r = c.run(t, "agents", "list", "--json")
	if r.Code != 0 {
		t.Fatalf("agents list: %s", r)
	}
	var agents []struct {
		ID        string `json:"id"`
		Workspace string `json:"workspace"`
		Model     string `json:"model"`
		IsDefault bool   `json:"isDefault"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &agents); err != nil {
		t.Fatalf("agents list --json: %v\n%s", err, r)
	}
	if len(agents) != 2 || agents[0].ID != "main" || !agents[0].IsDefault || agents[1].ID != "ops" ||
		agents[1].Workspace != filepath.Join(g.StateDir, "workspace-ops") || agents[1].Model != "lab/tiny" {
		t.Errorf("agents list --json = %s", r.Stdout)
	}

	ws := filepath.Join(g.Dir, "research-ws")
	r = c.run(t, "agents", "add", "research", "--workspace", ws, "--bind", "telegram:lab", "--json")
	if r.Code != 0 {
		t.Fatalf("agents add: %s", r)
	}
	// The gateway reloads the file itself; wait for its agents.list to
	// show the new agent.
	deadline := time.Now().Add(20 * time.Second)
	for {
		r = c.run(t, "gateway", "call", "agents.list", "--params", `{}`)
		var out struct {
			Agents []struct {
				ID        string `json:"id"`
				Workspace string `json:"workspace"`
			} `json:"agents"`
		}
		json.Unmarshal([]byte(r.Stdout), &out)
		if i := slices.IndexFunc(out.Agents, func(a struct {
			ID        string `json:"id"`
			Workspace string `json:"workspace"`
		}) bool {
			return a.ID == "research"
		}); i >= 0 {
			if out.Agents[i].Workspace != ws {
				t.Errorf("gateway has research's workspace %q, want %q", out.Agents[i].Workspace, ws)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the gateway never picked up the added agent: %s", r)
		}
		time.Sleep(200 * time.Millisecond)
	}

	// The attack: a workspace holding the state directory is refused.
	r = c.run(t, "agents", "add", "evil", "--workspace", filepath.Dir(g.StateDir))
	if r.Code == 0 || !strings.Contains(r.Stderr, "would hold the state directory") {
		t.Errorf("agents add with the state dir's parent as workspace: %s", r)
	}
}
