// Command pinresults prints a simrun --json file's per-seed results, one canonical JSON object
// per line, without run metadata: the part of the output a behaviour-preserving change must
// leave byte-identical. It reads both the single-document and the JSON Lines forms.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: pinresults FILE")
		os.Exit(2)
	}
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "pinresults:", err)
		os.Exit(2)
	}
	var doc struct {
		Results []json.RawMessage `json:"results"`
	}
	rows := []json.RawMessage{}
	if json.Unmarshal(data, &doc) == nil && doc.Results != nil {
		rows = doc.Results
	} else {
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 1<<20), 1<<26)
		for sc.Scan() {
			var probe map[string]any
			if json.Unmarshal(sc.Bytes(), &probe) != nil || probe["seed"] == nil {
				continue // a metadata or summary line
			}
			rows = append(rows, append(json.RawMessage(nil), sc.Bytes()...))
		}
	}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for _, r := range rows {
		var m map[string]any
		if err := json.Unmarshal(r, &m); err != nil {
			fmt.Fprintln(os.Stderr, "pinresults:", err)
			os.Exit(1)
		}
		out, _ := json.Marshal(m) // map keys are sorted: one canonical form
		fmt.Fprintln(w, string(out))
	}
}
