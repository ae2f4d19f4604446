package main

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/podsim/podsim/run"
)

// JUnit XML, as CI systems read it: one test suite per family, one test
// case per seed (its wall time in `time`), a failure element with the
// reproduce command for a failing seed, and the run's metadata as each
// suite's properties. A suite's counts come before its cases, so the
// cases are streamed to a hidden part file beside the output (memory stays
// bounded) and the file is assembled when the run ends; the part file is
// removed on every exit.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Tests   int          `xml:"tests,attr"`
	Fails   int          `xml:"failures,attr"`
	Time    string       `xml:"time,attr"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	XMLName   xml.Name      `xml:"testcase"`
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

// junitSpan is one suite's place in the part file.
type junitSpan struct {
	name            string
	tests, failures int
	time            time.Duration
	from, to        int64
}

// junitWriter streams test cases; not safe for concurrent use.
type junitWriter struct {
	path  string
	part  *os.File
	w     *bufio.Writer
	off   int64
	spans []junitSpan
	err   error
}

func openJUnit(path string) (*junitWriter, error) {
	part, err := createTemp(path, ".part")
	if err != nil {
		return nil, usagef("cannot write %s: %v", path, err)
	}
	return &junitWriter{path: path, part: part, w: bufio.NewWriterSize(part, 64<<10)}, nil
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.6f", d.Seconds()) }

// add writes one seed's test case.
func (j *junitWriter) add(r run.Result, strategy string, took time.Duration) {
	if n := len(j.spans); n == 0 || j.spans[n-1].name != r.Family {
		j.spans = append(j.spans, junitSpan{name: r.Family, from: j.off, to: j.off})
	}
	s := &j.spans[len(j.spans)-1]
	c := junitCase{Name: fmt.Sprintf("seed %d", r.Seed), Classname: "podsim." + r.Family, Time: seconds(took)}
	if r.Failed() {
		msg := failureMessage(r)
		c.Failure = &junitFailure{Message: msg, Body: msg + "\nreproduce: " + reproduceResult(r, strategy) + observableArg(r.ObservableOnly)}
		s.failures++
	}
	s.tests++
	s.time += took
	data, err := xml.MarshalIndent(c, "    ", "  ")
	if err == nil {
		_, err = j.w.Write(append(data, '\n'))
	}
	if err != nil && j.err == nil {
		j.err = usagef("cannot write %s: %v", j.path, err)
	}
	j.off += int64(len(data) + 1)
	s.to = j.off
}

// close assembles the file from the part file, with props as each
// suite's properties, and removes the part file.
func (j *junitWriter) close(props []junitProperty) error {
	defer os.Remove(j.part.Name())
	defer j.part.Close()
	if j.err != nil {
		return j.err
	}
	if err := j.w.Flush(); err != nil {
		return usagef("cannot write %s: %v", j.path, err)
	}
	out, err := createFile(j.path)
	if err != nil {
		return usagef("cannot write %s: %v", j.path, err)
	}
	w := bufio.NewWriterSize(out, 64<<10)
	err = j.assemble(w, props)
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return usagef("cannot write %s: %v", j.path, err)
	}
	return nil
}

func (j *junitWriter) assemble(w io.Writer, props []junitProperty) error {
	var tests, failures int
	var total time.Duration
	for _, s := range j.spans {
		tests, failures, total = tests+s.tests, failures+s.failures, total+s.time
	}
	fmt.Fprintf(w, "%s<testsuites tests=\"%d\" failures=\"%d\" time=\"%s\">\n", xml.Header, tests, failures, seconds(total))
	for _, s := range j.spans {
		fmt.Fprintf(w, "  <testsuite name=\"%s\" tests=\"%d\" failures=\"%d\" time=\"%s\">\n    <properties>\n",
			xmlAttr("podsim/"+s.name), s.tests, s.failures, seconds(s.time))
		for _, p := range props {
			fmt.Fprintf(w, "      <property name=\"%s\" value=\"%s\"></property>\n", xmlAttr(p.Name), xmlAttr(p.Value))
		}
		fmt.Fprint(w, "    </properties>\n")
		if _, err := io.Copy(w, io.NewSectionReader(j.part, s.from, s.to-s.from)); err != nil {
			return err
		}
		fmt.Fprint(w, "  </testsuite>\n")
	}
	_, err := fmt.Fprint(w, "</testsuites>\n")
	return err
}

// xmlAttr escapes s for an attribute value.
func xmlAttr(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
