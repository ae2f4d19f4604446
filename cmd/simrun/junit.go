package main

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"

	"github.com/podsim/podsim/run"
)

// JUnit XML, as CI systems read it: one test suite per family, one test
// case per seed, a failure element with the reproduce command for a
// failing seed. Times are left out so the file is a function of the
// results.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

// writeJUnit writes the results as JUnit XML, atomically.
func writeJUnit(path string, results []run.Result, strategy string) error {
	var doc junitSuites
	index := map[string]int{}
	for _, r := range results {
		i, ok := index[r.Family]
		if !ok {
			i = len(doc.Suites)
			index[r.Family] = i
			doc.Suites = append(doc.Suites, junitSuite{Name: "podsim/" + r.Family})
		}
		s := &doc.Suites[i]
		c := junitCase{Name: fmt.Sprintf("seed %d", r.Seed), Classname: "podsim." + r.Family}
		if r.Failed() {
			msg := failureMessage(r)
			c.Failure = &junitFailure{Message: msg, Body: msg + "\nreproduce: " + reproduce(r.Family, r.Seed, strategy, r.Mutant)}
			s.Failures++
		}
		s.Tests++
		s.Cases = append(s.Cases, c)
	}
	data, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".simrun-*.xml")
	if err != nil {
		return usagef("cannot write %s: %v", path, err)
	}
	if _, err := tmp.Write(append([]byte(xml.Header), append(data, '\n')...)); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return usagef("cannot write %s: %v", path, err)
	}
	tmp.Close()
	return os.Rename(tmp.Name(), path)
}
