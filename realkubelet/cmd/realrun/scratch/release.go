package scratch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/podsim/podsim/realkubelet/cmd/realrun/mirror"
	"github.com/podsim/podsim/realkubelet/cmd/realrun/toolrun"
)

// A kubernetes release stands for a tree wherever realrun takes one
// (--kubernetes v1.37.2, --base v1.37.2): realrun fetches the module
// k8s.io/kubernetes at that version and the staging modules it replaces
// (k8s.io/NAME at v0.MINOR.PATCH) from the Go module proxy and lays them
// out as a checkout, staging/src/k8s.io/NAME included, under
// <scratch>/releases/VERSION/tree, once. It is the code a checkout of
// the release's tag builds, got without git: through the go command and
// its module proxy, which a machine that builds podsim reaches already.

// releaseRE is a release as the flags take it: v1.MINOR.PATCH, or a
// pre-release of one (v1.38.0-beta.0, v1.38.0-rc.1), whose staging
// modules carry the same suffix (v0.38.0-beta.0).
var releaseRE = regexp.MustCompile(`^v1\.(\d+)\.(\d+)(-(?:alpha|beta|rc)\.\d+)?$`)

// IsRelease reports whether a --kubernetes or --base value names a release
// rather than a directory (a directory of that name wins: ./v1.37.2).
func IsRelease(v string) bool { return releaseRE.MatchString(v) && IsModuleRelease(v) }

// FetchFunc downloads modules (path@version each) and returns each one's
// directory; a module it could not get is left out of the map, with the
// reason in the second map.
type FetchFunc func(mods []string) (dirs, failed map[string]string, err error)

// ReleaseTree is the checkout-shaped tree of release v, assembled under
// root/releases/v if it is not there yet; log says what it does.
func ReleaseTree(root, v string, fetch FetchFunc, log func(format string, a ...any)) (string, error) {
	m := releaseRE.FindStringSubmatch(v)
	if m == nil {
		return "", fmt.Errorf("%q is not a kubernetes release (want v1.MINOR.PATCH or v1.MINOR.PATCH-beta.N)", v)
	}
	dir := filepath.Join(root, "releases", v)
	tree, done := filepath.Join(dir, "tree"), filepath.Join(dir, "complete")
	if _, err := os.Stat(done); err == nil {
		return tree, nil
	}
	if err := mirror.Lock(dir); err != nil {
		return "", err
	}
	log("fetching kubernetes %s and its staging modules from the Go module proxy (once; kept in %s)", v, dir)
	kube, err := ModuleRelease("k8s.io/kubernetes", v, fetch)
	if err != nil {
		return "", err
	}
	gomod, err := os.ReadFile(filepath.Join(kube, "go.mod"))
	if err != nil {
		return "", err
	}
	staging := stagingModules(gomod)
	var mods []string
	for _, s := range staging {
		mods = append(mods, fmt.Sprintf("%s@v0.%s.%s%s", s, m[1], m[2], m[3]))
	}
	sdirs, sfailed, err := fetch(mods)
	if err != nil {
		return "", fmt.Errorf("kubernetes %s: fetching its staging modules: %v", v, err)
	}
	os.RemoveAll(tree) // an assembly an interrupt cut short
	if err := mirror.Tree(kube, tree, nil); err != nil {
		return "", err
	}
	for i, s := range staging {
		if sdirs[mods[i]] == "" {
			why := sfailed[mods[i]]
			if i := strings.LastIndex(why, ": "); i >= 0 {
				why = why[i+2:] // the proxy's answer, without the module and URL it repeats
			}
			log("kubernetes %s: %s is not served (%s): an empty module stands in for it; the build fails only if the kubelet imports it", v, mods[i], why)
			if err := standIn(filepath.Join(tree, "staging", "src", s), s); err != nil {
				return "", err
			}
			continue
		}
		if err := mirror.Tree(sdirs[mods[i]], filepath.Join(tree, "staging", "src", s), nil); err != nil {
			return "", err
		}
	}
	return tree, os.WriteFile(done, nil, 0o644)
}

