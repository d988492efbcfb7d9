package channelhost

import (
	"net/http"
	"sync"
)

// webhookRouter serves adapters' webhooks on the gateway port; adapters
// come and go with config reloads, which a ServeMux cannot follow.
type webhookRouter struct {
	mu    sync.RWMutex
	paths map[string]http.Handler
}

func (w *webhookRouter) mount(path string, h http.Handler) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.paths == nil {
		w.paths = map[string]http.Handler{}
	}
	w.paths[path] = h
}

func (w *webhookRouter) unmount(path string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.paths, path)
}

func (w *webhookRouter) lookup(path string) (http.Handler, bool) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	h, ok := w.paths[path]
	return h, ok
}
