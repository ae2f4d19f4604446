package workers_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/podsim/podsim/workers"
)

// TestScripts runs the narrated interaction scripts in testdata/ (etcd
// raft's rafttest style). Each pins one interleaving of the pod workers with
// the world and says why it matters; rewrite the expected output with
//
//	go test ./workers -run TestScripts -rewrite
//
// Directives:
//
//	update uid=a type=create|update|sync|kill [name=N] [static] [deleted [deletion-grace=S]]
//	       [phase=Succeeded|Failed] [spec-grace=S] [grace=S] [evict] [wait] [runtime]
//	updates                          one update per input line, same arguments
//	sync-known [desired=(a,b)]      SyncKnownPods; prints its result
//	hold fn=SyncPod [uid=a]         the next call of fn (for uid) waits for release
//	release fn=SyncPod uid=a [outcome=ok|err|canceled|terminal]
//	outcomes fn=F uid=a results=(err,ok)   outcomes of the next calls
//	kill-now uid=a [grace=S] [evict]     KillPodNow in its own goroutine
//	runtime uid=a running=N          set the runtime cache
//	advance d=5s                     let virtual time pass
//	state                            every record; queries uid=a: every query
//	queue                            the work queue
func TestScripts(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		w := newScriptWorld(t)
		defer w.s.Close()
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			return w.directive(td)
		})
	})
}

func argsOf(td *datadriven.TestData) args {
	a := args{}
	for _, c := range td.CmdArgs {
		a[c.Key] = c.Vals
	}
	return a
}

func (w *scriptWorld) directive(td *datadriven.TestData) string {
	a := argsOf(td)
	uid := types.UID(a.str("uid", ""))
	switch td.Cmd {
	case "update":
		return w.do("config", w.update(uid, a))
	case "updates":
		return w.updates(td.Input)
	case "sync-known":
		return w.syncKnown(a.list("desired"))
	case "hold":
		w.holds[joinKey(a.str("fn", ""), uid)]++
		return "ok"
	case "release":
		return w.release(joinKey(a.str("fn", ""), uid), a.str("outcome", ""))
	case "outcomes":
		key := joinKey(a.str("fn", ""), uid)
		w.outcomes[key] = append(w.outcomes[key], a.list("results")...)
		return "ok"
	case "kill-now":
		return w.killNow(uid, a)
	case "runtime":
		w.running[uid] = int(a.int("running", 0))
		return "ok"
	case "advance":
		d, err := time.ParseDuration(a.str("d", ""))
		if err != nil {
			w.t.Fatalf("%s: advance: %v", td.Pos, err)
		}
		return w.settle(w.s.RunFor(d))
	case "state":
		return w.state()
	case "queries":
		return w.queries(uid, a.str("fullname", ""))
	case "queue":
		return w.queueState()
	}
	w.t.Fatalf("%s: unknown directive %q", td.Pos, td.Cmd)
	return ""
}

func joinKey(fn string, uid types.UID) string {
	if uid == "" {
		return fn
	}
	return fn + "/" + string(uid)
}

// updates sends one update per input line from a single config goroutine:
// under the cooperative schedule no worker runs before the last one.
func (w *scriptWorld) updates(input string) string {
	var calls []func()
	for _, line := range strings.Split(strings.TrimSpace(input), "\n") {
		a := args{}
		for _, f := range strings.Fields(line) {
			k, v, _ := strings.Cut(f, "=")
			a[k] = append(a[k], v)
		}
		calls = append(calls, w.update(types.UID(a.str("uid", "")), a))
	}
	return w.do("config", func() {
		for _, call := range calls {
			call()
		}
	})
}

// update builds one UpdatePod call from a directive's arguments.
func (w *scriptWorld) update(uid types.UID, a args) func() {
	updateTypes := map[string]workers.UpdateType{"sync": workers.SyncPodSync, "update": workers.SyncPodUpdate,
		"create": workers.SyncPodCreate, "kill": workers.SyncPodKill}
	ut, ok := updateTypes[a.str("type", "")]
	if !ok {
		w.t.Fatalf("update: unknown type %q", a.str("type", ""))
	}
	opts := workers.UpdatePodOptions{UpdateType: ut}
	if a.has("runtime") {
		opts.RunningPod = &workers.RunningPod{ID: uid, Name: "pod-" + string(uid), Namespace: "default"}
	} else {
		opts.Pod = w.pod(uid, a)
	}
	if a.has("grace") || a.has("evict") || a.has("wait") {
		ko := &workers.KillPodOptions{Evict: a.has("evict")}
		if a.has("grace") {
			ko.PodTerminationGracePeriodSecondsOverride = ptr(a.int("grace", 0))
		}
		if a.has("wait") {
			w.kills++
			name := fmt.Sprintf("kill#%d", w.kills)
			ko.CompletedCh = &loggedEvent{Event: w.rt.NewEvent("completed/" + name), w: w, what: name + " of " + string(uid)}
		}
		opts.KillPodOptions = ko
	}
	return func() { w.pw.UpdatePod(opts) }
}

