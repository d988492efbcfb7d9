package automation

import (
	"cmp"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/cron"
)

// hookContext is what a mapping's templates read.
type hookContext struct {
	payload map[string]any
	headers map[string]any
	query   map[string]any
	path    string
	now     time.Time
}

func newHookContext(r *http.Request, sub string, payload map[string]any) hookContext {
	c := hookContext{payload: payload, headers: map[string]any{}, query: map[string]any{}, path: sub, now: time.Now()}
	for k, v := range r.Header {
		if len(v) > 0 {
			c.headers[strings.ToLower(k)] = v[0]
		}
	}
	for k, v := range r.URL.Query() {
		if len(v) > 0 {
			c.query[k] = v[0]
		}
	}
	return c
}

// render fills a template's {{...}} placeholders: {{payload.a.b}} or
// {{a.b}} (the payload), {{messages[0].subject}}, {{headers.x-name}},
// {{query.name}}, {{path}}, {{now}}. A missing or null value renders as
// "", an object or array as JSON.
func (c hookContext) render(tpl string) string {
	if !strings.Contains(tpl, "{{") {
		return tpl
	}
	var b strings.Builder
	for {
		i := strings.Index(tpl, "{{")
		if i < 0 {
			b.WriteString(tpl)
			break
		}
		j := strings.Index(tpl[i+2:], "}}")
		if j < 0 {
			b.WriteString(tpl)
			break
		}
		b.WriteString(tpl[:i])
		b.WriteString(c.lookup(strings.TrimSpace(tpl[i+2 : i+2+j])))
		tpl = tpl[i+2+j+2:]
	}
	return b.String()
}

func (c hookContext) lookup(expr string) string {
	switch expr {
	case "path":
		return c.path
	case "now":
		return c.now.UTC().Format(time.RFC3339Nano)
	}
	segs := splitTemplatePath(expr)
	if len(segs) == 0 {
		return ""
	}
	var cur any = c.payload
	switch segs[0] {
	case "payload":
		segs = segs[1:]
	case "headers":
		cur, segs = c.headers, segs[1:]
	case "query":
		cur, segs = c.query, segs[1:]
	}
	for _, s := range segs {
		switch v := cur.(type) {
		case map[string]any:
			cur = v[s]
		case []any:
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 || n >= len(v) {
				return ""
			}
			cur = v[n]
		default:
			return ""
		}
	}
	switch v := cur.(type) {
	case nil:
		return ""
	case string:
		return v
	case json.Number:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	}
	b, err := json.Marshal(cur)
	if err != nil {
		return ""
	}
	return string(b)
}

// splitTemplatePath splits a.b[0].c into a, b, 0, c.
func splitTemplatePath(expr string) []string {
	var out []string
	for _, part := range strings.Split(expr, ".") {
		for part != "" {
			i := strings.IndexByte(part, '[')
			if i < 0 {
				out = append(out, part)
				break
			}
			if i > 0 {
				out = append(out, part[:i])
			}
			j := strings.IndexByte(part[i:], ']')
			if j < 0 {
				return nil
			}
			out = append(out, part[i+1:i+j])
			part = part[i+j+1:]
		}
	}
	return out
}

