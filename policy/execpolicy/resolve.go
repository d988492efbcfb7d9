package execpolicy

import (
	"path/filepath"
)

// resolve finds the absolute, symlink-free path of an executable the way the
// shell would, through the injected LookPath and EvalSymlinks. It returns ""
// when the executable cannot be resolved, and reports whether the name was
// a relative path (whose meaning changes with cd).
func (w *walker) resolve(name string) (resolved string, relative bool) {
	if name == "" {
		return "", false
	}
	if r, ok := w.resolved[name]; ok {
		return r, hasSlash(name) && !filepath.IsAbs(name)
	}
	p := name
	if hasSlash(name) && !filepath.IsAbs(name) {
		relative = true
		if w.an.Dir == "" || !filepath.IsAbs(w.an.Dir) {
			return "", true
		}
		// Not filepath.Join: cleaning "dir/link/../x" lexically would
		// skip the symlink the kernel follows.
		p = w.an.Dir + string(filepath.Separator) + name
	}
	w.resolved[name] = ""
	if w.an.LookPath == nil || w.an.EvalSymlinks == nil {
		return "", relative
	}
	found, err := w.an.LookPath(p)
	if err != nil || !filepath.IsAbs(found) {
		return "", relative
	}
	real, err := w.an.EvalSymlinks(found)
	if err != nil || !filepath.IsAbs(real) {
		return "", relative
	}
	real = filepath.Clean(real)
	w.resolved[name] = real
	return real, relative
}
