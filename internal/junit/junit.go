package junit

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/seam-dev/seam/internal/outfile"
	"github.com/seam-dev/seam/visible"
)

// Case is one test case of a JUnit XML report: a fixture for seam
// check, an exchange for seam inspect.
type Case struct {
	XMLName   xml.Name `xml:"testcase"`
	Name      string   `xml:"name,attr"`
	Classname string   `xml:"classname,attr"`
	Time      string   `xml:"time,attr"`
	// Failure is nil for a case that passed.
	Failure *Failure `xml:"failure,omitempty"`
}

// Failure says why a case failed: a one-line message and the details.
type Failure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type xmlSuite struct {
	XMLName  xml.Name `xml:"testsuite"`
	Name     string   `xml:"name,attr"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Time     string   `xml:"time,attr"`
	Cases    []Case   `xml:"testcase"`
}

type xmlSuites struct {
	XMLName  xml.Name   `xml:"testsuites"`
	Name     string     `xml:"name,attr"`
	Tests    int        `xml:"tests,attr"`
	Failures int        `xml:"failures,attr"`
	Errors   int        `xml:"errors,attr"`
	Time     string     `xml:"time,attr"`
	Suites   []xmlSuite `xml:"testsuite"`
}

// NewFailure makes a failure whose message is the first line of the
// details (what CI systems show in a list) and whose text is all of them.
func NewFailure(typ string, details []string) *Failure {
	text := strings.Join(details, "\n")
	msg, _, _ := strings.Cut(text, "\n")
	return &Failure{Message: msg, Type: typ, Text: text}
}

// Seconds renders a duration as JUnit's decimal seconds.
func Seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// Write writes one suite of cases as a JUnit XML document, the shape
// CI systems (GitHub Actions reporters, GitLab, Jenkins) read: testsuites,
// testsuite with counts, testcase, failure. Names, messages and failure
// texts quote captures (a file name, a URL, evidence), and a CI page shows
// them as they are: every control, bidi and invisible character in them is
// drawn as package visible draws it on a terminal (U+202E as ⟨U+202E⟩),
// so neither XML nor a reader gets it raw.
func Write(w io.Writer, suite string, cases []Case, took time.Duration) error {
	s := xmlSuite{Name: visible.String(suite), Tests: len(cases), Time: Seconds(took), Cases: make([]Case, len(cases))}
	for i, c := range cases {
		c.Name, c.Classname = visible.String(c.Name), visible.String(c.Classname)
		if f := c.Failure; f != nil {
			c.Failure = &Failure{Message: visible.String(f.Message), Type: visible.String(f.Type), Text: visible.Text(f.Text)}
			s.Failures++
		}
		s.Cases[i] = c
	}
	doc := xmlSuites{Name: "seam", Tests: s.Tests, Failures: s.Failures, Time: s.Time, Suites: []xmlSuite{s}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("encode JUnit XML: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// WriteFile writes the report to path; a path that is not a regular
// file (a named pipe, a device) is written into, never replaced, and a
// new file is made 0600 (see package outfile).
func WriteFile(path, suite string, cases []Case, took time.Duration) error {
	_, err := outfile.Write(path, 0o600, func(w io.Writer) error { return Write(w, suite, cases, took) })
	return err
}

// WriteTo writes the report to path, or to stdout for "-"; an error
// writing the file names the flag it came from, --junit.
func WriteTo(stdout io.Writer, path, suite string, cases []Case, took time.Duration) error {
	if path == "-" {
		return Write(stdout, suite, cases, took)
	}
	if err := WriteFile(path, suite, cases, took); err != nil {
		return fmt.Errorf("--junit: %w", err)
	}
	return nil
}