// hookMapped serves POST <path>/<name>: the first mapping that fits takes
// the request and turns it into wake or agent actions, one per item of
// its forEach array.
func (w *Wing) hookMapped(rw http.ResponseWriter, r *http.Request, h config.Hooks, sub string, candidates []config.HookMapping, payload map[string]any) {
	var m config.HookMapping
	found := false
	for _, c := range candidates {
		if c.Match.Source != "" {
			if src, _ := payload["source"].(string); src != c.Match.Source {
				continue
			}
		}
		m, found = c, true
		break
	}
	if !found {
		hookText(rw, http.StatusNotFound, "Not Found")
		return
	}
	id := m.ID
	if id == "" {
		id = "mapping"
	}
	if m.HasTransform() {
		// Refused, never run without it: the transform may be what
		// decides whether (and what) the request may run.
		w.log.Error("hook mapping failed: transforms are not supported here", "mapping", id, "module", m.Transform.Module)
		writeHookJSON(rw, http.StatusInternalServerError, map[string]any{"ok": false, "error": "hook mapping failed"})
		return
	}
	items := []map[string]any{payload}
	if m.ForEach != "" {
		arr, _ := payload[m.ForEach].([]any)
		if len(arr) == 0 {
			rw.WriteHeader(http.StatusNoContent)
			return
		}
		if len(arr) > hookMaxItems {
			w.log.Warn("hook forEach batch cut", "mapping", id, "items", len(arr), "kept", hookMaxItems)
			arr = arr[:hookMaxItems]
		}
		items = items[:0]
		for _, it := range arr {
			p := make(map[string]any, len(payload))
			for k, v := range payload {
				p[k] = v
			}
			p[m.ForEach] = []any{it}
			items = append(items, p)
		}
	}
	// Every action is worked out before any runs: a request that is wrong
	// for one item runs none.
	var wakes []wakeAction
	var runs []hookRun
	for _, p := range items {
		c := newHookContext(r, sub, p)
		if m.Action == "wake" {
			wa, err := w.mappedWake(h, m, c)
			if err != nil {
				w.hookFail(rw, err)
				return
			}
			wakes = append(wakes, wa)
			continue
		}
		a, err := w.mappedRun(h, m, id, c)
		if err != nil {
			w.hookFail(rw, err)
			return
		}
		a.idem = hookIdempotencyKey(r, p)
		if m.ForEach != "" {
			// Fan-out items carry their own replay identity, so a sender
			// retrying the same batch does not run its items twice.
			a.idem = "item\x00" + a.idem
		}
		runs = append(runs, a)
	}
	mode := ""
	for _, wa := range wakes {
		w.Wake(wa.agentID, "", wa.mode, wa.text)
		mode = wa.mode
	}
	if len(runs) == 0 {
		writeHookJSON(rw, http.StatusOK, wakeResult{OK: true, Mode: mode, EventOutcome: "queued"})
		return
	}
	var ids []string
	for _, a := range runs {
		run, err := w.startHookRun(r.Context(), h, r.URL.Path, a)
		if err != nil {
			if len(ids) == 0 {
				w.hookFail(rw, err)
				return
			}
			writeHookJSON(rw, http.StatusBadGateway, map[string]any{"ok": false, "error": "the batch was run only in part: " + err.Error(), "runIds": ids})
			return
		}
		ids = append(ids, run.id)
	}
	if len(ids) == 1 {
		writeHookJSON(rw, http.StatusOK, map[string]any{"ok": true, "runId": ids[0]})
		return
	}
	writeHookJSON(rw, http.StatusOK, map[string]any{"ok": true, "runId": ids[0], "runIds": ids, "dispatched": len(ids)})
}

// wakeAction is one wake a mapping asked for.
type wakeAction struct{ agentID, mode, text string }

func (w *Wing) mappedWake(h config.Hooks, m config.HookMapping, c hookContext) (wakeAction, error) {
	text := strings.TrimSpace(c.render(m.TextTemplate))
	if text == "" {
		return wakeAction{}, badHook("the mapping's textTemplate rendered no text")
	}
	mode, err := wakeMode(m.WakeMode)
	if err != nil {
		return wakeAction{}, err
	}
	agentID, err := w.hookAgent(h, m.AgentID, true)
	if err != nil {
		return wakeAction{}, err
	}
	return wakeAction{agentID: agentID, mode: mode, text: text}, nil
}

func (w *Wing) mappedRun(h config.Hooks, m config.HookMapping, id string, c hookContext) (hookRun, error) {
	a := hookRun{source: id, mapped: true, persistent: m.SessionMode == "persistent"}
	a.message = strings.TrimSpace(c.render(m.MessageTemplate))
	if a.message == "" {
		return a, badHook("the mapping's messageTemplate rendered no message")
	}
	if a.name = strings.TrimSpace(c.render(m.Name)); a.name == "" {
		a.name = "Hook"
	}
	var err error
	if a.agentID, err = w.hookAgent(h, m.AgentID, true); err != nil {
		return a, err
	}
	asked := m.SessionKey
	if config.IsTemplate(asked) {
		// A key rendered from the payload is the sender's choice.
		if !h.AllowRequestSessionKey {
			return a, badHook("the mapping's sessionKey is rendered from the request, which hooks.allowRequestSessionKey does not allow")
		}
		if asked = strings.TrimSpace(c.render(asked)); asked == "" {
			return a, badHook("the mapping's sessionKey rendered empty")
		}
	}
	if a.logical, a.generated, err = hookSessionKey(h, asked); err != nil {
		return a, err
	}
	a.wakeNow = m.WakeMode != cron.WakeNextHeartbeat
	a.deliver = m.DeliverOn()
	a.channel = m.Channel
	if a.channel == "" {
		a.channel = "last"
	}
	a.to = strings.TrimSpace(c.render(m.To))
	a.model = strings.TrimSpace(c.render(m.Model))
	if m.TimeoutSeconds > 0 {
		a.timeout = time.Duration(m.TimeoutSeconds) * time.Second
	}
	if a.deliver && a.channel != "last" {
		if err := w.checkChannel(a.channel, cmp.Or(a.to, "x")); err != nil {
			return a, err
		}
	}
	return a, nil
}
