package toolhost

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/agents"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/wiki"
)

// wikiTools builds the wiki_* tools: model steps on the caller's agent's
// chain, embeddings from memory.search read at each call, so a reload
// applies at once.
func (h *Host) wikiTools() []tools.Tool {
	return wiki.Tools(wiki.Config{DB: h.opts.DB, Model: wikiModel{h.opts.Agents}, Embedder: h.wikiEmbedder})
}

// wikiModel gives the wiki's model steps one-shot calls.
type wikiModel struct{ a Agents }

func (m wikiModel) Complete(ctx context.Context, who tools.Who, system, prompt string) (string, error) {
	return m.a.CompleteOnce(ctx, agents.OneShot{AgentID: who.AgentID, System: system, Prompt: prompt})
}

// embedClient bounds one embeddings request.
var embedClient = &http.Client{Timeout: 60 * time.Second}

// wikiEmbedder is memory.search's embedding model, or nil when none is
// configured: a model id and an endpoint, its own (remote.baseUrl) or, for
// provider "openai", models.providers.openai's.
func (h *Host) wikiEmbedder(tools.Who) wiki.Embedder {
	cfg := h.cfg()
	ms := cfg.Memory.Search
	if ms.Enabled != nil && !*ms.Enabled || ms.Model == "" {
		return nil
	}
	base, key, headers := ms.Remote.BaseURL, ms.Remote.APIKey.Value, ms.Remote.Headers
	if base == "" && strings.EqualFold(ms.Provider, "openai") {
		if p, ok := cfg.Models.Providers["openai"]; ok {
			base, key, headers = p.BaseURL, p.APIKey.Value, p.Headers
		}
	}
	if base == "" {
		return nil
	}
	return &wiki.OpenAIEmbedder{BaseURL: base, APIKey: key, Name: ms.Model, Headers: headers, Client: embedClient}
}

// registerWiki serves the Control UI's read-only view of the agents'
// wikis: wiki.list, wiki.get and wiki.search (ours), at operator.read.
func (h *Host) registerWiki(srv *rpc.Server) {
	st := wiki.NewStore(h.opts.DB)
	read := func(method string, hd rpc.Handler) {
		srv.Handle(method, rpc.Route{Scope: protocol.ScopeRead, Handler: hd})
	}
	read("wiki.list", rpc.Typed(func(ctx context.Context, req *rpc.Request, p wikiParams) (any, error) {
		agent, err := h.wikiAgent(p.AgentID)
		if err != nil {
			return nil, err
		}
		limit := p.Limit
		if limit <= 0 || limit > 500 {
			limit = 100
		}
		pages, total, err := st.List(ctx, agent, p.IncludeArchived, limit, max(p.Offset, 0))
		if err != nil {
			return nil, err
		}
		return map[string]any{"agentId": agent, "pages": pages, "total": total}, nil
	}))
	read("wiki.get", rpc.Typed(func(ctx context.Context, req *rpc.Request, p wikiParams) (any, error) {
		agent, err := h.wikiAgent(p.AgentID)
		if err != nil {
			return nil, err
		}
		slug, err := wiki.Slug(p.Slug)
		if err != nil {
			return nil, protocol.InvalidParams(req.Method, err)
		}
		page, err := st.Get(ctx, agent, slug)
		if errors.Is(err, wiki.ErrNotFound) {
			return nil, protocol.Errorf(protocol.CodeInvalidRequest, "%v", err)
		}
		if err != nil {
			return nil, err
		}
		srcs, err := st.Sources(ctx, agent, slug)
		if err != nil {
			return nil, err
		}
		rel, err := st.Links(ctx, agent, slug)
		if err != nil {
			return nil, err
		}
		revs, err := st.Revisions(ctx, agent, slug)
		if err != nil {
			return nil, err
		}
		return map[string]any{"agentId": agent, "page": page, "sources": srcs, "linksTo": rel.LinksTo, "linkedBy": rel.LinkedBy, "revisions": revs}, nil
	}))
	read("wiki.search", rpc.Typed(func(ctx context.Context, req *rpc.Request, p wikiParams) (any, error) {
		agent, err := h.wikiAgent(p.AgentID)
		if err != nil {
			return nil, err
		}
		limit := p.Limit
		if limit <= 0 || limit > 50 {
			limit = 20
		}
		hits, err := st.SearchQuery(ctx, agent, p.Query, p.IncludeArchived, limit)
		if err != nil {
			return nil, err
		}
		return map[string]any{"agentId": agent, "results": hits}, nil
	}))
}

// wikiParams are the wiki.* methods' parameters.
type wikiParams struct {
	AgentID         string `json:"agentId"`
	Slug            string `json:"slug"`
	Query           string `json:"query"`
	IncludeArchived bool   `json:"includeArchived"`
	Limit           int    `json:"limit"`
	Offset          int    `json:"offset"`
}

// wikiAgent is the agent whose wiki a method reads: the one named (which
// must be configured) or the default agent.
func (h *Host) wikiAgent(id string) (string, error) {
	cfg := h.cfg()
	agent := strings.ToLower(strings.TrimSpace(id))
	if agent == "" {
		agent = cfg.DefaultAgentID()
	}
	if _, ok := cfg.Agent(agent); !ok {
		return "", protocol.Errorf(protocol.CodeInvalidRequest, "unknown agent %q", agent)
	}
	return agent, nil
}
