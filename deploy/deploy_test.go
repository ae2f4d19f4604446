package deploy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/podsim/podsim/internal/gobin"
)

const manifestPath = "indexed-job.yaml"

// readJob decodes the manifest strictly: exactly one object, a batch/v1
// Job, and an unknown or misspelt field anywhere is an error.
func readJob(data []byte) (*batchv1.Job, error) {
	if docs := regexp.MustCompile(`(?m)^---\s*$`).Split(string(data), -1); len(docs) != 1 {
		return nil, fmt.Errorf("want one object (the Job), got %d YAML documents", len(docs))
	}
	job := &batchv1.Job{}
	if err := yaml.UnmarshalStrict(data, job); err != nil {
		return nil, err
	}
	if job.APIVersion != "batch/v1" || job.Kind != "Job" {
		return nil, fmt.Errorf("got %s %s, want batch/v1 Job", job.APIVersion, job.Kind)
	}
	return job, nil
}

// shardScript is what a pod runs: the one argument of `sh -c`.
func shardScript(job *batchv1.Job) (corev1.Container, string, error) {
	pod := job.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		return corev1.Container{}, "", fmt.Errorf("got %d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]
	if len(c.Command) != 2 || c.Command[0] != "/bin/sh" || c.Command[1] != "-c" || len(c.Args) != 1 {
		return c, "", fmt.Errorf("got command %q args %q, want /bin/sh -c SCRIPT", c.Command, c.Args)
	}
	return c, c.Args[0], nil
}

var (
	shardFlag = regexp.MustCompile(`--shard="?\$\{?JOB_COMPLETION_INDEX\}?/([0-9]+)"?(\s|$)`)
	jsonFlag  = regexp.MustCompile(`--json=(\S+)`)
)

// checkJob checks the rules the manifest's header states. Each check has a
// mistake in TestJobChecksCatchMistakes that only it rejects.
func checkJob(job *batchv1.Job) error {
	s := job.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		return errors.New("want completionMode: Indexed (each pod needs its own shard number)")
	}
	if s.Completions == nil || s.Parallelism == nil || *s.Parallelism < 1 || *s.Parallelism > *s.Completions {
		return errors.New("want completions set and 1 <= parallelism <= completions")
	}
	pod := s.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever {
		return errors.New("want restartPolicy: Never (a failing shard is a finding, not a crash to restart)")
	}
	if err := checkNoRetryOnFinding(s); err != nil {
		return err
	}
	if err := checkNonRoot(pod); err != nil {
		return err
	}
	c, script, err := shardScript(job)
	if err != nil {
		return err
	}
	m := shardFlag.FindStringSubmatch(script)
	if m == nil {
		return fmt.Errorf("the script does not run --shard=$JOB_COMPLETION_INDEX/N:\n%s", script)
	}
	if n, _ := strconv.Atoi(m[1]); int32(n) != *s.Completions {
		return fmt.Errorf("--shard K/%d but completions: %d: the shards would not cover the run", n, *s.Completions)
	}
	return checkResultsOnStdout(pod, c, script)
}

// checkNoRetryOnFinding: exit 1 (a seed failed) and 2 (bad usage) fail the
// index instead of retrying it.
func checkNoRetryOnFinding(s batchv1.JobSpec) error {
	if s.PodFailurePolicy != nil {
		for _, r := range s.PodFailurePolicy.Rules {
			if r.Action == batchv1.PodFailurePolicyActionFailIndex && r.OnExitCodes != nil &&
				r.OnExitCodes.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn &&
				fmt.Sprint(r.OnExitCodes.Values) == "[1 2]" {
				return nil
			}
		}
	}
	return errors.New("want a podFailurePolicy rule: FailIndex on exit codes [1, 2]")
}

// checkNonRoot: the pod runs as a non-root user and group, owns its
// volumes (fsGroup), and no container undoes that.
func checkNonRoot(pod corev1.PodSpec) error {
	sc := pod.SecurityContext
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser == 0 ||
		sc.FSGroup == nil || *sc.FSGroup == 0 {
		return errors.New("want the pod's securityContext: runAsNonRoot: true, a non-zero runAsUser and fsGroup")
	}
	for _, c := range pod.Containers {
		csc := c.SecurityContext
		if csc == nil || csc.AllowPrivilegeEscalation == nil || *csc.AllowPrivilegeEscalation {
			return fmt.Errorf("container %s: want allowPrivilegeEscalation: false", c.Name)
		}
		if (csc.RunAsUser != nil && *csc.RunAsUser == 0) || (csc.RunAsNonRoot != nil && !*csc.RunAsNonRoot) ||
			(csc.Privileged != nil && *csc.Privileged) {
			return fmt.Errorf("container %s undoes the pod's non-root settings", c.Name)
		}
	}
	return nil
}

