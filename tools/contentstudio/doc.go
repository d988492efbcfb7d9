// Package contentstudio holds MateClaw's Content Studio tools for
// WeChat Official Account (公众号) and Xiaohongshu (小红书) image-text
// posts: compliance_scan (a lexicon scan for extreme claims, inducements
// and promised returns), content_item (a per-agent content calendar with
// topic-fingerprint dedup), gzh_package and xhs_package (a post packaged
// in the workspace, scanned and recorded), wechat_article_extract (an
// mp.weixin.qq.com article cleaned into title, author, time, body and
// images, fetched from that host only), gzh_publish (a package pushed to
// the Official Account's draft box over its API) and xhs_publish (a
// package filled into Xiaohongshu's creator page in a browser).
//
// # xhs_publish
//
// Xiaohongshu has no public publishing API, so xhs_publish does what a
// person would: in Chromium, driven over the DevTools protocol (chromedp),
// it opens the creator publish page, switches to the image-text tab,
// uploads the package's cards, types the title, the body and the tags
// (as #words on a last line), and then either saves a draft ("暂存离开")
// or presses publish. The decisions behind it:
//
//   - Publishing is approval-gated the way gzh_publish is: with publish
//     set, a person is asked (tools.Approver) before the page is even
//     opened, and a denial, a timeout or a gateway without an approver
//     uploads nothing. A draft needs no approval: it stays in the user's
//     own draft box. A package the compliance scan flags is saved as a
//     draft at most.
//   - Where the browser goes is the operator's config only
//     (tools.contentStudio.xhsCreatorUrl, default XhsCreatorURL, https
//     only), never the model's arguments: the page gets the user's
//     logged-in cookies, and a model must not be able to send those
//     cookies, or the user's files, to a page of its choosing. The
//     arguments are a package folder and the publish flag, and unknown
//     arguments are refused.
//   - Login is the user's own: the tab opens in a browser profile
//     (tools.contentStudio.xhsProfile, default the browser tool's default
//     profile) that the user logged in to Xiaohongshu with once, and the
//     profile's cookies do the rest. The gateway never asks for, stores or
//     types a password. When the page shows a login form, or sends the
//     browser to a login page, the call fails with a plain error naming
//     the profile and its user-data dir, so the user knows where to log in.
//   - Every part of the page the tool touches is in one table
//     (xhsSelectors): Xiaohongshu changes its page, and when it does, the
//     table is what needs updating. Errors for a missing element say so.
//   - The cards are copied from the workspace (read through its os.Root)
//     into a private temporary folder and uploaded from there: Chromium
//     reads uploads by path, so it must never be handed a path a model
//     could have turned into a symlink. For the same reason the upload
//     only works with a browser on this machine, not a remote cdpUrl one.
//   - Text goes in as input events (Input.insertText and Enter), as typing
//     or an input method would, because the page's editors ignore values
//     written into the DOM; buttons are pressed with real mouse events.
//
// It is best effort by nature: the tool reports what it saw the page do
// (the draft saved, the page leaving for its success page), not a
// platform receipt, and a page that changed under it fails loudly rather
// than pressing the wrong button.
package contentstudio
