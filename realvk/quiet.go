package realvk

import "context"

// quietContext is the controller's base context. virtual-kubelet logs
// through its log package, whose default logger discards, and traces
// through a no-op tracer: nothing reaches stderr.
func quietContext() context.Context { return context.Background() }
