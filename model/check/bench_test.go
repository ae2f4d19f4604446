package check

import (
	"fmt"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/podsim/podsim/internal/cputime"
	"github.com/podsim/podsim/model/ops"
)

// Scaling benchmarks: histories recorded with markers (newWitnessGen) of
// 100 to 10,000 observed operations over 1 to 50 pods, checked three ways
// with identical sub-benchmark names so benchstat lines them up:
//
//	BenchmarkReplayScaling/…/witness   Replay with the markers (witness mode)
//	BenchmarkReplayScaling/…/closure   Replay without them (hidden steps explored)
//	BenchmarkCheckScaling/…            porcupine (which ignores markers)
//
// ops counts observed operations; the markers come on top (markers/op). The
// cpu-ns/op metric is the process's CPU time (porcupine checks partitions in
// parallel, and the machine may be shared).

var scalingSizes = []struct{ ops, pods int }{
	{100, 1}, {100, 20}, {1000, 1}, {1000, 5}, {1000, 20}, {1000, 50}, {10000, 20}, {10000, 50},
}

func scalingHistory(ops, pods int) []ops.Op {
	return newWitnessGen(uint64(ops*100+pods), pods).run(ops)
}

func BenchmarkReplayScaling(b *testing.B) {
	for _, size := range scalingSizes {
		list := scalingHistory(size.ops, size.pods)
		bare := withoutMarkers(list)
		b.Run(fmt.Sprintf("ops=%d/pods=%d/witness", size.ops, size.pods), func(b *testing.B) {
			benchReplay(b, list)
			b.ReportMetric(float64(len(list)-len(bare))/float64(len(bare)), "markers/op")
		})
		b.Run(fmt.Sprintf("ops=%d/pods=%d/closure", size.ops, size.pods), func(b *testing.B) { benchReplay(b, bare) })
	}
}

func BenchmarkCheckScaling(b *testing.B) {
	for _, size := range scalingSizes {
		history := toPorcupine(seq(withoutMarkers(scalingHistory(size.ops, size.pods))...))
		b.Run(fmt.Sprintf("ops=%d/pods=%d", size.ops, size.pods), func(b *testing.B) { benchCheck(b, history) })
	}
}

// BenchmarkReplayWitness is the witness path at the size of BenchmarkCheck.
func BenchmarkReplayWitness(b *testing.B) { benchReplay(b, scalingHistory(1000, 20)) }

func benchReplay(b *testing.B, list []ops.Op) {
	b.ReportAllocs()
	start := cputime.Process()
	for b.Loop() {
		if ok, at, why := Replay(list); !ok {
			b.Fatalf("rejected at %d: %s", at, why)
		}
	}
	reportCPU(b, start)
}

func benchCheck(b *testing.B, history []porcupine.Operation) {
	b.ReportAllocs()
	start := cputime.Process()
	for b.Loop() {
		if !porcupine.CheckOperations(PorcupineModel(), history) {
			b.Fatal("rejected")
		}
	}
	reportCPU(b, start)
}

func reportCPU(b *testing.B, start time.Duration) {
	if used := cputime.Process() - start; used > 0 {
		b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkCheckMarkedScaling is BenchmarkCheckScaling with the markers
// kept, through PorcupineMarkedModel (the oracle's porcupine path).
func BenchmarkCheckMarkedScaling(b *testing.B) {
	for _, size := range scalingSizes {
		history := toPorcupine(seq(scalingHistory(size.ops, size.pods)...))
		b.Run(fmt.Sprintf("ops=%d/pods=%d", size.ops, size.pods), func(b *testing.B) {
			b.ReportAllocs()
			start := cputime.Process()
			for b.Loop() {
				if res, _ := CheckMarked(history, 0); res != porcupine.Ok {
					b.Fatal(res)
				}
			}
			reportCPU(b, start)
		})
	}
}
