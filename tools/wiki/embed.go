package wiki

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
)

// Embedder turns texts into vectors, one per text, in order. Model names
// the model, so that vectors of another model are recomputed rather than
// compared.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	Model() string
}

// Embedding limits.
const (
	maxEmbedInput = 8000 // bytes of a page sent to the embedding model
	embedBatch    = 32   // texts per request
	maxEmbedCall  = 256  // pages (re-)embedded by one search
	maxEmbedReply = 64 << 20
)

// OpenAIEmbedder calls an OpenAI-compatible POST <BaseURL>/embeddings.
type OpenAIEmbedder struct {
	// BaseURL is the API root including its version, e.g.
	// "https://api.openai.com/v1".
	BaseURL string
	APIKey  string
	Name    string // the model, e.g. "text-embedding-3-small"
	// Headers are sent with every request (set before Authorization).
	Headers map[string]string
	Client  *http.Client
}

var _ Embedder = (*OpenAIEmbedder)(nil)

// Model implements Embedder.
func (e *OpenAIEmbedder) Model() string { return e.Name }

// Embed implements Embedder.
func (e *OpenAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	body, err := json.Marshal(map[string]any{"model": e.Name, "input": texts, "encoding_format": "float"})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(e.BaseURL, "/")+"/embeddings", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("embeddings request: %w", err)
	}
	for k, v := range e.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	if e.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+e.APIKey)
	}
	client := e.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("embeddings request: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxEmbedReply))
	if err != nil {
		return nil, fmt.Errorf("embeddings response: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		var eb struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal(raw, &eb)
		msg := eb.Error.Message
		if msg == "" {
			msg = clip(string(raw), 200)
		}
		return nil, fmt.Errorf("embeddings: HTTP %d: %s", resp.StatusCode, msg)
	}
	var out struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("embeddings response: %w", err)
	}
	vecs := make([][]float32, len(texts))
	for _, d := range out.Data {
		if d.Index < 0 || d.Index >= len(texts) || len(d.Embedding) == 0 {
			return nil, fmt.Errorf("embeddings response: bad item index %d", d.Index)
		}
		vecs[d.Index] = d.Embedding
	}
	for i, v := range vecs {
		if v == nil {
			return nil, fmt.Errorf("embeddings response: no vector for input %d", i)
		}
	}
	return vecs, nil
}

// embedText is what is embedded for a page.
func embedText(title, body string) string {
	return clip(title+"\n\n"+body, maxEmbedInput)
}

func textHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:16])
}

func encodeVec(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

func decodeVec(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

func cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / (math.Sqrt(na) * math.Sqrt(nb))
}

// semanticResult is wiki_semantic_search's answer. Mode is "embeddings",
// or "fulltext" with Note saying why embeddings were not used.
type semanticResult struct {
	Mode    string `json:"mode"`
	Model   string `json:"model,omitempty"`
	Note    string `json:"note,omitempty"`
	Results []Hit  `json:"results"`
}

// errNoEmbeddings is the reason for the full-text fallback with no model.
var errNoEmbeddings = errors.New("no embedding model is configured (memory.search.provider, model and remote.baseUrl), so pages were ranked by full-text search instead")

// Semantic ranks the agent's pages by cosine similarity to query. Pages
// whose text changed since their vector was computed (or that were
// embedded by another model) are embedded first, at most maxEmbedCall per
// call; Note says when some are still waiting.
func (s *Store) Semantic(ctx context.Context, e Embedder, agent, query string, archived bool, limit int) (semanticResult, error) {
	res := semanticResult{Mode: "embeddings", Model: e.Model(), Results: []Hit{}}
	// Only the head of each body is read: what is embedded is cut to
	// maxEmbedInput bytes anyway, and a full wiki would not fit in memory.
	rows, err := s.db.QueryContext(ctx, `SELECT p.slug, p.title, substr(p.body, 1, ?), p.archived, e.model, e.hash, e.vec
		FROM wiki_pages p LEFT JOIN wiki_embeddings e ON e.agent_id = p.agent_id AND e.slug = p.slug
		WHERE p.agent_id = ? AND (p.archived = 0 OR ? = 1)`, maxEmbedInput, agent, archived)
	if err != nil {
		return res, fmt.Errorf("semantic search: %w", err)
	}
	type cand struct {
		hit  Hit
		text string
		hash string
		vec  []float32
	}
	var cands []*cand
	var stale []*cand
	for rows.Next() {
		var c cand
		var body string
		var a int
		var model, hash sql0
		var vec []byte
		if err := rows.Scan(&c.hit.Slug, &c.hit.Title, &body, &a, &model, &hash, &vec); err != nil {
			rows.Close()
			return res, fmt.Errorf("semantic search: %w", err)
		}
		c.hit.Archived = a != 0
		c.text = embedText(c.hit.Title, body)
		c.hash = textHash(c.text)
		if model.s == e.Model() && hash.s == c.hash && len(vec) > 0 {
			c.vec = decodeVec(vec)
		} else {
			stale = append(stale, &c)
		}
		cands = append(cands, &c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return res, fmt.Errorf("semantic search: %w", err)
	}
	if len(stale) > maxEmbedCall {
		res.Note = fmt.Sprintf("%d pages are not embedded yet and were left out; search again to embed more", len(stale)-maxEmbedCall)
		stale = stale[:maxEmbedCall]
	}
	for i := 0; i < len(stale); i += embedBatch {
		batch := stale[i:min(i+embedBatch, len(stale))]
		texts := make([]string, len(batch))
		for j, c := range batch {
			texts[j] = c.text
		}
		vecs, err := e.Embed(ctx, texts)
		if err != nil {
			return res, err
		}
		for j, c := range batch {
			c.vec = vecs[j]
			if _, err := s.db.ExecContext(ctx, `INSERT INTO wiki_embeddings (agent_id, slug, model, hash, vec) VALUES (?, ?, ?, ?, ?)
				ON CONFLICT (agent_id, slug) DO UPDATE SET model = excluded.model, hash = excluded.hash, vec = excluded.vec`,
				agent, c.hit.Slug, e.Model(), c.hash, encodeVec(c.vec)); err != nil {
				return res, fmt.Errorf("store embedding of %q: %w", c.hit.Slug, err)
			}
		}
	}
	qv, err := e.Embed(ctx, []string{clip(query, maxEmbedInput)})
	if err != nil {
		return res, err
	}
	for _, c := range cands {
		if c.vec == nil {
			continue
		}
		c.hit.Score = math.Round(cosine(qv[0], c.vec)*1e4) / 1e4
		res.Results = append(res.Results, c.hit)
	}
	slices.SortStableFunc(res.Results, func(a, b Hit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return strings.Compare(a.Slug, b.Slug)
	})
	if len(res.Results) > limit {
		res.Results = res.Results[:limit]
	}
	return res, nil
}

// sql0 scans a nullable TEXT as "".
type sql0 struct{ s string }

func (n *sql0) Scan(v any) error {
	switch x := v.(type) {
	case nil:
		n.s = ""
	case string:
		n.s = x
	case []byte:
		n.s = string(x)
	default:
		return fmt.Errorf("unexpected %T", v)
	}
	return nil
}
