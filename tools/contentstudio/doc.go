// Package contentstudio holds MateClaw's Content Studio tools for
// WeChat Official Account (公众号) and Xiaohongshu (小红书) image-text
// posts: compliance_scan (a lexicon scan for extreme claims, inducements
// and promised returns), content_item (a per-agent content calendar with
// topic-fingerprint dedup), gzh_package and xhs_package (a post packaged
// in the workspace, scanned and recorded) and wechat_article_extract (an
// mp.weixin.qq.com article cleaned into title, author, time, body and
// images, fetched from that host only).
package contentstudio
