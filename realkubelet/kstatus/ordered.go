package kstatus

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"unsafe"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	kubetypes "k8s.io/kubernetes/pkg/kubelet/types"
)

// Upstream's syncBatch ranges over the manager's podStatuses map and then
// syncs the pods it picked one after the other, in that (random) map
// order. The syncs are not independent: two pods with one name share the
// API object, so whichever syncs first decides what the other's Get sees
// (pod a, done, deletes "web"; pod b then finds nothing and keeps its
// status — or b first finds a's object, takes it for a re-creation and
// drops its status). Go's map order would then reach the run.
//
// So a pass is run as one syncBatch per pod, in an order the driver gives:
// for each pod the manager's podStatuses field holds that pod alone while
// syncBatch runs, and the pod's outcome (kept, or dropped by
// deletePodStatus) is put back into the whole map. Per pod that is
// upstream's decision and sync; across pods it is upstream's pass with
// its map order fixed by the caller. One difference in syncBatch's
// periodic (all) pass is undone: its clean-up of apiStatusVersions drops
// the versions of every UID not in podStatuses, which with one pod there
// would also drop those of the pass's other pods; upstream's clean-up
// runs once, over the whole map, so only those versions are put back.

// statusFields are the manager's podStatuses and apiStatusVersions maps,
// settable.
type statusFields struct{ statuses, versions reflect.Value }

// fieldsOf reaches m's two maps, refusing on drift.
func (m *Manager) fieldsOf() (statusFields, error) {
	if err := checkManager(m.Manager); err != nil {
		return statusFields{}, err
	}
	v := reflect.ValueOf(m.Manager).Elem()
	var out [2]reflect.Value
	for i, name := range []string{"podStatuses", "apiStatusVersions"} {
		f := v.FieldByName(name)
		if !f.IsValid() || f.Kind() != reflect.Map || f.Type().Key().Kind() != reflect.String {
			return statusFields{}, fmt.Errorf("kstatus: the status manager has no map field %s keyed by a string kind any more", name)
		}
		out[i] = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
	}
	return statusFields{out[0], out[1]}, nil
}

// SyncOrdered is one pass of the manager's sync loop, syncBatch(all), with
// the pods synced in the order order puts them (given the UIDs holding a
// status, sorted); it returns how many pods it synced.
func (m *Manager) SyncOrdered(ctx context.Context, all bool, order func([]types.UID) []types.UID) int {
	m.countPass(all)
	fs, err := m.fieldsOf()
	if err != nil {
		panic(err)
	}
	ctx = klog.NewContext(ctx, m.logger)
	whole := fs.statuses.Interface() // the map itself: writes below reach it
	wholeV := reflect.ValueOf(whole)
	var uids []types.UID
	inPass := map[string]bool{}
	for _, k := range wholeV.MapKeys() {
		uids = append(uids, types.UID(k.String()))
		inPass[k.String()] = true
	}
	slices.Sort(uids)
	podToMirror, _ := m.Pods.GetUIDTranslations()
	if len(uids) == 0 {
		return syncBatchOf(m.Manager, ctx, all) // nothing to order; the periodic clean-up still runs
	}
	n := 0
	defer fs.statuses.Set(wholeV)
	for _, uid := range order(uids) {
		key := reflect.ValueOf(uid).Convert(wholeV.Type().Key())
		st := wholeV.MapIndex(key)
		if !st.IsValid() {
			continue
		}
		one := reflect.MakeMap(wholeV.Type())
		one.SetMapIndex(key, st)
		fs.statuses.Set(one)
		before := copyMap(fs.versions)
		n += syncBatchOf(m.Manager, ctx, all)
		if after := one.MapIndex(key); after.IsValid() {
			wholeV.SetMapIndex(key, after)
		} else {
			wholeV.SetMapIndex(key, reflect.Value{}) // deletePodStatus
		}
		own := string(uid)
		if mirror, ok := podToMirror[kubetypes.ResolvedPodUID(uid)]; ok {
			own = string(mirror)
		}
		for _, k := range before.MapKeys() {
			if inPass[k.String()] && k.String() != own && !fs.versions.MapIndex(k).IsValid() {
				fs.versions.SetMapIndex(k, before.MapIndex(k)) // the one-pod clean-up's, not upstream's
			}
		}
	}
	return n
}

func copyMap(m reflect.Value) reflect.Value {
	out := reflect.MakeMapWithSize(m.Type(), m.Len())
	for _, k := range m.MapKeys() {
		out.SetMapIndex(k, m.MapIndex(k))
	}
	return out
}

// SharedName lists the UIDs holding a status, sorted, if two of them
// have one name (the order of a pass can then matter), else nil.
func (m *Manager) SharedName() []types.UID {
	fs, err := m.fieldsOf()
	if err != nil {
		panic(err)
	}
	var uids []types.UID
	names := map[string]bool{}
	shared := false
	iter := fs.statuses.MapRange()
	for iter.Next() {
		uids = append(uids, types.UID(iter.Key().String()))
		st := iter.Value()
		name := st.FieldByName("podNamespace").String() + "/" + st.FieldByName("podName").String()
		shared = shared || names[name]
		names[name] = true
	}
	if !shared {
		return nil
	}
	slices.Sort(uids)
	return uids
}

// InOrder is SyncOrdered's order with first's UIDs first, in first's
// order (those holding a status), then the others in UID order.
func InOrder(first []types.UID) func([]types.UID) []types.UID {
	return func(uids []types.UID) []types.UID {
		var out []types.UID
		for _, u := range first {
			if slices.Contains(uids, u) {
				out = append(out, u)
			}
		}
		for _, u := range uids {
			if !slices.Contains(out, u) {
				out = append(out, u)
			}
		}
		return out
	}
}

// countPass counts a full pass (Asked.FullPasses), which reconciles the
// dropped statuses' versions.
func (m *Manager) countPass(all bool) {
	if all {
		m.fullPasses++
		clear(m.dropped)
	}
}
