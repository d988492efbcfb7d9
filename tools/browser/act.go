package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// Limits of act.
const (
	maxWait     = 30 * time.Second
	defaultWait = 10 * time.Second
)

// Field is one form field of act kind=fill.
type Field struct {
	Ref   string `json:"ref" jsonschema:"description=Ref of the field from the last snapshot"`
	Value string `json:"value" jsonschema:"description=Value to set; for a checkbox or radio true or false"`
}

// act runs one act kind in the tab.
func (t *tab) act(ctx context.Context, a Args, evaluateEnabled bool) (string, error) {
	cctx, cancel := t.bound(ctx, 0)
	defer cancel()
	switch a.Kind {
	case "click":
		x, y, err := t.center(cctx, a.Ref)
		if err != nil {
			return "", err
		}
		count := 1
		if a.DoubleClick {
			count = 2
		}
		btn := input.MouseButtonLeft
		switch a.Button {
		case "right":
			btn = input.MouseButtonRight
		case "middle":
			btn = input.MouseButtonMiddle
		}
		if err := chromedp.Do(cctx, chromedp.MouseClickXY(x, y, chromedp.ButtonType(btn), chromedp.ClickCount(count))); err != nil {
			return "", fmt.Errorf("click %s: %w", a.Ref, err)
		}
		return "clicked " + a.Ref, nil
	case "type":
		obj, err := t.object(cctx, a.Ref)
		if err != nil {
			return "", err
		}
		// Replace, as OpenClaw's type does, then insert so the page sees
		// real input events.
		if err := callOn(cctx, obj, `function(){ this.focus(); if ('value' in this) { this.value = ''; } else if (this.isContentEditable) { this.textContent = ''; } }`); err != nil {
			return "", fmt.Errorf("type into %s: %w", a.Ref, err)
		}
		if _, err := chromedp.Call(cctx, input.InsertText, input.InsertTextParams{Text: a.Text}); err != nil {
			return "", fmt.Errorf("type into %s: %w", a.Ref, err)
		}
		if a.Submit {
			if err := chromedp.Do(cctx, chromedp.KeyEvent(kb.Enter)); err != nil {
				return "", fmt.Errorf("submit: %w", err)
			}
			return "typed into " + a.Ref + " and pressed Enter", nil
		}
		return "typed into " + a.Ref, nil
	case "press":
		keys, err := keyFor(a.Key)
		if err != nil {
			return "", err
		}
		if err := chromedp.Do(cctx, chromedp.KeyEvent(keys)); err != nil {
			return "", fmt.Errorf("press %s: %w", a.Key, err)
		}
		return "pressed " + a.Key, nil
	case "hover":
		x, y, err := t.center(cctx, a.Ref)
		if err != nil {
			return "", err
		}
		if err := chromedp.Do(cctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x, y)); err != nil {
			return "", fmt.Errorf("hover %s: %w", a.Ref, err)
		}
		return "hovering " + a.Ref, nil
	case "drag":
		return t.drag(cctx, a.StartRef, a.EndRef)
	case "select":
		if len(a.Values) == 0 {
			return "", errors.New("select needs values")
		}
		obj, err := t.object(cctx, a.Ref)
		if err != nil {
			return "", err
		}
		chosen, err := chromedp.Run(cctx, chromedp.CallFunctionOn[[]string](selectJS, onObject(obj), a.Values))
		if err != nil {
			return "", fmt.Errorf("select in %s: %w", a.Ref, err)
		}
		if len(chosen) == 0 {
			return "", fmt.Errorf("no option of %s matches %q", a.Ref, a.Values)
		}
		return fmt.Sprintf("selected %q in %s", chosen, a.Ref), nil
	case "fill":
		if len(a.Fields) == 0 {
			return "", errors.New("fill needs fields: [{ref, value}]")
		}
		for _, f := range a.Fields {
			obj, err := t.object(cctx, f.Ref)
			if err != nil {
				return "", err
			}
			if _, err := chromedp.Run(cctx, chromedp.CallFunctionOn[bool](fillJS, onObject(obj), f.Value)); err != nil {
				return "", fmt.Errorf("fill %s: %w", f.Ref, err)
			}
		}
		return fmt.Sprintf("filled %d fields", len(a.Fields)), nil
	case "resize":
		if a.Width <= 0 || a.Height <= 0 || a.Width > 8192 || a.Height > 8192 {
			return "", errors.New("resize needs width and height between 1 and 8192")
		}
		if _, err := chromedp.Call(cctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
			Width: int64(a.Width), Height: int64(a.Height), DeviceScaleFactor: 1,
		}); err != nil {
			return "", fmt.Errorf("resize: %w", err)
		}
		return fmt.Sprintf("viewport is %dx%d", a.Width, a.Height), nil
	case "wait":
		return t.wait(cctx, a)
	case "evaluate":
		if !evaluateEnabled {
			return "", errors.New("evaluate is turned off (browser.evaluateEnabled=false)")
		}
		return t.evaluate(cctx, a)
	case "":
		return "", errors.New("act needs kind: click, type, press, hover, drag, select, fill, resize, wait or evaluate")
	}
	return "", fmt.Errorf("unknown act kind %q", a.Kind)
}

