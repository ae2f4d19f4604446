// Package junit writes JUnit XML, as CI systems read it: one test suite
// per name the cases are added under, each case with its wall time in
// `time` and a failure element if it failed, and the run's metadata as
// each suite's properties. A suite's counts come before its cases, so the
// cases are streamed to a hidden part file beside the output (memory stays
// bounded) and the file is assembled when the run ends; the part file is
// removed on every exit. Its errors are one line each, for simrun to print.
package junit

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/podsim/podsim/cmd/simrun/internal/outfile"
)

// Suites is the document, as a reader decodes it.
type Suites struct {
	XMLName xml.Name `xml:"testsuites"`
	Tests   int      `xml:"tests,attr"`
	Fails   int      `xml:"failures,attr"`
	Time    string   `xml:"time,attr"`
	Suites  []Suite  `xml:"testsuite"`
}

// Suite is one suite of the document.
type Suite struct {
	Name       string     `xml:"name,attr"`
	Tests      int        `xml:"tests,attr"`
	Failures   int        `xml:"failures,attr"`
	Time       string     `xml:"time,attr"`
	Properties []Property `xml:"properties>property"`
	Cases      []Case     `xml:"testcase"`
}

// Property is one of a suite's properties.
type Property struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// Case is one test case; Add sets its Time.
type Case struct {
	XMLName   xml.Name `xml:"testcase"`
	Name      string   `xml:"name,attr"`
	Classname string   `xml:"classname,attr"`
	Time      string   `xml:"time,attr"`
	Failure   *Failure `xml:"failure,omitempty"`
}

// Failure says why a case failed.
type Failure struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

// span is one suite's place in the part file.
type span struct {
	name            string
	tests, failures int
	time            time.Duration
	from, to        int64
}

// Writer streams test cases; not safe for concurrent use.
type Writer struct {
	path  string
	part  *os.File
	w     *bufio.Writer
	off   int64
	spans []span
	err   error
}

// Open starts the file at path (checked before): only the part file beside
// it is created now, the file itself by Close.
func Open(path string) (*Writer, error) {
	part, err := outfile.CreateTemp(path, ".part")
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %v", path, err)
	}
	return &Writer{path: path, part: part, w: bufio.NewWriterSize(part, 64<<10)}, nil
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.6f", d.Seconds()) }

// Add writes one test case of the named suite, with its wall time took.
// The cases of a suite are added one after another: a new name starts a
// new suite.
func (j *Writer) Add(suite string, c Case, took time.Duration) {
	if n := len(j.spans); n == 0 || j.spans[n-1].name != suite {
		j.spans = append(j.spans, span{name: suite, from: j.off, to: j.off})
	}
	s := &j.spans[len(j.spans)-1]
	c.Time = seconds(took)
	if c.Failure != nil {
		s.failures++
	}
	s.tests++
	s.time += took
	data, err := xml.MarshalIndent(c, "    ", "  ")
	if err == nil {
		_, err = j.w.Write(append(data, '\n'))
	}
	if err != nil && j.err == nil {
		j.err = fmt.Errorf("cannot write %s: %v", j.path, err)
	}
	j.off += int64(len(data) + 1)
	s.to = j.off
}

// Err is the first error writing a case.
func (j *Writer) Err() error { return j.err }

// Close assembles the file from the part file, with props as each
// suite's properties, and removes the part file.
func (j *Writer) Close(props []Property) error {
	defer os.Remove(j.part.Name())
	defer j.part.Close()
	if j.err != nil {
		return j.err
	}
	if err := j.w.Flush(); err != nil {
		return fmt.Errorf("cannot write %s: %v", j.path, err)
	}
	out, err := outfile.Create(j.path)
	if err != nil {
		return fmt.Errorf("cannot write %s: %v", j.path, err)
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
		return fmt.Errorf("cannot write %s: %v", j.path, err)
	}
	return nil
}

func (j *Writer) assemble(w io.Writer, props []Property) error {
	var tests, failures int
	var total time.Duration
	for _, s := range j.spans {
		tests, failures, total = tests+s.tests, failures+s.failures, total+s.time
	}
	fmt.Fprintf(w, "%s<testsuites tests=\"%d\" failures=\"%d\" time=\"%s\">\n", xml.Header, tests, failures, seconds(total))
	for _, s := range j.spans {
		fmt.Fprintf(w, "  <testsuite name=\"%s\" tests=\"%d\" failures=\"%d\" time=\"%s\">\n    <properties>\n",
			xmlAttr(s.name), s.tests, s.failures, seconds(s.time))
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
