package kstatus

import (
	"context"
	"fmt"
	"reflect"
	"unsafe"

	"k8s.io/kubernetes/pkg/kubelet/status"
)

// syncBatch is pkg/kubelet/status.(*manager).syncBatch, pulled by name: a
// method's receiver is its first argument, and *manager is passed as a
// pointer, so unsafe.Pointer is call-compatible. TestSyncBatchSignature
// fails if upstream's receiver, parameters or result drift.
//
//go:linkname syncBatch k8s.io/kubernetes/pkg/kubelet/status.(*manager).syncBatch
func syncBatch(m unsafe.Pointer, ctx context.Context, all bool) int

// managerType is the dynamic type status.NewManager returns.
const managerPkg, managerName = "k8s.io/kubernetes/pkg/kubelet/status", "manager"

// checkManager refuses a status.Manager that is not upstream's *manager.
func checkManager(m status.Manager) error {
	t := reflect.TypeOf(m)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().PkgPath() != managerPkg || t.Elem().Name() != managerName {
		return fmt.Errorf("kstatus: status manager of type %v, want *%s.%s", t, managerPkg, managerName)
	}
	return nil
}

// syncBatchOf runs syncBatch on m, which must be upstream's *manager.
func syncBatchOf(m status.Manager, ctx context.Context, all bool) int {
	if err := checkManager(m); err != nil {
		panic(err)
	}
	// An interface holding a pointer keeps the pointer as its data word.
	data := (*[2]unsafe.Pointer)(unsafe.Pointer(&m))[1]
	return syncBatch(data, ctx, all)
}
