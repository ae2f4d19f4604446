// Package deploy holds what runs simrun sharded on Kubernetes: the image
// (Dockerfile) and an Indexed Job (indexed-job.yaml) whose pods print their
// shard's results to stdout, so `kubectl logs` and `simrun merge` collect a
// sweep without a shared volume. It has no Go code of its own; its test
// decodes the manifest strictly with the batch/v1 types, checks the rules
// the manifest's header states, and runs each pod's shell script against a
// freshly built simrun.
package deploy
