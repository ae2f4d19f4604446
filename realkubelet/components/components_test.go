package components

import (
	"testing"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]string{"all": "status,shutdown,eviction,restart", "none": "none", "restart": "restart",
		"status,restart": "status,restart",
		"status":         "status", "eviction,status": "status,eviction", "shutdown": "shutdown"} {
		got, err := Parse(in)
		if err != nil || got.String() != want {
			t.Errorf("Parse(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	if (Set{}).String() != "status,shutdown,eviction,restart" {
		t.Error("the zero value must run every component")
	}
	for _, bad := range []string{"statu", "status,,eviction", "kubelet"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}
