package podworkers

import (
	"fmt"
	"reflect"
	"unsafe"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/kubelet"
)

// The hook podWorkers.workerChannelFn is upstream's own test hook
// ("exposed for testing to allow unit tests to impose delays in channel
// communication"). The field is unexported, so it is set through reflect
// and unsafe; SetWorkerChannelFn checks its name and exact type first and
// refuses on drift.

// WorkerChannelFn is the hook's type in v1.36.3.
type WorkerChannelFn = func(uid types.UID, in chan struct{}) (out <-chan struct{})

// SetWorkerChannelFn sets pw's workerChannelFn hook to fn: every worker
// goroutine then reads the channel fn returns for its own.
func SetWorkerChannelFn(pw kubelet.PodWorkers, fn WorkerChannelFn) error {
	v := reflect.ValueOf(pw)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("realkubelet: PodWorkers is a %v, not a pointer to the podWorkers struct", v.Type())
	}
	f := v.Elem().FieldByName("workerChannelFn")
	if !f.IsValid() {
		return fmt.Errorf("realkubelet: podWorkers has no field workerChannelFn any more")
	}
	if want := reflect.TypeOf(fn); f.Type() != want {
		return fmt.Errorf("realkubelet: podWorkers.workerChannelFn is a %v, want %v", f.Type(), want)
	}
	reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Set(reflect.ValueOf(fn))
	return nil
}
