package shutdown

import (
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/kubelet/nodeshutdown/systemd"
)

// The two shapes of the manager's bus interface: v1.36's and v1.37's,
// which added Close (first in the name-sorted method table).
type (
	inhibiter136 interface {
		CurrentInhibitDelay() (time.Duration, error)
		InhibitShutdown() (systemd.InhibitLock, error)
		ReleaseInhibitLock(lock systemd.InhibitLock) error
		ReloadLogindConf() error
		MonitorShutdown(klog.Logger) (<-chan bool, error)
		OverrideInhibitDelay(inhibitDelayMax time.Duration) error
	}
	inhibiter137 interface {
		inhibiter136
		Close() error
	}
	// a kubelet whose interface grew a method the fake lacks
	inhibiterFlush interface {
		inhibiter136
		Flush(force bool) error
	}
)

// TestHandOver: handOver serves both shapes of the manager (systemDbus,
// or the manager's own newDBusConn), hands the fake over once, and
// refuses a manager whose interface the fake does not implement or whose
// fields changed type.
func TestHandOver(t *testing.T) {
	startMu.Lock()
	defer startMu.Unlock()
	saved := systemDbus
	defer func() { systemDbus = saved }()

	bus := newLogind()
	var m136 struct{ dbusCon inhibiter136 }
	if err := handOver(reflect.ValueOf(&m136).Elem(), bus); err != nil {
		t.Fatalf("v1.36 shape: %v", err)
	}
	call := *(*func() (inhibiter136, error))(unsafe.Pointer(&systemDbus))
	checkOnce(t, "systemDbus", func() (any, error) { return call() }, bus)

	var m137 struct {
		dbusCon     inhibiter137
		newDBusConn func() (inhibiter137, error)
	}
	systemDbus = saved
	if err := handOver(reflect.ValueOf(&m137).Elem(), bus); err != nil {
		t.Fatalf("v1.37 shape: %v", err)
	}
	if m137.newDBusConn == nil {
		t.Fatal("v1.37 shape: newDBusConn not set")
	}
	checkOnce(t, "newDBusConn", func() (any, error) { return m137.newDBusConn() }, bus)

	refused := []struct {
		name, want string
		impl       any
	}{
		{"a method the fake lacks", "Flush", &struct{ dbusCon inhibiterFlush }{}},
		{"newDBusConn of another type", "newDBusConn", &struct {
			dbusCon     inhibiter137
			newDBusConn func() (inhibiter137, bool)
		}{}},
		{"no dbusCon", "no interface field dbusCon", &struct{ conn inhibiter136 }{}},
	}
	for _, c := range refused {
		err := handOver(reflect.ValueOf(c.impl).Elem(), bus)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: handOver said %v, want an error naming %q", c.name, err, c.want)
		}
	}
}

// checkOnce: the first connection is the fake, the second an error.
func checkOnce(t *testing.T, name string, connect func() (any, error), bus *Logind) {
	t.Helper()
	got, err := connect()
	if err != nil || got != any(bus) {
		t.Errorf("%s: first connection %v, %v; want the fake", name, got, err)
	}
	if _, err := connect(); err == nil {
		t.Errorf("%s: a second connection got no error", name)
	}
}
