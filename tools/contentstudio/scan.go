package contentstudio

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/openclaw-go/openclaw/tools"
)

// Lexicon categories.
const (
	CategoryExtremeClaim     = "extreme-claim"
	CategoryInducement       = "inducement"
	CategoryGuaranteedReturn = "guaranteed-return"
	CategoryExtra            = "extra"
	maxScanRunes             = 200_000
	maxExtraBannedWords      = 200
	maxExtraBannedWordRunes  = 64
	maxHitsPerTermPositions  = 10
)

// lexicon is the built-in list: terms advertising rules on both
// platforms refuse (absolute superlatives, lures to click or share, and
// promises of returns), in Chinese and English.
var lexicon = map[string][]string{
	CategoryExtremeClaim: {"最佳", "最好", "最强", "最低价", "第一", "唯一", "顶级", "极致", "国家级", "世界级", "全网最", "史上最", "绝对", "永久", "100%有效", "万能",
		"best ever", "number one", "no.1", "the only", "world's best", "100% effective", "miracle"},
	CategoryInducement: {"点击领取", "免费领", "免费送", "转发抽奖", "关注领取", "扫码领", "限时秒杀", "不转不是", "转发有奖", "点赞抽奖",
		"click to claim", "share to win", "free gift", "act now"},
	CategoryGuaranteedReturn: {"稳赚", "保本", "零风险", "包赚", "稳赚不赔", "保证收益", "高额回报", "躺赚", "月入过万", "翻倍收益",
		"guaranteed return", "risk-free", "no risk", "double your money"},
}

// ScanArgs are compliance_scan's arguments.
type ScanArgs struct {
	Text             string   `json:"text" jsonschema:"description=The copy to check"`
	ExtraBannedWords []string `json:"extraBannedWords,omitempty" jsonschema:"description=More terms to refuse, beside the built-in lexicon"`
}

// Hit is one term found.
type Hit struct {
	Term      string `json:"term"`
	Category  string `json:"category"`
	Count     int    `json:"count"`
	Positions []int  `json:"positions"` // character offsets of the first few
}

// ScanResult is compliance_scan's answer.
type ScanResult struct {
	Passed bool  `json:"passed"`
	Hits   []Hit `json:"hits"`
}

// Scan checks text against the lexicon and extra, case-insensitively.
func Scan(text string, extra []string) ScanResult {
	lower := strings.ToLower(text)
	res := ScanResult{Hits: []Hit{}}
	seen := map[string]bool{}
	check := func(term, category string) {
		t := strings.ToLower(strings.TrimSpace(term))
		if t == "" || seen[t] {
			return
		}
		seen[t] = true
		h := Hit{Term: term, Category: category}
		for from := 0; ; {
			i := strings.Index(lower[from:], t)
			if i < 0 {
				break
			}
			if h.Count < maxHitsPerTermPositions {
				h.Positions = append(h.Positions, utf8.RuneCountInString(lower[:from+i]))
			}
			h.Count++
			from += i + len(t)
		}
		if h.Count > 0 {
			res.Hits = append(res.Hits, h)
		}
	}
	for _, cat := range []string{CategoryExtremeClaim, CategoryInducement, CategoryGuaranteedReturn} {
		for _, term := range lexicon[cat] {
			check(term, cat)
		}
	}
	for _, term := range extra {
		check(term, CategoryExtra)
	}
	// A longer term that contains a shorter one found at the same place
	// (稳赚不赔 and 稳赚) is reported as both: each is a rule of its own.
	slices.SortStableFunc(res.Hits, func(a, b Hit) int { return a.Positions[0] - b.Positions[0] })
	res.Passed = len(res.Hits) == 0
	return res
}

func scanTool() tools.Tool {
	return tools.NewTyped(tools.Spec{
		Name: "compliance_scan", Label: "Compliance scan",
		Description: "Check post copy against the advertising lexicon (extreme claims, inducements, guaranteed returns) plus extraBannedWords; answers passed and each term found with its position.",
		Source:      tools.SourceCore, Groups: []string{"group:mateclaw"}, Timeout: tools.TimeoutFast,
	}, func(ctx context.Context, c tools.Call, a ScanArgs) (tools.Result, error) {
		if err := checkScanArgs(a.Text, a.ExtraBannedWords); err != nil {
			return tools.Result{}, err
		}
		return tools.Result{Text: tools.EncodeJSON(Scan(a.Text, a.ExtraBannedWords))}, nil
	})
}

func checkScanArgs(text string, extra []string) error {
	if utf8.RuneCountInString(text) > maxScanRunes {
		return errTooLong("text", maxScanRunes)
	}
	if len(extra) > maxExtraBannedWords {
		return errTooMany("extraBannedWords", maxExtraBannedWords)
	}
	for _, w := range extra {
		if utf8.RuneCountInString(w) > maxExtraBannedWordRunes {
			return errTooLong("an extraBannedWords entry", maxExtraBannedWordRunes)
		}
	}
	return nil
}