func (w *scriptWorld) syncKnown(desired []string) string {
	var result workers.KnownPods
	out := w.do("housekeeping", func() {
		var pods = w.desiredPods(desired)
		result = w.pw.SyncKnownPods(pods)
	})
	lines := []string{out}
	for _, r := range result {
		lines = append(lines, fmt.Sprintf("result %s: %s orphan=%v config=%v static=%v", r.UID, r.State, r.Orphan, r.HasConfig, r.Static))
	}
	if len(result) == 0 {
		lines = append(lines, "result: empty")
	}
	return strings.Join(lines, "\n")
}

func (w *scriptWorld) desiredPods(uids []string) []*v1.Pod {
	var pods []*v1.Pod
	for _, u := range uids {
		uid := types.UID(u)
		w.versions[uid]-- // desired pods are the current version, not a new one
		pods = append(pods, w.pod(uid, args{}))
	}
	return pods
}

func (w *scriptWorld) release(key, outcome string) string {
	gate, ok := w.held[key]
	if !ok {
		w.t.Fatalf("release %s: no call is held", key)
	}
	if outcome != "" {
		w.outcomes[key] = append([]string{outcome}, w.outcomes[key]...)
	}
	return w.do("script", func() { gate.Fire() })
}

func (w *scriptWorld) killNow(uid types.UID, a args) string {
	pod := w.pod(uid, a)
	var override *int64
	if a.has("grace") {
		override = ptr(a.int("grace", 0))
	}
	w.kills++
	name := fmt.Sprintf("killer#%d", w.kills)
	return w.do(name, func() {
		start := w.s.Elapsed()
		err := w.pw.KillPodNow(pod, a.has("evict"), override, nil)
		w.logf("%s: KillPodNow(%s) returned %v after %v", name, uid, err, w.s.Elapsed()-start)
	})
}

func (w *scriptWorld) state() string {
	var lines []string
	w.do("probe", func() {
		for _, st := range w.pw.PodStates() {
			lines = append(lines, st.String())
		}
	})
	if len(lines) == 0 {
		return "no records"
	}
	return strings.Join(lines, "\n")
}

func (w *scriptWorld) queries(uid types.UID, fullname string) string {
	var out string
	w.do("probe", func() {
		p := w.pw
		out = fmt.Sprintf("KnownTerminated=%v CouldHaveRunning=%v BeFinished=%v TermRequested=%v\n"+
			"ContainersBeTerminating=%v RuntimeBeRemoved=%v ContentBeRemoved=%v",
			p.IsPodKnownTerminated(uid), p.CouldHaveRunningContainers(uid), p.ShouldPodBeFinished(uid),
			p.IsPodTerminationRequested(uid), p.ShouldPodContainersBeTerminating(uid),
			p.ShouldPodRuntimeBeRemoved(uid), p.ShouldPodContentBeRemoved(uid))
		if fullname != "" {
			out += fmt.Sprintf("\nMirrorTerminating(%s)=%v", fullname, p.IsPodForMirrorPodTerminatingByFullName(fullname))
		}
	})
	return out
}

func (w *scriptWorld) queueState() string {
	var lines []string
	w.do("probe", func() {
		for _, e := range w.queue.Entries() {
			lines = append(lines, fmt.Sprintf("%s due at %v", e.UID, e.Due.Sub(w.s.Now())+w.s.Elapsed()))
		}
	})
	if len(lines) == 0 {
		return "empty"
	}
	return strings.Join(lines, "\n")
}

// loggedEvent logs the moment a kill's completion Event fires.
type loggedEvent struct {
	workers.Event
	w    *scriptWorld
	what string
}

func (e *loggedEvent) Fire() {
	e.w.logf("%s completed", e.what)
	e.Event.Fire()
}
