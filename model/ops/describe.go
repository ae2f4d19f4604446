package ops

import (
	"fmt"
	"strings"
)

// Describe renders an operation as a trace line, e.g.
// "worker/a SyncTerminatingPod begin v3 grace=5".
func Describe(in Input, out Output) string {
	switch in := in.(type) {
	case UpdatePod:
		return "client UpdatePod " + describeUpdate(in)
	case SyncKnownPods:
		known, _ := out.(KnownPods)
		return fmt.Sprintf("housekeeping SyncKnownPods [%s] → %s", strings.Join(in.Desired, " "), DescribeKnown(known))
	case Query:
		subject := in.UID
		if in.Kind == IsPodForMirrorPodTerminatingByFullName {
			subject = in.FullName
		}
		return fmt.Sprintf("query %s(%s) → %v", in.Kind, subject, out)
	case KillPodNowDone:
		return fmt.Sprintf("killPodNow %s completion#%d → completed=%v", in.UID, in.ID, out)
	case CompletionFired:
		return fmt.Sprintf("kill %s completion#%d fired", in.UID, in.ID)
	case CancelFired:
		return fmt.Sprintf("cancel/%s fired", in.UID)
	case SyncBegin:
		return "worker/" + in.UID + " " + describeBegin(in)
	case WorkerStep:
		return "worker/" + in.UID + " step"
	case StatusReadFailed:
		return "worker/" + in.UID + " status read failed"
	case SyncEnd:
		line := fmt.Sprintf("worker/%s %s end %s%s", in.UID, in.Fn, in.Outcome, in.Err)
		if in.IsTerminal {
			line += " terminal"
		}
		return line
	}
	return fmt.Sprintf("%#v → %v", in, out)
}

func describeUpdate(u UpdatePod) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", u.Pod.UID, u.Type)
	if u.RuntimeOnly {
		b.WriteString(" runtime-pod")
	} else {
		b.WriteString(" " + describePod(u.Pod))
	}
	if u.Kill.Evict {
		b.WriteString(" evict")
	}
	if u.Kill.HasGraceOverride {
		fmt.Fprintf(&b, " override=%d", u.Kill.GraceOverride)
	}
	if u.Kill.CompletionID != 0 {
		fmt.Fprintf(&b, " completion#%d", u.Kill.CompletionID)
	}
	if u.Cache != CacheUnknown {
		b.WriteString([...]string{"", " cache=idle", " cache=busy"}[u.Cache])
	}
	return b.String()
}

func describePod(p Pod) string {
	parts := []string{fmt.Sprintf("v%d", p.Version)}
	if p.Static {
		parts = append(parts, "static:"+p.FullName())
	}
	if p.DeletionTimestamp {
		parts = append(parts, "deleted")
	}
	if p.HasDeletionGrace {
		parts = append(parts, fmt.Sprintf("deletionGrace=%d", p.DeletionGrace))
	}
	if p.Phase.Terminal() {
		parts = append(parts, p.Phase.String())
	}
	return strings.Join(parts, " ")
}

func describeBegin(b SyncBegin) string {
	switch b.Fn {
	case SyncPod:
		return fmt.Sprintf("SyncPod begin %s v%d", b.Type, b.Version)
	case SyncTerminatingPod:
		return fmt.Sprintf("SyncTerminatingPod begin v%d grace=%d", b.Version, b.Grace)
	case SyncTerminatingRuntimePod:
		return "SyncTerminatingRuntimePod begin"
	}
	return fmt.Sprintf("%s begin v%d", b.Fn, b.Version)
}

// DescribeKnown renders a SyncKnownPods result, e.g. "{a:sync config, b:terminated orphan}".
func DescribeKnown(k KnownPods) string {
	if len(k) == 0 {
		return "{}"
	}
	parts := make([]string, len(k))
	for i, p := range k {
		s := p.UID + ":" + p.State.String()
		for _, f := range []struct {
			on   bool
			name string
		}{{p.Orphan, "orphan"}, {p.HasConfig, "config"}, {p.Static, "static"}} {
			if f.on {
				s += " " + f.name
			}
		}
		parts[i] = s
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
