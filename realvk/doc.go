// Package realvk runs podsim's virtual-kubelet scenarios against the real
// node.PodController of github.com/virtual-kubelet/virtual-kubelet v1.14.1,
// unmodified, inside a testing/synctest bubble.
package realvk

import _ "github.com/virtual-kubelet/virtual-kubelet/node"
