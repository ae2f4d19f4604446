package check

import (
	"strings"

	"github.com/podsim/podsim/model/ops"
)

// DescribeOperation renders a porcupine operation of this package's
// porcupine models as a trace line: ops.Describe for an operation, and
// a chain (PorcupineMarkedModel's run of operations linearized back to
// back) as its operations in order. It is the models' DescribeOperation,
// for renderings of their linearizations.
func DescribeOperation(in, out any) string {
	if run, ok := in.(chain); ok {
		return describeChain(run)
	}
	return ops.Describe(in.(ops.Input), asOutput(out))
}

// describeChain renders a chain as its operations in order.
func describeChain(run chain) string {
	parts := make([]string, len(run))
	for i := range run {
		parts[i] = ops.Describe(boxed(&run[i].op))
	}
	return strings.Join(parts, "; ")
}
