package main

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seam-dev/seam/fixtures"
	"github.com/seam-dev/seam/internal/junit"
)

// The JUnit schema shape CI systems read (the Ant / Jenkins / GitLab one):
// testsuites > testsuite (name, tests, failures, errors, time) > testcase
// (name, classname, time) > optional failure (message, type, text). Decoded
// strictly: an element or attribute in the wrong place fails the test.
type schemaSuites struct {
	XMLName  xml.Name      `xml:"testsuites"`
	Tests    *int          `xml:"tests,attr"`
	Failures *int          `xml:"failures,attr"`
	Suites   []schemaSuite `xml:"testsuite"`
}

type schemaSuite struct {
	Name     *string      `xml:"name,attr"`
	Tests    *int         `xml:"tests,attr"`
	Failures *int         `xml:"failures,attr"`
	Errors   *int         `xml:"errors,attr"`
	Time     *float64     `xml:"time,attr"`
	Cases    []schemaCase `xml:"testcase"`
}

type schemaCase struct {
	Name      *string  `xml:"name,attr"`
	Classname *string  `xml:"classname,attr"`
	Time      *float64 `xml:"time,attr"`
	Failure   *struct {
		Message *string `xml:"message,attr"`
		Type    string  `xml:"type,attr"`
		Text    string  `xml:",chardata"`
	} `xml:"failure"`
}

// validJUnit decodes doc and checks every required attribute and that the
// counts agree with the cases; it returns the decoded document.
func validJUnit(t *testing.T, doc []byte) schemaSuites {
	t.Helper()
	if !bytes.HasPrefix(doc, []byte(xml.Header)) {
		t.Fatalf("no XML declaration: %.60q", doc)
	}
	var s schemaSuites
	d := xml.NewDecoder(bytes.NewReader(doc))
	d.Strict = true
	if err := d.Decode(&s); err != nil {
		t.Fatalf("not XML of the JUnit shape: %v", err)
	}
	if s.Tests == nil || s.Failures == nil || len(s.Suites) != 1 {
		t.Fatalf("testsuites lacks tests/failures or one testsuite: %+v", s)
	}
	su := s.Suites[0]
	if su.Name == nil || su.Tests == nil || su.Failures == nil || su.Errors == nil || su.Time == nil {
		t.Fatalf("testsuite lacks a required attribute: %+v", su)
	}
	failures := 0
	for _, c := range su.Cases {
		if c.Name == nil || c.Classname == nil || c.Time == nil {
			t.Fatalf("testcase lacks name, classname or time: %+v", c)
		}
		if c.Failure != nil {
			if c.Failure.Message == nil || *c.Failure.Message == "" {
				t.Fatalf("failure without a message in %s", *c.Name)
			}
			failures++
		}
	}
	if *su.Tests != len(su.Cases) || *su.Failures != failures || *s.Tests != *su.Tests || *s.Failures != failures {
		t.Fatalf("counts disagree: suites %d/%d, suite %d/%d, cases %d/%d", *s.Tests, *s.Failures, *su.Tests, *su.Failures, len(su.Cases), failures)
	}
	return s
}

func TestJUnitShape(t *testing.T) {
	cases := []junit.Case{
		{Name: "fixtures/ok.ndjson", Classname: "seam.check", Time: junit.Seconds(1500 * time.Microsecond)},
		{Name: "fixtures/bad\x1b]52;c;x\x07.ndjson", Classname: "seam.check", Time: "0.000",
			Failure: junit.NewFailure("seam.check", []string{"exchange 1: replay differs at frame 3", "- error x.y client event 2: <a & \"b\">"})},
	}
	var b bytes.Buffer
	if err := junit.Write(&b, "seam check", cases, time.Second); err != nil {
		t.Fatal(err)
	}
	s := validJUnit(t, b.Bytes())
	f := s.Suites[0].Cases[1].Failure
	if *f.Message != "exchange 1: replay differs at frame 3" || !strings.Contains(f.Text, `<a & "b">`) {
		t.Errorf("failure %q / %q", *f.Message, f.Text)
	}
	if bytes.ContainsAny(b.Bytes(), "\x1b\x07") {
		t.Error("control characters reached the XML")
	}
}

// seam inspect --junit - has stdout to itself: the JUnit XML and nothing
// else, for one capture and for several.
func TestInspectJUnitStdout(t *testing.T) {
	incident := fixturesDir + "/" + fixtures.Incident
	for _, args := range [][]string{
		{"inspect", "--junit", "-", incident},
		{"inspect", "--junit", "-", incident, fixturesDir + "/openai-chat-tools.ndjson"},
	} {
		out, err := seamOutput(args...)
		if err != nil {
			t.Fatal(err)
		}
		if s := validJUnit(t, out); len(s.Suites[0].Cases) != len(args)-3 {
			t.Errorf("seam %s: %d cases", strings.Join(args, " "), len(s.Suites[0].Cases))
		}
	}
}

// TestJUnitBidi: a fixture whose name carries a right-to-left override
// (U+202E makes "gnp.ndjson" read as "nosjdn.png") and a finding quoting
// one: the JUnit XML a CI page shows holds neither raw, only package
// visible's markers, in case names, messages and failure texts.
func TestJUnitBidi(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "report\u202egnp.ndjson")
	for src, dst := range map[string]string{"anthropic-tool-use.ndjson": name, "anthropic-tool-use.expect.json": strings.TrimSuffix(name, ".ndjson") + ".expect.json"} {
		b, err := os.ReadFile(filepath.Join(fixturesDir, src))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "junit.xml")
	if _, err := seamOutput("check", "--junit", out, dir); err != nil {
		t.Fatal(err)
	}
	cases := []junit.Case{{Name: "a\u202eb", Classname: "seam\u200b.check", Time: "0.000",
		Failure: junit.NewFailure("seam.check", []string{"evidence \u2066x\u2069 \x1b[31m", "more \u202e"})}}
	var b bytes.Buffer
	if err := junit.Write(&b, "seam check", cases, 0); err != nil {
		t.Fatal(err)
	}
	written, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range [][]byte{written, b.Bytes()} {
		validJUnit(t, doc)
		if bytes.ContainsAny(doc, "\u202e\u200b\u2066\u2069\x1b") {
			t.Errorf("a bidi, invisible or control character reached the XML:\n%s", doc)
		}
		if !bytes.Contains(doc, []byte("⟨U+202E⟩")) {
			t.Errorf("U+202E not drawn as ⟨U+202E⟩:\n%s", doc)
		}
	}
}
