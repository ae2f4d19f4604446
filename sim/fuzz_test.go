package sim

import "testing"

// FuzzSchedule lets the fuzzer's bytes choose the schedule of the contention
// program (Bytes source): every schedule must finish cleanly, and the same
// bytes must give the same trace. Run with
//
//	go test -run '^$' -fuzz FuzzSchedule ./sim
func FuzzSchedule(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{255, 0, 255, 0, 128, 64, 32})
	f.Fuzz(func(t *testing.T, data []byte) {
		h1, err := runProgram(Options{Source: NewBytes(data)}, contention)
		if err != nil {
			t.Fatal(err)
		}
		h2, _ := runProgram(Options{Source: NewBytes(data)}, contention)
		if h1 != h2 {
			t.Fatalf("same bytes, different traces: %s vs %s", h1, h2)
		}
	})
}
