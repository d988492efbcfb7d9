package gateway

import (
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/image"
)

// imageTool is the image tool: images from the caller's workspace or the
// public web, analysed by agents.defaults.imageModel through the agents
// service (which resolves the model chain at each call, so a reloaded
// config applies at once).
func (s *System) imageTool(workspace func(who tools.Who) (string, error)) tools.Tool {
	return image.Tool(image.Config{Workspace: workspace, Analyzer: s.agents})
}