// object resolves a ref to a JavaScript handle on its element.
func (t *tab) object(ctx context.Context, ref string) (runtime.RemoteObjectID, error) {
	id, err := t.ref(ref)
	if err != nil {
		return "", err
	}
	res, err := chromedp.Call(ctx, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: id})
	if err != nil || res.Object == nil || res.Object.ObjectID == "" {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", staleRef(ref)
	}
	return res.Object.ObjectID, nil
}

// center scrolls a ref's element into view and returns its middle in
// viewport coordinates, where mouse events go.
func (t *tab) center(ctx context.Context, ref string) (float64, float64, error) {
	id, err := t.ref(ref)
	if err != nil {
		return 0, 0, err
	}
	return centerOf(ctx, ref, id)
}

func centerOf(ctx context.Context, ref string, id cdp.BackendNodeID) (float64, float64, error) {
	if _, err := chromedp.Call(ctx, dom.ScrollIntoViewIfNeeded, dom.ScrollIntoViewIfNeededParams{BackendNodeID: id}); err != nil {
		if ctx.Err() != nil {
			return 0, 0, ctx.Err()
		}
		if strings.Contains(err.Error(), "No node") {
			return 0, 0, staleRef(ref)
		}
		return 0, 0, fmt.Errorf("%s cannot be scrolled into view (hidden?): %w", ref, err)
	}
	q, err := chromedp.Call(ctx, dom.GetContentQuads, dom.GetContentQuadsParams{BackendNodeID: id})
	if err != nil {
		if ctx.Err() != nil {
			return 0, 0, ctx.Err()
		}
		return 0, 0, staleRef(ref)
	}
	if len(q.Quads) == 0 || len(q.Quads[0]) < 8 {
		return 0, 0, fmt.Errorf("%s has no box on the page (hidden?)", ref)
	}
	quad := q.Quads[0]
	var x, y float64
	for i := 0; i < 8; i += 2 {
		x += quad[i]
		y += quad[i+1]
	}
	return x / 4, y / 4, nil
}

func (t *tab) drag(ctx context.Context, startRef, endRef string) (string, error) {
	x0, y0, err := t.center(ctx, startRef)
	if err != nil {
		return "", err
	}
	x1, y1, err := t.center(ctx, endRef)
	if err != nil {
		return "", err
	}
	held := func(p *input.DispatchMouseEventParams) { p.Button = input.MouseButtonLeft; p.Buttons = 1 }
	steps := []chromedp.Action[chromedp.Void]{
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x0, y0),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, x0, y0, chromedp.ButtonLeft, chromedp.ClickCount(1)),
	}
	// Intermediate moves, so pages that track movement see a drag.
	for i := 1; i <= 5; i++ {
		f := float64(i) / 5
		steps = append(steps, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x0+(x1-x0)*f, y0+(y1-y0)*f, held))
	}
	steps = append(steps, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, x1, y1, chromedp.ButtonLeft, chromedp.ClickCount(1)))
	if err := chromedp.Do(ctx, steps...); err != nil {
		return "", fmt.Errorf("drag %s to %s: %w", startRef, endRef, err)
	}
	return "dragged " + startRef + " to " + endRef, nil
}

