package shutdown

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"unsafe"

	"k8s.io/klog/v2"
)

// systemDbus is nodeshutdown.systemDbus, pulled by name. Its declared type
// is a stand-in: a func value is one pointer whatever its type, and the
// value handOver stores is made with upstream's own type,
// func() (dbusInhibiter, error) (TestLinknameSignature guards that type).
//
//go:linkname systemDbus k8s.io/kubernetes/pkg/kubelet/nodeshutdown.systemDbus
var systemDbus func()

// startMu serialises starts: systemDbus is a package variable upstream,
// and sweeps may run bubbles in parallel.
var startMu sync.Mutex

// handOver makes the next bus connection of the manager impl (a
// nodeshutdown.managerImpl, or a struct of its shape in the tests) return
// bus, once; a second connection gets an error.
func handOver(impl reflect.Value, bus any) error {
	handed := false
	return handOverEach(impl, reflect.TypeOf(bus), func() (any, error) {
		if handed {
			return nil, errors.New("podsim: the fake logind was handed over already")
		}
		handed = true
		return bus, nil
	})
}

// handOverEach makes every bus connection of the manager impl return what
// next returns: a fake of type fake, or an error.
//
// The fake goes in as a value of the kubelet's own unexported interface,
// the type of impl's dbusCon field: an interface value carries a method
// table laid out for its interface type, so a value of any other interface
// (a restated one) would be called at the wrong methods the day upstream's
// method set changes (v1.37 added Close). reflect builds the value and the
// func returning it for whichever kubelet this binary was built against,
// and refuses a fake that lacks a method of that interface.
//
// Where impl has newDBusConn (kubelets from v1.37 copy systemDbus into the
// manager at NewManager, and start calls the copy), that field gets the
// func; otherwise systemDbus does, and the caller holds startMu until
// start has called it.
func handOverEach(impl reflect.Value, fake reflect.Type, next func() (any, error)) error {
	iface, err := fits(impl, fake)
	if err != nil {
		return err
	}
	errType := reflect.TypeFor[error]()
	fnType := reflect.FuncOf(nil, []reflect.Type{iface, errType}, false)
	fn := reflect.MakeFunc(fnType, func([]reflect.Value) []reflect.Value {
		v, errv := reflect.New(iface).Elem(), reflect.New(errType).Elem()
		if got, err := next(); err != nil {
			errv.Set(reflect.ValueOf(err))
		} else {
			v.Set(reflect.ValueOf(got))
		}
		return []reflect.Value{v, errv}
	})
	target := unsafe.Pointer(&systemDbus)
	if f, ok := impl.Type().FieldByName("newDBusConn"); ok {
		if f.Type != fnType {
			return fmt.Errorf("%v.newDBusConn is %v, not %v: the node shutdown manager changed shape", impl.Type(), f.Type, fnType)
		}
		target = unsafe.Pointer(impl.Field(f.Index[0]).UnsafeAddr())
	}
	reflect.NewAt(fnType, target).Elem().Set(fn)
	return nil
}

// fits is the kubelet's D-Bus interface, the type of impl's dbusCon
// field, or an error if impl has none or fake lacks one of its methods.
func fits(impl reflect.Value, fake reflect.Type) (reflect.Type, error) {
	con, ok := impl.Type().FieldByName("dbusCon")
	if !ok || con.Type.Kind() != reflect.Interface {
		return nil, fmt.Errorf("%v has no interface field dbusCon: the node shutdown manager changed shape", impl.Type())
	}
	if !fake.Implements(con.Type) {
		return nil, fmt.Errorf("the fake logind (%v) lacks a method of the kubelet's %v: %s", fake, con.Type, missing(fake, con.Type))
	}
	return con.Type, nil
}

// FakeFits reports whether the fake logind has every method of the
// D-Bus interface of the kubelet this binary was built against (realrun
// runs it, through the guard test TestFakeLogindFits, before anything else
// on a tree): a tree whose manager asks logind for more is refused in one
// line instead of failing its first shutdown.
func FakeFits() error {
	real := newReal(Config{Groups: []Group{{Priority: 0, Grace: 1}}, Logger: klog.Background()})
	if _, err := managerPointer(real); err != nil {
		return err
	}
	_, err := fits(reflect.ValueOf(real).Elem(), reflect.TypeFor[*Logind]())
	return err
}

// ownsDBusConn reports whether the manager impl has its own newDBusConn
// (kubelets from v1.37), so that its connections need not go through the
// package variable systemDbus, one start at a time.
func ownsDBusConn(impl reflect.Value) bool {
	_, ok := impl.Type().FieldByName("newDBusConn")
	return ok
}

// missing names the methods of iface that t lacks or has with another
// signature.
func missing(t, iface reflect.Type) string {
	var out []string
	for i := range iface.NumMethod() {
		want := iface.Method(i)
		if got, ok := t.MethodByName(want.Name); !ok || !sameMethod(got.Type, want.Type) {
			out = append(out, want.Name+" "+want.Type.String())
		}
	}
	return fmt.Sprint(out)
}

// sameMethod reports whether method type m (its receiver first) has
// interface method type f's parameters and results.
func sameMethod(m, f reflect.Type) bool {
	if m.NumIn() != f.NumIn()+1 || m.NumOut() != f.NumOut() || m.IsVariadic() != f.IsVariadic() {
		return false
	}
	for i := range f.NumIn() {
		if m.In(i+1) != f.In(i) {
			return false
		}
	}
	for i := range f.NumOut() {
		if m.Out(i) != f.Out(i) {
			return false
		}
	}
	return true
}
