package gateway

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

// TestWikiToolsInATurn has the model call, in one agent turn, the wiki
// tools TestWikiAgentTurn leaves out, and checks their effects on the
// store: an archived page leaves the listing and comes back when
// unarchived, trace names the source a page was written from, and
// explain and enrich make their own model call with both pages in it.
func TestWikiToolsInATurn(t *testing.T) {
	model := fakemodel.New(t)
	_, c := startWithConfig(t, model, "")
	model.Script(
		calls([3]string{"c1", "wiki_create_page", `{"title":"Cat Care","content":"Feed the cat twice a day. See [[Dog Care]].","sources":[{"ref":"vet.pdf","text":"Adult cats eat twice daily."}]}`},
			[3]string{"c2", "wiki_create_page", `{"title":"Dog Care","content":"Walk the dog every day; a dog and a cat can share a home.","sources":[{"ref":"shelter-notes.txt","text":"Dogs need a daily walk."}]}`}),
		calls([3]string{"r1", "wiki_read_many", `{"slugs":["cat-care","Dog Care","no-such-page"]}`},
			[3]string{"t1", "wiki_trace_source", `{"slug":"dog-care"}`},
			[3]string{"p1", "wiki_related_pages", `{"slug":"dog-care"}`}),
		calls([3]string{"a1", "wiki_archive_page", `{"slug":"dog-care"}`}),
		calls([3]string{"l1", "wiki_list_pages", `{}`}, [3]string{"s1", "wiki_search_pages", `{"query":"walk"}`}),
		calls([3]string{"u1", "wiki_unarchive_page", `{"slug":"dog-care"}`}),
		calls([3]string{"l2", "wiki_list_pages", `{}`}),
		calls([3]string{"x1", "wiki_explain_relation", `{"from":"cat-care","to":"dog-care"}`}),
		// wiki_explain_relation's own call.
		fakemodel.Reply{Text: "Both are pet care; Cat Care links to Dog Care, and Dog Care says the two animals can live together."},
		calls([3]string{"e1", "wiki_enrich_page", `{"slug":"dog-care"}`}),
		// wiki_enrich_page's own call: the page with a link added.
		fakemodel.Reply{Text: "```markdown\nWalk the dog every day; a dog and a cat can share a home (see [[Cat Care]]).\n```"},
		calls([3]string{"r2", "wiki_read_page", `{"slug":"dog-care"}`}),
		fakemodel.Reply{Text: "Done."},
	)
	res := runTurn(t, c, model, "tidy up my pet notes", "wiki-more-1")

	// wiki_read_many: both pages, a title turned into its slug, the
	// missing one named.
	var many struct {
		Pages []struct {
			Slug    string `json:"slug"`
			Content string `json:"content"`
		} `json:"pages"`
		Missing []string `json:"missing"`
	}
	if err := json.Unmarshal([]byte(res["r1"]), &many); err != nil {
		t.Fatalf("wiki_read_many: %q: %v", res["r1"], err)
	}
	if len(many.Pages) != 2 || many.Pages[0].Slug != "cat-care" || many.Pages[1].Slug != "dog-care" ||
		!strings.Contains(many.Pages[1].Content, "Walk the dog") || fmt.Sprint(many.Missing) != "[no-such-page]" {
		t.Fatalf("wiki_read_many: %q", res["r1"])
	}
	says(t, "wiki_trace_source", res["t1"], `"slug":"dog-care"`, "shelter-notes.txt", "Dogs need a daily walk.")
	if strings.Contains(res["t1"], "vet.pdf") {
		t.Errorf("wiki_trace_source gave another page's source: %q", res["t1"])
	}
	// Cat Care links to Dog Care, so it is among the pages linking to it.
	var rel struct {
		LinkedBy []struct {
			Slug string `json:"slug"`
		} `json:"linkedBy"`
	}
	if json.Unmarshal([]byte(res["p1"]), &rel) != nil || len(rel.LinkedBy) != 1 || rel.LinkedBy[0].Slug != "cat-care" {
		t.Fatalf("wiki_related_pages: %q", res["p1"])
	}

	says(t, "wiki_archive_page", res["a1"], `"archived":true`)
	says(t, "wiki_list_pages after archiving", res["l1"], `"total":1`, "cat-care")
	if strings.Contains(res["l1"], "dog-care") || strings.Contains(res["s1"], "dog-care") {
		t.Errorf("an archived page is still listed or found: %q %q", res["l1"], res["s1"])
	}
	says(t, "wiki_unarchive_page", res["u1"], `"archived":false`)
	says(t, "wiki_list_pages after unarchiving", res["l2"], `"total":2`, "dog-care")

	says(t, "wiki_explain_relation", res["x1"], `"fromLinksTo":true`, `"toLinksTo":false`, "the two animals can live together")
	explain := oneShot(t, model, "You explain how two wiki pages relate")
	says(t, "explain's prompt", lastUserText(explain), "Feed the cat twice a day", "Walk the dog every day")

	says(t, "wiki_enrich_page", res["e1"], `"enriched":true`, `"linksAdded":["cat-care"]`)
	enrich := oneShot(t, model, "Improve the page")
	says(t, "enrich's prompt", lastUserText(enrich), "[[Cat Care]] (slug cat-care)", "Dogs need a daily walk.")
	// The page now holds what the model wrote, its fence taken away.
	says(t, "the enriched page", res["r2"], "(see [[Cat Care]])", `"revisions":1`)
	if strings.Contains(res["r2"], "```") {
		t.Errorf("the code fence was kept: %q", res["r2"])
	}
}