// wait waits for a time, for text to appear, or for a selector to match.
func (t *tab) wait(ctx context.Context, a Args) (string, error) {
	limit := defaultWait
	if a.TimeoutMs > 0 {
		limit = min(time.Duration(a.TimeoutMs)*time.Millisecond, maxWait)
	}
	switch {
	case a.TimeMs > 0:
		d := min(time.Duration(a.TimeMs)*time.Millisecond, maxWait)
		select {
		case <-time.After(d):
			return fmt.Sprintf("waited %s", d), nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	case a.Text != "":
		return t.poll(ctx, limit, `(t) => !!document.body && document.body.innerText.includes(t)`, a.Text, "text "+fmt.Sprintf("%q", a.Text)+" appeared")
	case a.TextGone != "":
		return t.poll(ctx, limit, `(t) => !document.body || !document.body.innerText.includes(t)`, a.TextGone, "text "+fmt.Sprintf("%q", a.TextGone)+" is gone")
	case a.Selector != "":
		return t.poll(ctx, limit, `(s) => !!document.querySelector(s)`, a.Selector, "selector "+fmt.Sprintf("%q", a.Selector)+" matches")
	}
	return "", errors.New("wait needs timeMs, text, textGone or selector")
}

// poll calls a predicate in the page until it holds or the limit passes.
func (t *tab) poll(ctx context.Context, limit time.Duration, fn, arg, done string) (string, error) {
	deadline := time.Now().Add(limit)
	expr := "(" + fn + ")(" + jsString(arg) + ")"
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
		if err == nil && ok {
			return done, nil
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("timed out after %s waiting until %s", limit, done)
		}
		select {
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

// evaluate runs the model's function (or expression) in the page, with
// the ref's element as its argument when a ref is given.
func (t *tab) evaluate(ctx context.Context, a Args) (string, error) {
	if strings.TrimSpace(a.Fn) == "" {
		return "", errors.New("evaluate needs fn, e.g. \"() => document.title\"")
	}
	var v any
	var err error
	if a.Ref != "" {
		obj, oerr := t.object(ctx, a.Ref)
		if oerr != nil {
			return "", oerr
		}
		v, err = chromedp.Run(ctx, chromedp.CallFunctionOn[any](
			"async function(){ const f = ("+a.Fn+"); return typeof f === 'function' ? await f(this) : f; }",
			onObject(obj)))
	} else {
		v, err = chromedp.Run(ctx, chromedp.Evaluate[any](
			"(async () => { const f = ("+a.Fn+"); return typeof f === 'function' ? await f() : f; })()",
			chromedp.EvalAwaitPromise))
	}
	if errors.Is(err, chromedp.ErrJSUndefined) || errors.Is(err, chromedp.ErrJSNull) {
		return "null", nil
	}
	if err != nil {
		return "", fmt.Errorf("evaluate: %w", err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v), nil
	}
	return string(b), nil
}

func onObject(id runtime.RemoteObjectID) chromedp.CallOption {
	return func(p *runtime.CallFunctionOnParams) {
		p.ObjectID = id
		p.AwaitPromise = ptr(true)
	}
}

func callOn(ctx context.Context, obj runtime.RemoteObjectID, fn string, args ...any) error {
	_, err := chromedp.Run(ctx, chromedp.CallFunctionOn[*runtime.RemoteObject](fn, onObject(obj), args...))
	return err
}

func ptr[T any](v T) *T { return &v }

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// selectJS chooses the options whose value or label is listed, and
// fires the events a person's choice fires.
const selectJS = `function(values) {
	if (!(this instanceof HTMLSelectElement)) throw new Error('not a <select> element');
	const chosen = [];
	for (const o of this.options) {
		const hit = values.includes(o.value) || values.includes(o.label) || values.includes(o.text.trim());
		if (hit && (this.multiple || chosen.length === 0)) { o.selected = true; chosen.push(o.value); }
		else if (this.multiple) { o.selected = false; }
	}
	this.dispatchEvent(new Event('input', {bubbles: true}));
	this.dispatchEvent(new Event('change', {bubbles: true}));
	return chosen;
}`

// fillJS sets a field's value through the prototype's setter, which
// frameworks that wrap value (React) notice, and fires input and change.
const fillJS = `function(value) {
	this.focus();
	if (this.type === 'checkbox' || this.type === 'radio') {
		const want = value === true || value === 'true' || value === 'on' || value === '1';
		if (this.checked !== want) this.click();
		return true;
	}
	if (this.isContentEditable) { this.textContent = value; }
	else {
		const proto = Object.getPrototypeOf(this);
		const d = Object.getOwnPropertyDescriptor(proto, 'value');
		if (d && d.set) d.set.call(this, value); else this.value = value;
	}
	this.dispatchEvent(new Event('input', {bubbles: true}));
	this.dispatchEvent(new Event('change', {bubbles: true}));
	return true;
}`

// keyNames maps key names (as Playwright and OpenClaw spell them) to the
// runes chromedp's keyboard table knows.
var keyNames = func() map[string]string {
	m := map[string]string{}
	for r, k := range kb.Keys {
		if k.Key != "" && len([]rune(k.Key)) > 1 {
			m[strings.ToLower(k.Key)] = string(r)
		}
	}
	m["esc"] = kb.Escape
	m["return"] = kb.Enter
	m["space"] = " "
	return m
}()

func keyFor(key string) (string, error) {
	if key == "" {
		return "", errors.New("press needs key, e.g. Enter, Tab, ArrowDown or a")
	}
	if len([]rune(key)) == 1 {
		return key, nil
	}
	if k, ok := keyNames[strings.ToLower(key)]; ok {
		return k, nil
	}
	return "", fmt.Errorf("unknown key %q (use a single character or a key name such as Enter, Tab, Escape, ArrowDown, Backspace)", key)
}