// checkResultsOnStdout: the results go to a file in a writable emptyDir
// (no shared volume, so nothing ReadWriteMany), simrun's own output goes
// to another file, and the script prints the results file.
func checkResultsOnStdout(pod corev1.PodSpec, c corev1.Container, script string) error {
	if len(pod.Volumes) != 1 || pod.Volumes[0].EmptyDir == nil {
		return errors.New("want one volume, an emptyDir: results leave through the log, not a shared volume")
	}
	if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].Name != pod.Volumes[0].Name || c.VolumeMounts[0].ReadOnly {
		return errors.New("want the emptyDir mounted writable")
	}
	dir := c.VolumeMounts[0].MountPath
	m := jsonFlag.FindStringSubmatch(script)
	if m == nil || filepath.Dir(m[1]) != dir {
		return fmt.Errorf("want --json=%s/FILE (the writable volume)", dir)
	}
	if !regexp.MustCompile(`(?m)^\s*simrun run .*(\\\n.*)*>\s*` + regexp.QuoteMeta(dir) + `/\S+ 2>&1\s*$`).MatchString(script) {
		return fmt.Errorf("want simrun's own output redirected to a file under %s (stdout carries only the results)", dir)
	}
	if !regexp.MustCompile(`(?m)^\s*cat ` + regexp.QuoteMeta(m[1]) + `\b`).MatchString(script) {
		return fmt.Errorf("want the script to print %s (cat): the pod's log is the shard's result file", m[1])
	}
	return nil
}

func TestIndexedJob(t *testing.T) {
	data, err := os.ReadFile(manifestPath)
	if err != nil {
		t.Fatal(err)
	}
	job, err := readJob(data)
	if err == nil {
		err = checkJob(job)
	}
	if err != nil {
		t.Fatalf("%s: %v", manifestPath, err)
	}
}

// TestJobChecksCatchMistakes: every rule above rejects the manifest with
// one mistake in it, and says why.
func TestJobChecksCatchMistakes(t *testing.T) {
	data, err := os.ReadFile(manifestPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, old, new, want string }{
		{"misspelt field", "completionMode: Indexed", "completionsMode: Indexed", "unknown field"},
		{"wrong group", "apiVersion: batch/v1", "apiVersion: batch/v1beta1", "want batch/v1 Job"},
		{"a second object", "apiVersion: batch/v1", "apiVersion: v1\nkind: Namespace\n---\napiVersion: batch/v1", "want one object"},
		{"not indexed", "completionMode: Indexed", "completionMode: NonIndexed", "Indexed"},
		{"more pods than shards", "parallelism: 4", "parallelism: 17", "parallelism <= completions"},
		{"shards ≠ completions", `JOB_COMPLETION_INDEX/16"`, `JOB_COMPLETION_INDEX/8"`, "would not cover"},
		{"fixed shard", `--shard="$JOB_COMPLETION_INDEX/16"`, `--shard="0/16"`, "--shard=$JOB_COMPLETION_INDEX/N"},
		{"restarted in place", "restartPolicy: Never", "restartPolicy: OnFailure", "restartPolicy: Never"},
		{"findings retried", "values: [1, 2]", "values: [2]", "FailIndex"},
		{"root allowed", "runAsNonRoot: true", "runAsNonRoot: false", "runAsNonRoot"},
		{"root user", "runAsUser: 65532", "runAsUser: 0", "runAsUser"},
		{"no fsGroup", "fsGroup: 65532", "supplementalGroups: [65532]", "fsGroup"},
		{"escalation", "allowPrivilegeEscalation: false", "allowPrivilegeEscalation: true", "allowPrivilegeEscalation"},
		{"container as root", "readOnlyRootFilesystem: true", "readOnlyRootFilesystem: true\n            runAsUser: 0", "undoes"},
		{"shared volume", "emptyDir:\n            sizeLimit: 256Mi", "persistentVolumeClaim:\n            claimName: podsim-results", "emptyDir"},
		{"read-only results", "mountPath: /results", "mountPath: /results\n              readOnly: true", "writable"},
		{"results elsewhere", "--json=/results/shard.json", "--json=/tmp/shard.json", "--json=/results/FILE"},
		{"table on stdout", " >/results/run.log 2>&1", "", "redirected"},
		{"results not printed", "cat /results/shard.json", "ls /results/shard.json", "print /results/shard.json"},
	} {
		bad := strings.Replace(string(data), tc.old, tc.new, 1)
		if bad == string(data) {
			t.Fatalf("%s: %q is not in the manifest", tc.name, tc.old)
		}
		job, err := readJob([]byte(bad))
		if err == nil {
			err = checkJob(job)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error mentioning %q", tc.name, err, tc.want)
		}
	}
}

