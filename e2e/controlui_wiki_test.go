package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

// TestControlUIWiki drives the Control UI's Wiki view: pages the agent
// wrote (here through tools.invoke) are listed, a search narrows them, and
// a page opens with its sources and links; a page whose text is HTML shows
// it as text, never as markup.
func TestControlUIWiki(t *testing.T) {
	needOurGateway(t)
	execPath := needChromium(t)
	t.Parallel()

	model := fakemodel.New(t)
	g := startGateway(t, gatewayOpts{Config: agentConfig(model.URL())})
	b := startBrowser(t, execPath)
	ours := ourClient(t, g)
	screenshotOnFailure(t, b)

	for _, args := range []string{
		`{"title":"Quince Paste","content":"Cook quinces slowly. See [[Membrillo]].","sources":[{"ref":"grandma.txt","text":"four hours on low heat"}]}`,
		`{"title":"Membrillo","content":"<img src=x onerror=\"document.body.dataset.pwned=1\"> the Spanish name"}`,
	} {
		if ok, out := invokeTool(t, ours, "wiki_create_page", args); !ok {
			t.Fatalf("wiki_create_page: %s", out)
		}
	}

	controlUILogin(t, b, g, ours)
	openView(t, b, "wiki")
	waitFor[bool](t, b, "both pages listed", `document.querySelectorAll('#wiki-pages tr[data-slug]').length === 2
		&& document.getElementById('wiki-empty').hidden`)

	b.do(t, "search", chromedp.SendKeys(`#wiki-query`, "quinces"), chromedp.Click(`#view-wiki button.refresh`))
	waitFor[bool](t, b, "the search's one page", `(() => {
		const rows = [...document.querySelectorAll('#wiki-pages tr[data-slug]')];
		return rows.length === 1 && rows[0].dataset.slug === 'quince-paste';
	})()`)

	b.do(t, "open the page", chromedp.Click(`#wiki-pages tr[data-slug="quince-paste"] button.open`))
	text := waitFor[string](t, b, "the page", `(() => {
		const box = document.getElementById('wiki-page');
		return !box.hidden && box.dataset.slug === 'quince-paste' ? box.textContent : '';
	})()`)
	for _, want := range []string{"Cook quinces slowly", "grandma.txt", "four hours on low heat", "Membrillo"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the open page lacks %q: %s", want, text)
		}
	}

	b.do(t, "follow the link", chromedp.Click(`#wiki-page button.link`))
	waitFor[bool](t, b, "the linked page, its HTML as text", `(() => {
		const box = document.getElementById('wiki-page');
		return box.dataset.slug === 'membrillo' && box.querySelector('pre.wiki-body').textContent.includes('<img src=x')
			&& !box.querySelector('img');
	})()`)
	if pwned := eval[bool](t, b, `document.body.dataset.pwned === '1'`); pwned {
		t.Fatal("a wiki page's HTML ran in the Control UI")
	}
}
