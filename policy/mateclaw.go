package policy

import (
	"maps"
	"strings"
)

// mateclawNames is the one table of MateClaw's tool names and the tools of
// ours that do the same job. Every place that reads a tool name goes
// through it: policy lists (tools.allow, agents.*.tools), Tool Guard rules
// and the registry, where a model calling a MateClaw name reaches ours.
//
// MateClaw tools we ship under their own name (DateTimeTool,
// FileTypeDetectorTool, DocumentExtractTool, WorkspaceMemoryTool, the
// Docx/Xlsx/Pptx/PdfRenderTool, DatasourceTool, SqlQueryTool, send_file,
// enable_tool, load_skill, the fourteen wiki_* tools) need no entry, and neither does
// model3d_generate. The generation tools map to OpenClaw's names
// (image_generate, video_generate, music_generate), which tools/generate
// provides. MateClawDocTool and the Content Studio tools (compliance_scan,
// content_item, gzh_package, xhs_package, wechat_article_extract,
// gzh_publish, xhs_publish) are ours under their own names.
var mateclawNames = map[string]string{
	"ReadFileTool":      "read",
	"WriteFileTool":     "write",
	"EditFileTool":      "edit",
	"ShellExecuteTool":  "exec",
	"WebSearchTool":     "web_search",
	"BrowserUseTool":    "browser",
	"browser_use":       "browser", // the name MateClaw's tiering uses
	"DelegateAgentTool": "delegateToAgent",
	"SkillFileTool":     "skill_file",
	"SkillScriptTool":   "skill_script",
	"SkillManageTool":   "skill_manage",
	"CronJobTool":       "automations",
	"ImageGenerateTool": "image_generate",
	"VideoGenerateTool": "video_generate",
	"MusicGenerateTool": "music_generate",
}

// mateclawLower is mateclawNames keyed and valued in lower case, as
// NormalizeName compares.
var mateclawLower = func() map[string]string {
	out := make(map[string]string, len(mateclawNames))
	for k, v := range mateclawNames {
		out[strings.ToLower(k)] = strings.ToLower(v)
	}
	return out
}()

// MateClawNames returns a copy of the table of MateClaw tool names and the
// names of the tools of ours doing that job, spelled as each side does.
func MateClawNames() map[string]string { return maps.Clone(mateclawNames) }