// TestShardScriptsMerge runs every pod's script as the container would
// (sh -c, JOB_COMPLETION_INDEX set, simrun on PATH), with the results
// directory and termination log moved to a temporary directory and 16
// seeds per family instead of 20,000 (one per shard and family); each script's stdout is what
// `kubectl logs` returns. `simrun merge` must accept the N logs, and their
// union must be exactly the seeds of the unsharded run.
func TestShardScriptsMerge(t *testing.T) {
	if testing.Short() {
		t.Skip("builds simrun and runs every shard's script; skipped with -short")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	data, err := os.ReadFile(manifestPath)
	if err != nil {
		t.Fatal(err)
	}
	job, err := readJob(data)
	if err != nil {
		t.Fatal(err)
	}
	_, script, err := shardScript(job)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	// The cached simrun cmd/simrun's tests run too (no second link), under
	// the name the script calls.
	built, err := gobin.Built("github.com/podsim/podsim/cmd/simrun")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(built, filepath.Join(bin, "simrun")); err != nil {
		t.Fatal(err)
	}
	for _, r := range [][2]string{{"--seeds=20000", "--seeds=16"}, {"/dev/termination-log", tmp + "/termination-log"}} {
		if !strings.Contains(script, r[0]) {
			t.Fatalf("the script has no %q to replace", r[0])
		}
		script = strings.ReplaceAll(script, r[0], r[1])
	}
	n := int(*job.Spec.Completions)
	var logs []string
	for k := 0; k < n; k++ {
		results := filepath.Join(tmp, fmt.Sprint("results-", k))
		if err := os.Mkdir(results, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(sh, "-c", strings.ReplaceAll(script, "/results", results))
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
			fmt.Sprint("JOB_COMPLETION_INDEX=", k))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("shard %d: %v\nstderr: %s\nstdout: %.500s", k, err, &stderr, out)
		}
		log := filepath.Join(tmp, fmt.Sprintf("shard-%d.json", k))
		if err := os.WriteFile(log, out, 0o644); err != nil {
			t.Fatal(err)
		}
		logs = append(logs, log)
	}
	if msg, err := os.ReadFile(filepath.Join(tmp, "termination-log")); err != nil || len(msg) == 0 {
		t.Errorf("no termination message written (%v)", err)
	}
	simrun := filepath.Join(bin, "simrun")
	merged := filepath.Join(tmp, "all.json")
	if out, err := exec.Command(simrun, append([]string{"merge", "--json", merged}, logs...)...).CombinedOutput(); err != nil {
		t.Fatalf("simrun merge of the %d pod logs: %v\n%s", n, err, out)
	}
	whole := filepath.Join(tmp, "whole.json")
	if out, err := exec.Command(simrun, "run", "--seeds=16", "--json="+whole).CombinedOutput(); err != nil {
		t.Fatalf("unsharded run: %v\n%s", err, out)
	}
	got, want := seedsIn(t, merged), seedsIn(t, whole)
	if len(want) == 0 || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("merged shards hold %d seeds, the unsharded run %d:\n got %v\nwant %v", len(got), len(want), got, want)
	}
}

// seedsIn lists the scenario/seed of every result in a --json file: one
// JSON document with a "results" list, or JSON Lines with one result per
// line (lines without a scenario, such as run and end records, skipped).
func seedsIn(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		Scenario string
		Seed     uint64
	}
	var doc struct{ Results []result }
	if err := json.Unmarshal(data, &doc); err != nil {
		doc.Results = nil
		for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			var r result
			if err := json.Unmarshal(line, &r); err != nil {
				t.Fatalf("%s:%d: neither a JSON document nor JSON Lines: %v", path, i+1, err)
			}
			if r.Scenario != "" {
				doc.Results = append(doc.Results, r)
			}
		}
	}
	var out []string
	for _, r := range doc.Results {
		out = append(out, fmt.Sprint(r.Scenario, "/", r.Seed))
	}
	return out
}
