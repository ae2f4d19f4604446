package depcheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// The observable-only rule (docs/design.md, "Observable-only judging"): an
// oracle judges what a caller of the target could observe. The query
// answers reach the oracles on the history's LockReleasing events, as the
// public methods returned them; what is not observable is read only where
// PrivateReads lists it, so that no new reader appears unnoticed.

// PrivateRead is one selector an oracle may use only in the files listed:
// a read of the target's own records.
type PrivateRead struct {
	Selector string
	Call     bool // only a call of it (x.Final(), not a field Final)
	Why      string
	Files    []string // relative to the module root, slash-separated
}

// PrivateReads are the reads of the target's records the oracles still
// make (issue 17, open: each list may only shrink). Workers (the old
// View.Workers, the pod workers' records read under the lock) and every
// ...Locked accessor may appear in no oracle.
func PrivateReads() []PrivateRead {
	return []PrivateRead{
		{"Workers", false, "the pod workers' records read under the lock; the answers are on LockReleasing events", nil},
		// The liveness oracle judged the end of a run on a snapshot of the
		// records (View.Final) until issue 17; it judges it from the history
		// now, and no oracle may read such a snapshot again, under that name
		// or through the flags it held, which no query answers.
		{"Final", true, "View.Final: the pod workers' records after the settle phase (working, in flight, pending update)", nil},
		{"PodStates", false, "the pod workers' record snapshots (workers.PodStates)", nil},
		{"StaticPodState", false, "the pod workers' static start lists (workers.StaticPodState)", nil},
		{"HasPendingUpdate", false, "a record's pending update, which no query answers", nil},
		{"PendingUpdateType", false, "a record's pending update, which no query answers", nil},
		{"HasWorker", false, "whether a record has a worker goroutine, which no query answers", nil},
		{"Working", false, "a record's working flag, which no query answers", nil},
		{"InFlight", false, "whether a record's worker is in a sync call (the callbacks show it)", nil},
		{"ObservedRuntime", false, "a record's observedRuntime flag (the runtime-only updates show it)", nil},
		// In observable-only mode Known comes from the history alone
		// (history.KnownFromHistory), so these reads decide nothing private there.
		{"Known", false, "history.Answers.Known: whether the UID has a record, which no query answers",
			[]string{"oracle/coverage/coverage.go", "oracle/kubelet/kubelet.go", "oracle/liveness/bounded.go", "oracle/liveness/judge.go",
				"oracle/liveness/events.go", "oracle/liveness/track.go", "oracle/safety/state.go"}},
		{"KnownUIDs", false, "history.Probe.KnownUIDs: Known for every UID", []string{"oracle/safety/track.go"}},
		{"AppendKnownUIDs", false, "history.Probe.AppendKnownUIDs: KnownUIDs into a buffer", []string{"oracle/safety/track.go"}},
	}
}

// CheckObservable reports every selector of PrivateReads, and every
// selector ending in "Locked", in the non-test files under root/oracle
// outside the files its entry allows.
func CheckObservable(root string, reads []PrivateRead) ([]string, error) {
	var out []string
	err := filepath.WalkDir(filepath.Join(root, "oracle"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		reported := map[string]bool{}
		called := map[*ast.SelectorExpr]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				if sel, ok := c.Fun.(*ast.SelectorExpr); ok {
					called[sel] = true
				}
			}
			sel, ok := n.(*ast.SelectorExpr)
			if !ok || reported[sel.Sel.Name] {
				return true
			}
			name := sel.Sel.Name
			if strings.HasSuffix(name, "Locked") {
				reported[name] = true
				out = append(out, fmt.Sprintf("%s reads .%s: a target's accessor under its lock", rel, name))
			}
			for _, r := range reads {
				if r.Selector == name && (called[sel] || !r.Call) && !slices.Contains(r.Files, rel) {
					reported[name] = true
					out = append(out, fmt.Sprintf("%s reads .%s: %s", rel, name, r.Why))
				}
			}
			return true
		})
		return nil
	})
	return out, err
}
