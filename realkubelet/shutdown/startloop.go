//go:build !podsim_shutdownctx

package shutdown

// startEndsWithContext: without the tag podsim_shutdownctx, the kubelet's
// Start is taken to reconnect forever (as the pinned v1.36 does), so
// Config.Restart is refused (RestartSupported).
const startEndsWithContext = false
