package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

const indexedJobPath = "../../deploy/indexed-job.yaml"

// readIndexedJob decodes the manifest strictly (an unknown or misspelt
// field is an error) with the Kubernetes API types.
func readIndexedJob(data []byte) (*batchv1.Job, *corev1.PersistentVolumeClaim, error) {
	var job *batchv1.Job
	var pvc *corev1.PersistentVolumeClaim
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var meta struct{ Kind string }
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			return nil, nil, err
		}
		switch meta.Kind {
		case "Job":
			job = &batchv1.Job{}
			if err := yaml.UnmarshalStrict([]byte(doc), job); err != nil {
				return nil, nil, fmt.Errorf("Job: %w", err)
			}
		case "PersistentVolumeClaim":
			pvc = &corev1.PersistentVolumeClaim{}
			if err := yaml.UnmarshalStrict([]byte(doc), pvc); err != nil {
				return nil, nil, fmt.Errorf("PersistentVolumeClaim: %w", err)
			}
		default:
			return nil, nil, fmt.Errorf("unexpected kind %q", meta.Kind)
		}
	}
	if job == nil || pvc == nil {
		return nil, nil, fmt.Errorf("want a Job and a PersistentVolumeClaim")
	}
	return job, pvc, nil
}

// checkIndexedJob checks that the Job runs shard K/N in pod K of N, that
// its command parses with simrun's own flags for every K, and that it
// writes its results to the shared volume.
func checkIndexedJob(job *batchv1.Job, pvc *corev1.PersistentVolumeClaim) error {
	s := job.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion || s.Completions == nil ||
		s.Parallelism == nil || *s.Parallelism != *s.Completions {
		return fmt.Errorf("want an Indexed Job with parallelism = completions")
	}
	n := int(*s.Completions)
	pod := s.Template.Spec
	if len(pod.Containers) != 1 || len(pod.Volumes) != 1 || pod.Volumes[0].PersistentVolumeClaim == nil ||
		pod.Volumes[0].PersistentVolumeClaim.ClaimName != pvc.Name {
		return fmt.Errorf("want one container and the results volume claiming %s", pvc.Name)
	}
	c := pod.Containers[0]
	if len(c.Env) != 1 || c.Env[0].Name != "JOB_COMPLETION_INDEX" || c.Env[0].ValueFrom == nil || c.Env[0].ValueFrom.FieldRef == nil ||
		c.Env[0].ValueFrom.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
		return fmt.Errorf("want JOB_COMPLETION_INDEX from the completion-index annotation")
	}
	if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].Name != pod.Volumes[0].Name {
		return fmt.Errorf("want the results volume mounted")
	}
	for k := 0; k < n; k++ {
		args := make([]string, len(c.Args))
		for i, a := range c.Args {
			args[i] = strings.ReplaceAll(a, "$(JOB_COMPLETION_INDEX)", fmt.Sprint(k))
		}
		f, err := parseRunArgs(args)
		if err != nil {
			return fmt.Errorf("pod %d: %v: %w", k, args, err)
		}
		if sh, err := parseShard(f.shard); err != nil || sh != (shard{uint64(k), uint64(n)}) {
			return fmt.Errorf("pod %d runs --shard %q, want %d/%d", k, f.shard, k, n)
		}
		if want := filepath.Join(c.VolumeMounts[0].MountPath, fmt.Sprintf("shard-%d.json", k)); f.jsonPath != want {
			return fmt.Errorf("pod %d writes results to %q, want %s", k, f.jsonPath, want)
		}
	}
	return nil
}

// parseRunArgs parses args with simrun's command tree and run's flags.
func parseRunArgs(args []string) (runFlags, error) {
	var f runFlags
	root := newRoot(io.Discard, io.Discard)
	cmd, rest, err := root.Find(args)
	if err != nil || cmd.Name() != "run" {
		return f, fmt.Errorf("not a run command: %v", err)
	}
	if err := cmd.ParseFlags(rest); err != nil {
		return f, err
	}
	fl := cmd.Flags()
	f.shard, _ = fl.GetString("shard")
	f.jsonPath, _ = fl.GetString("json")
	if _, err := parseSeed(fl.Lookup("seeds").Value.String()); err != nil {
		return f, err
	}
	return f, nil
}

func TestIndexedJob(t *testing.T) {
	data, err := os.ReadFile(indexedJobPath)
	if err != nil {
		t.Fatal(err)
	}
	job, pvc, err := readIndexedJob(data)
	if err != nil {
		t.Fatalf("%s: %v", indexedJobPath, err)
	}
	if err := checkIndexedJob(job, pvc); err != nil {
		t.Fatalf("%s: %v", indexedJobPath, err)
	}
}

// TestIndexedJobChecksCatchMistakes: the checks above reject a misspelt
// field, a shard count that disagrees with completions, a flag simrun
// does not have, and results written off the volume.
func TestIndexedJobChecksCatchMistakes(t *testing.T) {
	data, err := os.ReadFile(indexedJobPath)
	if err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string][2]string{
		"misspelt field":    {"completionMode: Indexed", "completionsMode: Indexed"},
		"shards ≠ pods":     {"completions: 4", "completions: 3"},
		"unknown flag":      {"--parallel=2", "--paralel=2"},
		"results elsewhere": {"--json=/results/", "--json=/tmp/"},
		"fixed shard":       {"--shard=$(JOB_COMPLETION_INDEX)/4", "--shard=0/4"},
	} {
		bad := bytes.Replace(data, []byte(edit[0]), []byte(edit[1]), 1)
		if bytes.Equal(bad, data) {
			t.Fatalf("%s: %q is not in the manifest", name, edit[0])
		}
		job, pvc, err := readIndexedJob(bad)
		if err == nil {
			err = checkIndexedJob(job, pvc)
		}
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