// standIn makes dir an empty module mod: a go.mod and no package. Other
// staging modules require their siblings (v1.38's apimachinery requires
// k8s.io/ktesting), so the go command must find every one in the module
// graph even where the kubelet imports nothing of it; an empty one lets
// the build go on, and a package the kubelet does import from it is
// reported missing by name.
func standIn(dir, mod string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module "+mod+"\n"), 0o644)
}

// releaseOf is the release whose assembled tree dir is (ReleaseTree's
// layout under root), if it is one.
func releaseOf(root, dir string) (string, bool) {
	v := filepath.Base(filepath.Dir(dir))
	return v, dir == filepath.Join(root, "releases", v, "tree") && releaseRE.MatchString(v)
}

// stagingModules are the modules a kubernetes go.mod replaces with
// ./staging/src/k8s.io/NAME, in its order.
func stagingModules(gomod []byte) []string {
	var out []string
	for _, l := range strings.Split(string(gomod), "\n") {
		f := strings.Fields(l)
		if len(f) > 0 && f[0] == "replace" { // a one-line replace, not in a block
			f = f[1:]
		}
		if len(f) >= 3 && f[len(f)-2] == "=>" && strings.HasPrefix(f[len(f)-1], "./staging/src/") && strings.HasPrefix(f[0], "k8s.io/") {
			out = append(out, f[0])
		}
	}
	return out
}

// GoDownload is the FetchFunc of the go command: one `go mod download
// -json` for all of mods, outside any module.
func GoDownload(mods []string) (dirs, failed map[string]string, err error) {
	cmd := exec.Command("go", append([]string{"mod", "download", "-json"}, mods...)...)
	cmd.Dir, cmd.Env = os.TempDir(), append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output() // it fails if any module failed; each says why in its JSON
	dirs, failed = map[string]string{}, map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var m struct{ Path, Version, Dir, Error string }
		if err := dec.Decode(&m); err == io.EOF {
			break
		} else if err != nil {
			return nil, nil, fmt.Errorf("go mod download: %v", err)
		}
		key := m.Path + "@" + m.Version
		if m.Error != "" || m.Dir == "" {
			failed[key] = toolrun.FirstLines([]byte(m.Error), 1)
			continue
		}
		dirs[key] = m.Dir
	}
	if len(dirs) == 0 && len(failed) == 0 && runErr != nil {
		return nil, nil, fmt.Errorf("go mod download: %v: %s", runErr, toolrun.FirstLines(stderr.Bytes(), 2))
	}
	return dirs, failed, nil
}

// moduleReleaseRE is a release of a module that is a whole tree (the
// virtual-kubelet's): vMAJOR.MINOR.PATCH, or a pre-release of one.
var moduleReleaseRE = regexp.MustCompile(`^v\d+\.\d+\.\d+(-(?:alpha|beta|rc)\.\d+)?$`)

// IsModuleRelease reports whether a value names such a release rather
// than a directory (a directory of that name wins).
func IsModuleRelease(v string) bool {
	_, err := os.Stat(v)
	return moduleReleaseRE.MatchString(v) && err != nil
}

// ModuleRelease is the module cache's copy of mod at release v (fetched if
// need be): for a module that is the whole tree, nothing to assemble.
func ModuleRelease(mod, v string, fetch FetchFunc) (string, error) {
	key := mod + "@" + v
	dirs, failed, err := fetch([]string{key})
	if err == nil && dirs[key] == "" {
		err = errors.New(failed[key])
	}
	if err != nil {
		advice := "`go list -m -versions " + mod + "` lists the versions the module proxy serves"
		if m := toolchainRE.FindStringSubmatch(err.Error()); m != nil {
			advice = toolchainAdvice(m[1], m[2])
		}
		return "", fmt.Errorf("%s %s: cannot fetch %s: %v; %s", path.Base(mod), v, key, err, advice)
	}
	return dirs[key], nil
}
