package htmlreport

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/seam-dev/seam/fixtures"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/tape"
)

// testOptions are the options the goldens are made with: a fixed version,
// so the page does not change with seam's, and stalls of a quarter second
// so the charts of short fixtures have some to shade.
var testOptions = Options{Version: "test", Stall: 250 * time.Millisecond}

// render inspects c and writes its page.
func render(t *testing.T, c *tape.Capture, ex int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, c, inspect.Inspect(c, inspect.Options{Ex: ex}), testOptions); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func loadFixture(t *testing.T, name string) *tape.Capture {
	t.Helper()
	c, err := fixtures.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// parse parses page as HTML5, as a browser does.
func parse(t *testing.T, page []byte) *html.Node {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatalf("the page does not parse as HTML: %v", err)
	}
	return doc
}

// walk calls f for every node under n, n included.
func walk(n *html.Node, f func(*html.Node)) {
	f(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, f)
	}
}

// find returns the elements under n named tag whose class list holds
// every class given.
func find(n *html.Node, tag string, classes ...string) []*html.Node {
	var out []*html.Node
	walk(n, func(m *html.Node) {
		if m.Type != html.ElementNode || m.Data != tag {
			return
		}
		have := strings.Fields(attr(m, "class"))
		for _, c := range classes {
			if !contains(have, c) {
				return
			}
		}
		out = append(out, m)
	})
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func attr(n *html.Node, name string) string {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val
		}
	}
	return ""
}

// text returns the text content of n, as a browser's textContent.
func text(n *html.Node) string {
	var b strings.Builder
	walk(n, func(m *html.Node) {
		if m.Type == html.TextNode {
			b.WriteString(m.Data)
		}
	})
	return b.String()
}

// svgParts returns each <svg>…</svg> of page, as written.
func svgParts(page []byte) [][]byte {
	var out [][]byte
	for {
		i := bytes.Index(page, []byte("<svg"))
		if i < 0 {
			return out
		}
		j := bytes.Index(page[i:], []byte("</svg>"))
		if j < 0 {
			return append(out, page[i:])
		}
		out = append(out, page[i:i+j+len("</svg>")])
		page = page[i+j+len("</svg>"):]
	}
}

// checkXML decodes b strictly as XML: every element closed, every
// attribute quoted, every entity known.
func checkXML(b []byte) error {
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
