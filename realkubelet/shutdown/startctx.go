//go:build podsim_shutdownctx

package shutdown

// startEndsWithContext: the kubelet's node shutdown manager ends Start's
// reconnect loop when its context ends (v1.37 and later), so Config.Restart
// can run it. realrun builds such a tree with this tag.
const startEndsWithContext = true
