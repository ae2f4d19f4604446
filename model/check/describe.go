package check

import (
	"strings"

	"github.com/podsim/podsim/model"
)

// DescribeOperation renders a porcupine operation of this package's
// porcupine models as a trace line: model.Describe for an operation, and
// a chain (PorcupineMarkedModel's run of operations linearized back to
// back) as its operations in order. It is the models' DescribeOperation,
// for renderings of their linearizations.
func DescribeOperation(in, out any) string {
	if run, ok := in.(chain); ok {
		return describeChain(run)
	}
	return model.Describe(in.(model.Input), asOutput(out))
}

// describeChain renders a chain as its operations in order.
func describeChain(run chain) string {
	parts := make([]string, len(run))
	for i := range run {
		parts[i] = model.Describe(boxed(&run[i].op))
	}
	return strings.Join(parts, "; ")
}
